#!/usr/bin/env bash
# mpi_run.sh - the distributed sort's measurements (issue 34) in one command:
# builds clsort with MPI into $BUILD_DIR, then runs clsort-mpi sort for the
# targets and prints each rank's time split (check, local sort, splitter
# selection, exchange, merge; medians of --rounds) and a summary.
#
#   gpu      one rank on one GPU against two ranks on two GPUs, N_GPU u32 keys
#            per rank from host memory (weak scaling 1 -> 2 ranks): the
#            single-device host sort (--baseline) on one GPU and on both at
#            once (each rank its own keys), the distributed sort on 1
#            rank, and on 2 ranks reading the runs in the shared window and
#            exchanging them through MPI (CLSORT_MPI_EXCHANGE=mpi), and with
#            the elements through host memory between the steps
#            (CLSORT_MPI_RESIDENT=0) on 1 and 2 ranks; with
#            VARIANTS=1 also the second clsort sort (CLSORT_MPI_MERGE=sort)
#            and no touching of the temporary buffers (CLSORT_MPI_TOUCH=0)
#   cpu      4 ranks x 4 PoCL threads (each rank bound to 4 cores) against one
#            process on 16 threads (16 cores), N_CPU u32 keys in total, the
#            runs read in the shared window and exchanged through MPI; with
#            VARIANTS=1 also merged by a second sort
#   old      the 2-rank GPU run and the CPU ranks' run with an older build's
#            clsort-mpi ($OLD_TOOL), for an A/B within one call
#   balance  every rank keeps its own count whatever the distribution: all
#            keys equal, all on one rank, sorted, reversed (N_BAL per rank,
#            on the GPUs when there are two, else on PoCL), each checked
#   large    (not in the default list) 2 ranks of N_LARGE u32 keys each
#            (default 1536M: each sends about 3 GB to the other, over 2^31
#            bytes, the exchange's 64-bit path), on the GPUs or on PoCL,
#            checked; needs about 4 x 6 GB of host memory per rank
#
# usage: bench/mpi_run.sh [stage ...]     stages: build gpu cpu balance old
#        (default: all four, in that order)
# environment:
#   N_GPU (default 512M keys per rank), N_CPU (256M in total), N_BAL (16M per
#   rank), ROUNDS (5), CPU_RANKS (4), CPU_THREADS (4 per rank; the baseline
#   uses CPU_RANKS x CPU_THREADS), GPU_DEVICES (two clsort device names,
#   comma-separated, default: the first two GPUs that `clsort info` lists),
#   CPU_DEVICE (default cpu), CPU_BIND (mpiexec's mapping of the CPU ranks,
#   default "--map-by slot:PE=$CPU_THREADS --bind-to core"), CPU_BIND_ONE (of
#   the one-process baseline, default --map-by slot:PE=<all threads>
#   --bind-to core), BUILD_DIR (default build-mpi), OUT (default
#   ./mpi-out: the logs), MPIEXEC_FLAGS (extra mpiexec flags),
#   MPI_PREFIX: where Open MPI's Debian packages were unpacked (dpkg -x
#   PKG.deb $MPI_PREFIX for each of openmpi-bin openmpi-common libopenmpi3
#   libopenmpi-dev and their libraries: libpmix2 libevent-core-2.1-7
#   libevent-pthreads-2.1-7 libhwloc15 libfabric1 libucx0 libibverbs1
#   ibverbs-providers librdmacm1 libpsm2-2 libpsm-infinipath1 libnl-3-200
#   libnl-route-3-200 libmunge2 libnuma1); unset when Open MPI is installed
#   (mpicc and mpiexec on PATH).
# Sizes take suffixes K, M, G (powers of two). Small example, on PoCL only:
#   N_CPU=4M N_BAL=256K ROUNDS=3 CPU_RANKS=2 CPU_THREADS=1 CPU_BIND="--bind-to none" \
#   CPU_BIND_ONE="--bind-to none" bench/mpi_run.sh build cpu balance
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
N_GPU=${N_GPU:-512M}
N_CPU=${N_CPU:-256M}
N_BAL=${N_BAL:-16M}
N_LARGE=${N_LARGE:-1536M}
ROUNDS=${ROUNDS:-5}
CPU_RANKS=${CPU_RANKS:-4}
CPU_THREADS=${CPU_THREADS:-4}
CPU_DEVICE=${CPU_DEVICE:-cpu}
CPU_BIND=${CPU_BIND:-"--map-by slot:PE=$CPU_THREADS --bind-to core"}
BUILD_DIR=${BUILD_DIR:-build-mpi}
OUT=${OUT:-$PWD/mpi-out}
MPIEXEC_FLAGS=${MPIEXEC_FLAGS:-}
export CLSORT_CACHE_DIR=${CLSORT_CACHE_DIR:-/tmp/clsort-cache}
stages=${*:-build gpu cpu balance}
mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt

log() { echo "=== $* ($(date +%T))"; }

# ------------------------------------------------------------ Open MPI
if [ -n "${MPI_PREFIX:-}" ]; then
    # Unpacked (not installed) debs: no /usr/bin/mpicc alternatives links, and
    # Open MPI must be told where its tree now lives.
    export OPAL_PREFIX=$MPI_PREFIX/usr
    export PATH=$MPI_PREFIX/usr/bin:$PATH
    export LD_LIBRARY_PATH=$MPI_PREFIX/usr/lib/x86_64-linux-gnu:$MPI_PREFIX/usr/lib/x86_64-linux-gnu/openmpi/lib:$MPI_PREFIX/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    MPICC=$MPI_PREFIX/usr/bin/mpicc.openmpi
    MPIEXEC=$MPI_PREFIX/usr/bin/mpiexec.openmpi
else
    MPICC=$(command -v mpicc || command -v mpicc.openmpi || true)
    MPIEXEC=$(command -v mpiexec || command -v mpiexec.openmpi || true)
fi
[ "$(id -u)" = 0 ] && MPIEXEC_FLAGS="--allow-run-as-root $MPIEXEC_FLAGS"
MPIEXEC_FLAGS="--oversubscribe $MPIEXEC_FLAGS"
TOOL=$ROOT/$BUILD_DIR/clsort-mpi

# mpirun NP BINDING ENV... -- ARGS: one clsort-mpi sort run, its output into
# the log and its RESULT line into the summary with a label.
run() {
    local label=$1 np=$2 bind=$3
    shift 3
    local envs=()
    while [ "$1" != "--" ]; do envs+=(-x "$1"); shift; done
    shift
    echo "--- $label: mpiexec -n $np $bind ${envs[*]} clsort-mpi sort $*"
    # each -x NAME=VALUE sets the variable for the ranks
    "$MPIEXEC" $MPIEXEC_FLAGS -n "$np" $bind "${envs[@]}" -x CLSORT_CACHE_DIR \
        "$TOOL" sort "$@" 2>&1 | tee "$OUT/$label.log"
    local rc=${PIPESTATUS[0]}
    local line
    line=$(grep '^RESULT' "$OUT/$label.log" | tail -1)
    echo "$label rc=$rc ${line#RESULT }" >> "$SUMMARY"
    grep -q '^check: FAILED' "$OUT/$label.log" && echo "$label CHECK FAILED" >> "$SUMMARY"
    return 0
}

# The value of field NAME in the summary line of LABEL.
field() { grep "^$1 " "$SUMMARY" | tail -1 | tr ' ' '\n' | sed -n "s/^$2=//p"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "?" }'; }

stage_build() {
    log "build into $BUILD_DIR (MPI: ${MPICC:-not found})"
    local extra=()
    [ -n "$MPICC" ] && extra+=(-DMPI_C_COMPILER="$MPICC")
    [ -n "$MPIEXEC" ] && extra+=(-DMPIEXEC_EXECUTABLE="$MPIEXEC")
    cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release "${extra[@]}" > "$OUT/cmake.log" 2>&1 ||
        { cat "$OUT/cmake.log"; exit 1; }
    grep clsort_mpi "$OUT/cmake.log"
    cmake --build "$BUILD_DIR" -j "$(nproc)" --target clsort clsort-mpi > "$OUT/build.log" 2>&1 ||
        { tail -30 "$OUT/build.log"; exit 1; }
    [ -x "$TOOL" ] || { echo "no $TOOL: is MPI found? (see $OUT/cmake.log)"; exit 1; }
    "$ROOT/$BUILD_DIR/clsort" info | tee "$OUT/info.txt"
}

# The first two GPUs of `clsort info` as P:D.
gpu_devices() {
    if [ -n "${GPU_DEVICES:-}" ]; then
        echo "$GPU_DEVICES"
        return
    fi
    "$ROOT/$BUILD_DIR/clsort" info 2> /dev/null | awk '
        /^[0-9]+:[0-9]+ / { dev = $1 }
        /^ +type +GPU/ && dev != "" { list = list (list == "" ? "" : ",") dev; dev = "" }
        END { print list }' | cut -d, -f1-2
}

stage_gpu() {
    local devs
    devs=$(gpu_devices)
    if [ "$(echo "$devs" | tr ',' '\n' | grep -c .)" -lt 2 ]; then
        log "gpu: skipped, fewer than two GPUs (clsort info; or set GPU_DEVICES)"
        return
    fi
    local d0=${devs%%,*}
    log "gpu: $N_GPU u32 keys per rank from host memory on $devs, $ROUNDS rounds"
    # ranks unbound, so that the host merge's threads spread over the cores
    run gpu_1rank_alone 1 "--bind-to none" -- --device "$d0" --n-per-rank "$N_GPU" \
        --rounds "$ROUNDS" --baseline
    # both GPUs sorting their own keys alone at once: what the node's host
    # memory and buses allow two ranks' host-to-host sorts, with no exchange
    run gpu_2ranks_alone 2 "--bind-to none" -- --device "$devs" --n-per-rank "$N_GPU" \
        --rounds "$ROUNDS" --baseline
    run gpu_1rank 1 "--bind-to none" -- --device "$d0" --n-per-rank "$N_GPU" --rounds "$ROUNDS"
    run gpu_2ranks 2 "--bind-to none" -- --device "$devs" --n-per-rank "$N_GPU" --rounds "$ROUNDS"
    run gpu_2ranks_mpi 2 "--bind-to none" CLSORT_MPI_EXCHANGE=mpi -- --device "$devs" \
        --n-per-rank "$N_GPU" --rounds "$ROUNDS"
    # the elements through host memory between the steps (the route before
    # the device-resident steps)
    run gpu_1rank_host 1 "--bind-to none" CLSORT_MPI_RESIDENT=0 -- --device "$d0" \
        --n-per-rank "$N_GPU" --rounds "$ROUNDS"
    run gpu_2ranks_host 2 "--bind-to none" CLSORT_MPI_RESIDENT=0 -- --device "$devs" \
        --n-per-rank "$N_GPU" --rounds "$ROUNDS"
    [ "${VARIANTS:-0}" = 1 ] || return 0
    run gpu_2ranks_sortmerge 2 "--bind-to none" CLSORT_MPI_MERGE=sort -- --device "$devs" \
        --n-per-rank "$N_GPU" --rounds "$ROUNDS"
    # without touching the temporary buffers while the GPU sorts (default on GPUs)
    run gpu_2ranks_notouch 2 "--bind-to none" CLSORT_MPI_TOUCH=0 -- --device "$devs" \
        --n-per-rank "$N_GPU" --rounds "$ROUNDS"
}

stage_old() {
    [ -x "${OLD_TOOL:-}" ] || { log "old: skipped, OLD_TOOL is not an executable"; return; }
    local devs keep=$TOOL
    devs=$(gpu_devices)
    TOOL=$OLD_TOOL
    log "old: $OLD_TOOL"
    if [ "$(echo "$devs" | tr ',' '\n' | grep -c .)" -ge 2 ]; then
        run gpu_2ranks_old 2 "--bind-to none" -- --device "$devs" --n-per-rank "$N_GPU" \
            --rounds "$ROUNDS"
    fi
    run cpu_${CPU_RANKS}x${CPU_THREADS}_old "$CPU_RANKS" "$CPU_BIND" \
        POCL_MAX_PTHREAD_COUNT=$CPU_THREADS -- --device "$CPU_DEVICE" --n "$N_CPU" \
        --rounds "$ROUNDS"
    TOOL=$keep
}

stage_cpu() {
    local all=$((CPU_RANKS * CPU_THREADS))
    log "cpu: $N_CPU u32 keys in total; $CPU_RANKS ranks x $CPU_THREADS PoCL threads against 1 x $all"
    # one process on cores 0..all-1; ranks on CPU_THREADS cores each
    run cpu_1x$all 1 "${CPU_BIND_ONE:---map-by slot:PE=$all --bind-to core}" POCL_MAX_PTHREAD_COUNT=$all -- \
        --device "$CPU_DEVICE" --n "$N_CPU" --rounds "$ROUNDS" --baseline
    run cpu_${CPU_RANKS}x$CPU_THREADS "$CPU_RANKS" "$CPU_BIND" \
        POCL_MAX_PTHREAD_COUNT=$CPU_THREADS -- --device "$CPU_DEVICE" --n "$N_CPU" \
        --rounds "$ROUNDS"
    run cpu_${CPU_RANKS}x${CPU_THREADS}_mpi "$CPU_RANKS" "$CPU_BIND" \
        POCL_MAX_PTHREAD_COUNT=$CPU_THREADS CLSORT_MPI_EXCHANGE=mpi -- --device "$CPU_DEVICE" \
        --n "$N_CPU" --rounds "$ROUNDS"
    [ "${VARIANTS:-0}" = 1 ] || return 0
    run cpu_${CPU_RANKS}x${CPU_THREADS}_sortmerge "$CPU_RANKS" "$CPU_BIND" \
        POCL_MAX_PTHREAD_COUNT=$CPU_THREADS \
        CLSORT_MPI_MERGE=sort -- --device "$CPU_DEVICE" --n "$N_CPU" --rounds "$ROUNDS"
}

stage_balance() {
    local devs np bind envs=()
    devs=$(gpu_devices)
    if [ "$(echo "$devs" | tr ',' '\n' | grep -c .)" -ge 2 ]; then
        np=2
        bind="--bind-to none"
    else
        devs=$CPU_DEVICE
        np=$CPU_RANKS
        bind=$CPU_BIND
        envs=(POCL_MAX_PTHREAD_COUNT=$CPU_THREADS)
    fi
    log "balance: $np ranks on $devs, $N_BAL keys per rank (pairs: stability checked)"
    local d
    for d in all-equal sorted reversed few-unique; do
        run "balance_$d" "$np" "$bind" "${envs[@]}" -- --device "$devs" --n-per-rank "$N_BAL" \
            --dist "$d" --values 8 --rounds 1
    done
    # all keys on rank 0: the others pass 0 keys and get 0 back
    run balance_one_rank "$np" "$bind" "${envs[@]}" -- --device "$devs" \
        --n $(( $(echo "$N_BAL" | sed 's/K$/*1024/; s/M$/*1048576/; s/G$/*1073741824/') * np )) \
        --layout one-rank --values 8 --rounds 1
}

stage_large() {
    local devs bind="--bind-to none" envs=()
    devs=$(gpu_devices)
    if [ "$(echo "$devs" | tr ',' '\n' | grep -c .)" -lt 2 ]; then
        devs=$CPU_DEVICE
        envs=(POCL_MAX_PTHREAD_COUNT=$CPU_THREADS)
    fi
    log "large: 2 ranks x $N_LARGE u32 keys on $devs (messages over 2^31 bytes)"
    run large 2 "$bind" "${envs[@]}" -- --device "$devs" --n-per-rank "$N_LARGE" --rounds 1 \
        --warmup 0
}

summary() {
    log "summary ($SUMMARY)"
    cat "$SUMMARY"
    local a b c s
    a=$(field gpu_1rank_alone time_ms)
    b=$(field gpu_2ranks time_ms)
    c=$(field gpu_1rank time_ms)
    s=$(field gpu_2ranks_mpi time_ms)
    if [ -n "$a" ] && [ -n "$b" ]; then
        echo "GPU weak scaling: 2 ranks x $N_GPU in $b ms (shared window), ${s:-?} ms" \
             "(MPI_Alltoallw), $(field gpu_2ranks_host time_ms) ms (through host memory)," \
             "older build ${OLD_TOOL:+$(field gpu_2ranks_old time_ms)} ms;"
        echo "  one rank alone $a ms, two ranks alone at once $(field gpu_2ranks_alone time_ms) ms," \
             "distributed on 1 rank $c ms"
        echo "  weak scaling of the distributed sort 1 -> 2 ranks: efficiency $(ratio "$c" "$b")" \
             "(time on 1 rank / time on 2 ranks, each rank $N_GPU keys)"
        echo "  rate of 2 ranks / rate of 1 rank alone = $(ratio "$(awk -v a="$a" 'BEGIN { print 2 * a }')" "$b")x" \
             "(target >= 1.6x), exchange share $(field gpu_2ranks exchange_share)"
    fi
    local all=$((CPU_RANKS * CPU_THREADS))
    a=$(field "cpu_1x$all" time_ms)
    b=$(field "cpu_${CPU_RANKS}x$CPU_THREADS" time_ms)
    s=$(field "cpu_${CPU_RANKS}x${CPU_THREADS}_mpi" time_ms)
    if [ -n "$a" ] && [ -n "$b" ]; then
        echo "CPU: $CPU_RANKS x $CPU_THREADS threads $b ms (MPI_Alltoallw ${s:-?} ms, older build" \
             "$(field "cpu_${CPU_RANKS}x${CPU_THREADS}_old" time_ms) ms) against 1 x $all $a ms:" \
             "$(ratio "$b" "$a")x the time (target <= 1.5x), exchange share $(field "cpu_${CPU_RANKS}x$CPU_THREADS" exchange_share)"
    fi
    grep -q FAILED "$SUMMARY" && echo "SOME CHECKS FAILED" || echo "every check passed"
}

: > "$SUMMARY"
for s in $stages; do
    "stage_$s"
done
summary
