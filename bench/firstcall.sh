#!/usr/bin/env bash
# firstcall.sh - a new process's first sort on the CPU (PoCL), issue 37:
# clsort_firstcall (bench/firstcall.c) in a new process with empty caches
# ("cold": a fresh HOME, XDG_CACHE_HOME, CLSORT_CACHE_DIR and POCL_CACHE_DIR
# in a new temporary folder) and with caches that `clsort warmup --types KEY`
# filled in an earlier process ("warm"); with PY=1 also Python's
# clsort.sort (import, context, first and second sort). The builds given as
# arguments (default: build) take turns, ROUNDS rounds; the machine's load
# is noted on each line, and the medians come last.
# usage: [ROUNDS=3] [N=20000000] [KEY=f32] [PY=0 [PYTHON=python3]] [MODES="cold warm"] \
#        bench/firstcall.sh [BUILD_DIR ...]
set -u
cd "$(dirname "$0")/.." || exit 1
builds=("${@:-build}")
rounds=${ROUNDS:-3} n=${N:-20000000} key=${KEY:-f32} modes=${MODES:-cold warm}
declare -A npy=([f32]=float32 [u32]=uint32 [i32]=int32 [u64]=uint64 [f64]=float64)
log=$(mktemp)
py=${PYTHON:-python3}
if [ "${PY:-0}" = 1 ] && ! "$py" -c "import numpy" 2> /dev/null; then
    py=/usr/bin/python3 # the system's, with python3-numpy
    "$py" -c "import numpy" || exit 1
fi
fresh() { # DIR CMD...: CMD with every cache in DIR
    local d=$1
    shift
    mkdir -p "$d/home" "$d/xdg"
    HOME=$d/home XDG_CACHE_HOME=$d/xdg CLSORT_CACHE_DIR=$d/clsort POCL_CACHE_DIR=$d/pocl \
        CLSORT_DEVICE=cpu "$@"
}
pysort="import sys, time
t0 = time.perf_counter()
import numpy as np
t1 = time.perf_counter()
import clsort
t2 = time.perf_counter()
a = np.random.default_rng(1).random($n).astype(np.${npy[$key]})
t3 = time.perf_counter()
clsort.default_context()
t4 = time.perf_counter()
s = clsort.sort(a)
t5 = time.perf_counter()
clsort.sort(a)
t6 = time.perf_counter()
assert np.all(s[1:] >= s[:-1])
for name, t in (('py_numpy', t1 - t0), ('py_import', t2 - t1), ('py_context', t4 - t3),
                ('py_sort1', t5 - t4), ('py_sort2', t6 - t5)):
    print('%-10s %8.3f' % (name, t))"
for r in $(seq "$rounds"); do
    for b in "${builds[@]}"; do
        for mode in $modes; do
            d=$(mktemp -d)
            if [ "$mode" = warm ]; then
                fresh "$d" "./$b/clsort" warmup --types "$key" > /dev/null 2>&1 ||
                    { echo "warmup failed in $b" >&2; exit 1; }
            fi
            load=$(cut -d' ' -f1 /proc/loadavg)
            out=$(fresh "$d" "./$b/clsort_firstcall" "$n" "$key" 3 2>&1) ||
                { echo "$out" >&2; exit 1; }
            echo "$out" | awk -v b="$b" -v m="$mode" -v r="$r" -v l="$load" \
                'NR > 1 {print b, m, r, l, $0}' | tee -a "$log"
            if [ "${PY:-0}" = 1 ]; then
                rm -rf "$d"
                d=$(mktemp -d)
                [ "$mode" = warm ] && fresh "$d" "./$b/clsort" warmup --types "$key" > /dev/null 2>&1
                load=$(cut -d' ' -f1 /proc/loadavg)
                fresh "$d" env CLSORT_LIBRARY="$PWD/$b/libclsort.so" PYTHONPATH="$PWD/python" \
                    "$py" -c "$pysort" | awk -v b="$b" -v m="$mode" -v r="$r" -v l="$load" \
                    '{print b, m, r, l, $0}' | tee -a "$log"
            fi
            rm -rf "$d"
        done
    done
done
echo "medians (wall s; load range), over $rounds rounds:"
python3 - "$log" <<'EOF'
import collections, statistics, sys
rows = collections.defaultdict(list)
loads = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    rows[(f[0], f[1], f[4])].append(float(f[5]))
    loads[(f[0], f[1])].append(float(f[3]))
for (b, m), ls in loads.items():
    phases = [(p, v) for (bb, mm, p), v in rows.items() if (bb, mm) == (b, m)]
    print("%s %s (load %.2f-%.2f): %s" % (b, m, min(ls), max(ls), "  ".join(
        "%s %.3f" % (p, statistics.median(v)) for p, v in phases)))
EOF
rm -f "$log"
