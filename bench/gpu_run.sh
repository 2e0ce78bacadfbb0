#!/usr/bin/env bash
# gpu_run.sh - the whole GPU session in one command, for a machine with an
# NVIDIA GPU, its OpenCL driver, nvcc (CUB) and PoCL:
#   ICD set-up (from .debs/ when present), build, GPU tests, clsort against
#   CUB on the same inputs, the PoCL CPU benchmark, one comparison table and
#   a plot. Results go to $OUT (default ./gpu-out).
#
# usage: bench/gpu_run.sh [stage ...]   stages: setup build tune bench cub compare
#        test cpu peers cpuratio scaling startup small algos examples scan cputune
#        bitonic cpushapes cpuprofile ab abrev clocks ncu ptx smallsweep host hostcli
#        dists cpudists hostdists pack
#        (default: setup build bench cub compare test cpu peers); they run in
#        the order given
# environment: SIZES, CASES, CPU_SIZES, TEST_FILTER, SEED (default: the time);
#        for cpuratio: RATIO_PEER (a cpu_peers implementation, default ips4o),
#        RATIO_ROUNDS (default 5), RATIO_TUNING (a tuning spec for clsort);
#        for ab: AB_TUNINGS (space-separated specs, "tuned" for none),
#        AB_CASES, AB_SIZES, AB_ROUNDS, AB_DEVICE, AB_TIMEOUT ("opts:-DX=Y" in
#        AB_TUNINGS: CLSORT_BUILD_OPTIONS instead of a tuning, several joined
#        by "+", "opts:-DX=1+-DY=2", so no option may contain a "+";
#        "SPEC~-DX=1+-DY=2": a tuning spec and options together); for abrev also
#        AB_OLD_DIR (another revision's tree), or AB_TREES ("NAME=DIR ...":
#        several, each built into build-NAME and run as variant tree:NAME);
#        BUILD_PEERS=0 builds clsort alone (no CUB, no CPU peers)
# The device tool brings back at most 8 files: end with the pack stage,
# which leaves results.tar.gz (everything) and the few files most read.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
SIZES=${SIZES:-1M,8M,32M,256M}
CASES=${CASES:-u32,u32+4,u64,u64+4,u32:0:10,u32:0:16,u32:0:8,u32+4@0-1023,u32+4:0:10@0-1023}
CPU_SIZES=${CPU_SIZES:-1M,8M,32M}
# fresh random inputs each run, the same for clsort, CUB and the CPU peers
SEED=${SEED:-$(date +%s)}
TEST_FILTER=${TEST_FILTER:-.}
BUILD=build-gpu
export CLSORT_CACHE_DIR=${CLSORT_CACHE_DIR:-/tmp/clsort-cache}
# the device's kernels are measured, never the host tier of cold ones
export CLSORT_HOST_TIER=${CLSORT_HOST_TIER:-0}
stages=${*:-setup build bench cub compare test cpu peers}

log() { echo "=== $* ($(date +%T))"; }

# The build stage compiles CUB and the CPU peers in the background; a stage
# that runs them waits for those compiles, also when an earlier call of this
# script started them (their logs end with an exit line), for at most 5 min.
wait_builds() {
    wait
    local f t
    for f in "$OUT/nvcc.log" "$OUT/cpu_peers_build.log"; do
        for t in $(seq 1 300); do
            [ -e "$f" ] || break
            grep -q " exit " "$f" && break
            sleep 1
        done
    done
}

stage_setup() {
    log "setup (seed $SEED)"
    if [ -d .debs ]; then
        for f in .debs/*.deb; do dpkg -x "$f" /; done
        mkdir -p /etc/OpenCL/vendors
        [ -e /usr/lib/libnvidia-opencl.so.1 ] &&
            echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
        ldconfig
    fi
    clinfo -l 2>&1 | tee "$OUT/clinfo.txt"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu \
        --format=csv 2>&1 | tee "$OUT/nvidia-smi.txt"
    # the CPU as this boot gives it (the 16-core Xeon's speed has varied by boot)
    { lscpu; lscpu -e; cat /sys/kernel/mm/transparent_hugepage/enabled; uptime; } \
        > "$OUT/machine.txt" 2>&1
    grep -E "^(Model name|Thread|Core|Socket|L2|L3|NUMA node\(s\))" "$OUT/machine.txt"
}

stage_build() {
    log build
    { cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release -DCLSORT_BUILD_EXAMPLES=${BUILD_EXAMPLES:-ON} \
        -DCLSORT_TEST_LOCKS=OFF && cmake --build $BUILD -j"$(nproc)"; } \
        > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
    ./$BUILD/clsort info | tee "$OUT/info.txt"
    [ "${BUILD_PEERS:-1}" = 1 ] || return 0 # BUILD_PEERS=0: clsort alone
    if [ -e /usr/include/ips4o.hpp ] && [ -e /usr/include/hwy/contrib/sort/vqsort.h ]; then
        # the CPU anchors (ips4o, vqsort, std::sort, qsort), in the background
        (g++ -O3 -march=native -std=c++17 -Iinclude bench/cpu/cpu_peers.cpp \
            $BUILD/libclsort_bench.a $BUILD/libclsort.a -lOpenCL -fopenmp -lhwy_contrib -lhwy \
            -latomic -pthread -o $BUILD/cpu_peers > "$OUT/cpu_peers_build.log" 2>&1
         echo "g++ exit $?" >> "$OUT/cpu_peers_build.log") &
    fi
    if command -v nvcc > /dev/null; then
        # CUB, built beside clsort from the source in bench/cub (in the background)
        (nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude bench/cub/cub_sort.cu bench/data.c \
            $BUILD/libclsort.a -lOpenCL -o $BUILD/cub_sort > "$OUT/nvcc.log" 2>&1
         echo "nvcc exit $?" >> "$OUT/nvcc.log") &
    fi
}

stage_test() {
    log "tests on the GPU ($TEST_FILTER)"
    (cd $BUILD && CLSORT_TEST_DEVICE=gpu CLSORT_TEST_FULL=1 ctest -j8 -R "$TEST_FILTER" --timeout 400 \
        --output-on-failure > "$OUT/ctest-gpu.log" 2>&1)
    grep -E "tests passed|FAIL|Failed|Timeout|\*\*\*" "$OUT/ctest-gpu.log" | head -30
}

stage_bench() {
    log "clsort on the GPU"
    ./$BUILD/clsort bench --device gpu --cases "$CASES" --sizes "$SIZES" --no-qsort \
        --seed $SEED --min-reps 10 --copy --json "$OUT/clsort_gpu.json" 2>&1 | tee "$OUT/clsort_gpu.txt"
    log "headline (clsort bench on the default device)"
    ./$BUILD/clsort bench --json "$OUT/headline_gpu.json" 2>&1 | tee "$OUT/headline_gpu.txt"
}

stage_cub() {
    wait_builds
    log CUB
    tail -3 "$OUT/nvcc.log" 2>/dev/null
    if [ -x $BUILD/cub_sort ]; then
        ./$BUILD/cub_sort --cases "$CASES" --sizes "$SIZES" --seed $SEED --reps 20 > "$OUT/cub.jsonl" 2> "$OUT/cub.err"
        tail -3 "$OUT/cub.err"
    fi
}

stage_cputune() {
    log "tune on the CPU (PoCL, u32 keys, 32M)"
    ./$BUILD/clsort tune --device cpu --n 32M 2>&1 | tee "$OUT/tune_cpu.txt" | tail -8
}

stage_cpushapes() {
    wait_builds # the background compiles of stage_build would slow the first variant
    log "CPU shapes (PoCL): LSD and MSD order, digit widths (CPU_TUNINGS), and ips4o, same seed"
    for t in "" ${CPU_TUNINGS:-msd=0 msd=1,radix_bits=11 msd=1,large_bits=11,large_min=2097152 msd=1,os_items=131072}; do
        echo "--- tuning: ${t:-tuned}"
        ./$BUILD/clsort bench --device cpu --sizes "$CPU_SIZES" --min-reps 5 --no-qsort --profile \
            --seed $SEED ${t:+--tuning $t} 2>&1 | grep -v "^device"
    done 2>&1 | tee "$OUT/cpushapes.txt"
    wait_builds
    [ -x $BUILD/cpu_peers ] && ./$BUILD/cpu_peers --sizes "$CPU_SIZES" --cases u32,u32+4 --impls ips4o \
        --reps 5 --seed $SEED | tee "$OUT/cpushapes_ips4o.jsonl"
}

stage_cpu() {
    wait_builds
    log "clsort on the CPU (PoCL)"
    ./$BUILD/clsort bench --device cpu --sizes "$CPU_SIZES" --min-reps 5 --copy --profile --seed $SEED \
        --json "$OUT/clsort_cpu.json" 2>&1 | tee "$OUT/clsort_cpu.txt"
}

stage_peers() {
    wait_builds
    log "CPU anchors: ips4o, vqsort, std::sort, qsort ($CPU_SIZES)"
    tail -2 "$OUT/cpu_peers_build.log" 2>/dev/null
    [ -x $BUILD/cpu_peers ] || { echo "no cpu_peers (libips4o-dev, libhwy-dev missing)"; return; }
    ./$BUILD/cpu_peers --sizes "$CPU_SIZES" --cases u32,u32+4 --reps 5 --seed $SEED | tee "$OUT/cpu_peers.jsonl"
    [ -s "$OUT/clsort_cpu.json" ] && python3 bench/compare.py --cpu --clsort "$OUT/clsort_cpu.json" \
        --peers "$OUT/cpu_peers.jsonl" --md "$OUT/compare_cpu.md"
}

stage_host() {
    # host arrays in, sorted host arrays out, wall clock, the peers in the
    # same process on the same inputs: the GPU against cudaMemcpy (pageable)
    # + CUB + cudaMemcpy, the CPU against ips4o, vqsort and std::sort,
    # Python against np.sort and torch; HOST_SIZES, HOST_CASES, HOST_ROUNDS
    log "host arrays (GPU: ${HOST_SIZES:-32M,256M}; CPU: $CPU_SIZES)"
    if command -v nvcc > /dev/null; then
        nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude bench/cub/host_bench.cu bench/data.c \
            $BUILD/libclsort.a -lOpenCL -o $BUILD/host_bench > "$OUT/host_bench_build.log" 2>&1 &
    fi
    if [ -e /usr/include/ips4o.hpp ]; then
        g++ -O3 -march=native -std=c++17 -Iinclude bench/cpu/host_peers.cpp \
            $BUILD/libclsort_bench.a $BUILD/libclsort.a -lOpenCL -fopenmp -lhwy_contrib -lhwy \
            -latomic -pthread -o $BUILD/host_peers > "$OUT/host_peers_build.log" 2>&1 &
    fi
    wait
    if [ -x $BUILD/host_bench ]; then
        ./$BUILD/host_bench --cases ${HOST_CASES:-u32,u32+4,u64} --sizes ${HOST_SIZES:-32M,256M} \
            --rounds ${HOST_ROUNDS:-5} --seed $SEED --bandwidth 512M | tee "$OUT/host_gpu.jsonl"
    else
        tail -5 "$OUT/host_bench_build.log"
    fi
    log "host arrays larger than the device memory the context may use (1 GiB under 256M)"
    CLSORT_DEVICE_MEMORY=256M ./$BUILD/clsort bench --device gpu --host --keys-only \
        --sizes 256M --no-qsort --min-reps 3 --seed $SEED | tee "$OUT/host_cap.txt"
    if [ -x $BUILD/host_peers ]; then
        ./$BUILD/host_peers --sizes "$CPU_SIZES" --rounds ${HOST_ROUNDS:-5} --seed $SEED |
            tee "$OUT/host_cpu.jsonl"
    else
        tail -5 "$OUT/host_peers_build.log"
    fi
    log "the same CPU sorts on device buffers (device time)"
    ./$BUILD/clsort bench --device cpu --sizes "$CPU_SIZES" --no-qsort --min-reps 5 \
        --seed $SEED | tee "$OUT/host_cpu_buffers.txt"
    ./$BUILD/clsort bench --device cpu --host --sizes "$CPU_SIZES" --no-qsort --min-reps 5 \
        --seed $SEED | tee -a "$OUT/host_cpu_buffers.txt"
    log "A/B of the host routes (CLSORT_HOST_PATH, _CHUNK, _THREADS), order reversed every second round"
    local r v variants
    for d in gpu cpu; do
        if [ $d = gpu ]; then
            variants=${HOST_AB_GPU:-"copy staged staged:4M staged:16M staged:8M:8"}
        else
            variants=${HOST_AB_CPU:-"copy mapped"}
        fi
        for r in $(seq 1 ${HOST_AB_ROUNDS:-4}); do
            local order=$variants
            [ $((r % 2)) = 0 ] && order=$(echo $variants | tr ' ' '\n' | tac | tr '\n' ' ')
            for v in $order; do
                IFS=: read -r p c t <<< "$v"
                echo "$d $v round $r: $(CLSORT_HOST_PATH=$p CLSORT_HOST_CHUNK=${c:-} \
                    CLSORT_HOST_THREADS=${t:-} ./$BUILD/clsort bench --device $d --host \
                    --keys-only --sizes 32M --no-qsort --min-reps 5 --seed $SEED 2>&1 |
                    grep -E 'u32 keys|rror')"
            done
        done
    done | tee "$OUT/host_ab.txt"
    log "Python: clsort.sort against np.sort and torch (32M float32)"
    for d in gpu cpu; do
        CLSORT_LIBRARY=$PWD/$BUILD/libclsort.so PYTHONPATH=$PWD/python \
            python3 bench/python_bench.py --device $d --n 32M --rounds ${HOST_ROUNDS:-5} |
            tee -a "$OUT/host_python.jsonl"
    done
}

stage_hostcli() {
    # `clsort sort` of a raw u32 file (HOSTCLI_N keys, default 256M) on the
    # GPU: whole, with the device memory capped below the file (runs merged
    # in host memory), and in chunks of a quarter (runs on disk); wall clock
    # of the command, file in the page cache
    local n=${HOSTCLI_N:-256M} f=/tmp/clsort_cli_in.bin
    log "clsort sort of a $n-key u32 file"
    python3 -c "import numpy as np,sys; n=int(sys.argv[1]); np.random.default_rng(1).integers(0, 2**32, n, dtype=np.uint32).tofile(sys.argv[2])" \
        $(( $(echo $n | sed 's/M$/*1048576/;s/G$/*1073741824/') )) $f
    cat $f > /dev/null
    local bytes=$(stat -c %s $f) t0 t1 how
    for how in "whole" "cap" "chunks"; do
        t0=$(date +%s.%N)
        case $how in
            whole) ./$BUILD/clsort sort --device gpu --type u32 $f /tmp/clsort_cli_out.bin ;;
            cap) CLSORT_DEVICE_MEMORY=256M ./$BUILD/clsort sort --device gpu --type u32 $f /tmp/clsort_cli_out.bin ;;
            chunks) ./$BUILD/clsort sort --device gpu --type u32 --chunk-bytes $((bytes / 4)) $f /tmp/clsort_cli_out.bin ;;
        esac
        t1=$(date +%s.%N)
        python3 -c "import numpy as np; a=np.fromfile('/tmp/clsort_cli_out.bin', dtype=np.uint32); assert (a[1:] >= a[:-1]).all() and a.size == $bytes // 4" &&
            echo "clsort sort $how: $(python3 -c "print(round(($t1 - $t0) * 1e3, 1))") ms for $bytes bytes" |
            tee -a "$OUT/hostcli.txt"
    done
    rm -f $f /tmp/clsort_cli_out.bin
    log "Python on the CPU: where the time of clsort.sort goes (32M float32)"
    CLSORT_LIBRARY=$PWD/$BUILD/libclsort.so PYTHONPATH=$PWD/python python3 - <<'PY' | tee -a "$OUT/hostcli.txt"
import time, numpy as np, clsort
c = clsort.Context("cpu")
g = np.random.default_rng(1)
for name, a in (("normal", g.standard_normal(1 << 25).astype(np.float32)),
                ("uniform [0,1)", g.random(1 << 25, dtype=np.float32)),
                ("random bits", g.integers(0, 2**32, 1 << 25, dtype=np.uint32).view(np.float32))):
    c.sort(a)
    t = {}
    for k in range(5):
        for what, f in (("np.copy", lambda: a.copy()), ("clsort.sort", lambda: c.sort(a)),
                        ("sort_inplace of a copy", None), ("np.sort", lambda: np.sort(a))):
            if f is None:
                b = a.copy(); t0 = time.perf_counter(); c.sort_inplace(b)
            else:
                t0 = time.perf_counter(); f()
            t.setdefault(what, []).append((time.perf_counter() - t0) * 1e3)
    print(name, {k: round(sorted(v)[2], 1) for k, v in t.items()})
PY
}

stage_cpuratio() {
    # clsort (PoCL) and one CPU peer (RATIO_PEER, default ips4o on every
    # thread) alternating round by round on the same inputs (which runs
    # first alternating too): each round's
    # ratio and their median (bench/compare.py --rounds), on a host whose
    # speed drifts between minutes
    wait_builds
    [ -x $BUILD/cpu_peers ] || { echo "no cpu_peers (libips4o-dev, libhwy-dev missing)"; return; }
    local peer=${RATIO_PEER:-ips4o} pairs="" r
    log "CPU ratios: clsort and $peer alternating, ${RATIO_ROUNDS:-5} rounds ($CPU_SIZES)"
    ratio_clsort() {
        ./$BUILD/clsort bench --device cpu --cases u32,u32+4 --sizes "$CPU_SIZES" --no-qsort \
            --min-reps 5 --seed $SEED ${RATIO_TUNING:+--tuning "$RATIO_TUNING"} \
            --json "$OUT/ratio_clsort_$1.json" > "$OUT/ratio_clsort_$1.txt" 2>&1 ||
            { echo "round $1: clsort bench failed (ratio_clsort_$1.txt)"; return 1; }
    }
    ratio_peer() {
        { ./$BUILD/cpu_peers --sizes "$CPU_SIZES" --cases u32,u32+4 --impls "$peer" --reps 5 \
            --seed $SEED > "$OUT/ratio_peer_$1.jsonl" && [ -s "$OUT/ratio_peer_$1.jsonl" ]; } ||
            { echo "round $1: cpu_peers failed"; return 1; }
    }
    for r in $(seq 1 "${RATIO_ROUNDS:-5}"); do
        # clsort first in odd rounds, the peer first in even ones (a drift
        # within a round favours neither); a round counts only where both
        # programs succeeded
        if [ $((r % 2)) = 1 ]; then
            ratio_clsort $r && ratio_peer $r || continue
        else
            ratio_peer $r && ratio_clsort $r || continue
        fi
        pairs="$pairs $OUT/ratio_clsort_$r.json:$OUT/ratio_peer_$r.jsonl"
    done
    [ -n "$pairs" ] && python3 bench/compare.py --rounds $pairs --md "$OUT/cpuratio.md"
}

stage_scaling() {
    wait_builds
    log "scaling on the CPU: threads 1..$(nproc), u32 32M, with the copy bandwidth"
    : > "$OUT/scaling.jsonl"
    for t in 1 2 4 8 16; do
        [ $t -le "$(nproc)" ] || continue
        POCL_CPU_MAX_CU_COUNT=$t POCL_MAX_PTHREAD_COUNT=$t ./$BUILD/clsort bench --device cpu \
            --sizes 32M --keys-only --no-qsort --min-reps 3 --copy --json "$OUT/scaling_$t.json" \
            > "$OUT/scaling_$t.txt" 2>&1
        gbs=$(sed -n 's/^copy bandwidth: \([0-9.]*\).*/\1/p' "$OUT/scaling_$t.txt" | head -1)
        ms=$(python3 -c "import json;r=json.load(open('$OUT/scaling_$t.json'));print(r[0]['ms'])" 2>/dev/null)
        ips=""
        [ -x $BUILD/cpu_peers ] && ips=$(./$BUILD/cpu_peers --sizes 32M --cases u32 --impls ips4o \
            --threads $t --reps 3 | sed -n 's/.*"ms": \([0-9.]*\).*/\1/p')
        echo "{\"threads\": $t, \"clsort_ms\": ${ms:-null}, \"copy_gbs\": ${gbs:-null}, \"ips4o_ms\": ${ips:-null}}" |
            tee -a "$OUT/scaling.jsonl"
    done
}

stage_cpuprofile() {
    # per-kernel times of the CPU shape on 1 and all threads, beside the
    # machine's copy bandwidth and the single-thread peers with as many
    # threads: where a thread of clsort loses against a thread of vqsort
    wait_builds
    log "CPU profile: clsort kernels on 1 and $(nproc) threads, memcpy and peers"
    for t in 1 "$(nproc)"; do
        echo "--- $t threads"
        POCL_CPU_MAX_CU_COUNT=$t POCL_MAX_PTHREAD_COUNT=$t ./$BUILD/clsort bench --device cpu \
            --sizes ${CPU_PROFILE_SIZES:-8M,32M} --keys-only --no-qsort --min-reps 3 --profile --seed $SEED 2>&1 |
            grep -v "^device"
        [ -x $BUILD/cpu_peers ] && ./$BUILD/cpu_peers --sizes ${CPU_PROFILE_SIZES:-8M,32M} --cases u32 \
            --impls memcpy,vqsort,ips4o_seq,ips4o --threads $t --reps 3 --seed $SEED
    done 2>&1 | tee "$OUT/cpuprofile.txt"
}

stage_startup() {
    log "start-up: first run (empty caches: clsort's, PoCL's and CUDA's) and cached, on each device"
    for d in gpu cpu; do
        dir=$(mktemp -d)
        for run in first cached; do
            s=$(date +%s.%N)
            CLSORT_CACHE_DIR=$dir/clsort POCL_CACHE_DIR=$dir/pocl CUDA_CACHE_PATH=$dir/cuda \
                ./$BUILD/clsort bench --device $d --sizes 1K --keys-only --no-qsort --min-reps 1 \
                > /dev/null 2>&1
            e=$(date +%s.%N)
            echo "$d $run: $(python3 -c "print(f'{$e - $s:.2f}')") s (clsort bench --sizes 1K, whole process)" |
                tee -a "$OUT/startup.txt"
        done
        rm -rf "$dir"
    done
}

stage_scan() {
    log "scans (u32, u64, f32) on the GPU and the CPU, against the copy bandwidth"
    ./$BUILD/clsort bench --device gpu --scan --sizes ${SCAN_SIZES:-1M,16M,64M,256M} --copy \
        --json "$OUT/scan_gpu.json" 2>&1 | tee "$OUT/scan_gpu.txt"
    ./$BUILD/clsort bench --device cpu --scan --sizes 1M,16M,64M --copy \
        --json "$OUT/scan_cpu.json" 2>&1 | tee "$OUT/scan_cpu.txt"
    wait_builds
    # CUB's DeviceScan::ExclusiveSum on the same sizes
    [ -x $BUILD/cub_sort ] && ./$BUILD/cub_sort --reps 20 --scan ${SCAN_SIZES:-1M,16M,64M,256M} |
        tee "$OUT/cub_scan.jsonl"
}

stage_examples() {
    log "examples: particle-in-cell (Table 7) and spgemm"
    [ -x $BUILD/examples/pic ] || return
    ./$BUILD/examples/pic --device gpu --steps 5 2>&1 | tee "$OUT/pic_gpu.txt"
    ./$BUILD/examples/pic --device cpu --steps 3 2>&1 | tee "$OUT/pic_cpu.txt"
    ./$BUILD/examples/spgemm --device gpu --op both --reps 5 ${SPGEMM_GEN:---gen poisson2d:1000 \
        --gen poisson3d:100 --gen powerlaw:1000000:8} 2>&1 | tee "$OUT/spgemm_gpu.txt"
}

# The distribution suite (issue 33): clsort and CUB on the GPU, then
# clsort on PoCL and the CPU peers, on the same inputs (same seed), each
# with its comparison table. DIST_CASES, DIST_SIZES, CPU_DIST_SIZES.
DIST_U32="uniform zipf-1k zipf-1m few-2 few-unique few-1024 all-equal sorted reversed sorted-swaps sorted-runs and-2 and-4"
dist_cases() {
    local c="" d
    for d in $DIST_U32; do c+="u32@$d,"; done
    for d in normal exponential uniform sorted reversed; do c+="f32@$d,"; done
    for d in uniform low-20 sorted reversed zipf-1m few-1024; do c+="u64@$d,"; done
    for d in uniform sorted reversed zipf-1k zipf-1m few-unique few-1024; do c+="u32+4@$d,"; done
    echo "${c%,}"
}
stage_dists() {
    wait_builds
    local cases=${DIST_CASES:-$(dist_cases)} sizes=${DIST_SIZES:-1M,32M}
    local large=${DIST_LARGE_CASES:-u32@uniform,u32@sorted,u32@reversed,u32@few-unique,u32@zipf-1m,u32@sorted-swaps,f32@normal,u64@sorted,u32+4@reversed}
    rm -f "$OUT/dists_cub.jsonl"
    for part in "$cases $sizes" "$large ${DIST_LARGE_SIZES:-256M}"; do
        set -- $part
        log "distributions on the GPU ($2): clsort, then CUB"
        ./$BUILD/clsort bench --device gpu --cases "$1" --sizes "$2" --no-qsort --seed $SEED \
            --min-reps 10 --json "$OUT/dists_gpu_$2.json" >> "$OUT/dists_gpu.txt" 2>&1
        [ -x $BUILD/cub_sort ] && ./$BUILD/cub_sort --cases "$1" --sizes "$2" --seed $SEED \
            --reps 10 >> "$OUT/dists_cub.jsonl" 2>> "$OUT/dists_cub.err"
    done
    tail -3 "$OUT/dists_cub.err"
    python3 bench/compare.py --clsort "$OUT"/dists_gpu_$sizes.json --cub "$OUT/dists_cub.jsonl" \
        --md "$OUT/compare_dists.md" > /dev/null
    python3 bench/compare.py --clsort "$OUT"/dists_gpu_${DIST_LARGE_SIZES:-256M}.json \
        --cub "$OUT/dists_cub.jsonl" --md "$OUT/compare_dists_large.md" > /dev/null
    cat "$OUT/compare_dists.md" "$OUT/compare_dists_large.md"
}
stage_cpudists() {
    wait_builds
    local cases=${DIST_CASES:-$(dist_cases)}
    log "distributions on the CPU: clsort on PoCL (${CPU_DIST_SIZES:-8M,32M})"
    ./$BUILD/clsort bench --device cpu --cases "$cases" --sizes "${CPU_DIST_SIZES:-8M,32M}" \
        --no-qsort --seed $SEED --min-reps 5 --json "$OUT/dists_cpu.json" > "$OUT/dists_cpu.txt" 2>&1
    tail -3 "$OUT/dists_cpu.txt"
    log "distributions on the CPU: ips4o, vqsort"
    [ -x $BUILD/cpu_peers ] && ./$BUILD/cpu_peers --sizes "${CPU_DIST_SIZES:-8M,32M}" --cases "$cases" \
        --impls ips4o,vqsort --reps 5 --seed $SEED > "$OUT/dists_cpu_peers.jsonl"
    python3 bench/compare.py --cpu --clsort "$OUT/dists_cpu.json" \
        --peers "$OUT/dists_cpu_peers.jsonl" --md "$OUT/compare_cpu_dists.md" > /dev/null
    cat "$OUT/compare_cpu_dists.md"
}

stage_hostdists() {
    # the CPU's host-array sorts (what clsort.sort and clsort_sort_keys
    # give) over the distributions, each tuning of HDIST_TUNINGS in turn
    # and reversed every second round (HDIST_ROUNDS), then ips4o and vqsort
    # on the same inputs
    wait_builds
    local cases=${HDIST_CASES:-u32@uniform,u32@few-2,u32@few-unique,u32@few-1024,u32@zipf-1k,u32@zipf-1m,u32@and-4,u32@sorted-swaps,u32@sorted-runs,f32@normal,f32@exponential,f32@uniform,u64@zipf-1m,u64@few-1024,u32+4@zipf-1m,u32+4@few-unique}
    local sizes=${CPU_DIST_SIZES:-8M,32M} tunings=${HDIST_TUNINGS:-tuned} order r t
    log "host arrays on the CPU over the distributions ($sizes): $tunings"
    for r in $(seq 1 "${HDIST_ROUNDS:-3}"); do
        order=$tunings
        [ $((r % 2)) = 0 ] && order=$(printf '%s\n' $tunings | tac | tr '\n' ' ')
        for t in $order; do
            echo "--- round $r: $t" | tee -a "$OUT/hostdists.txt"
            ./$BUILD/clsort bench --device cpu --host --cases "$cases" --sizes "$sizes" \
                --no-qsort --seed $SEED --min-reps 3 $([ "$t" = tuned ] || echo --tuning "$t") \
                2>&1 | grep -v '^device\|^case' >> "$OUT/hostdists.txt"
        done
    done
    log "the same inputs: ips4o, vqsort"
    [ -x $BUILD/cpu_peers ] && ./$BUILD/cpu_peers --sizes "$sizes" --cases "$cases" \
        --impls ips4o,vqsort --reps 5 --seed $SEED > "$OUT/hostdists_peers.jsonl"
    python3 bench/hostdists.py "$OUT/hostdists.txt" "$OUT/hostdists_peers.jsonl" \
        | tee "$OUT/hostdists.md"
}

stage_compare() {
    log compare
    gbs=$(sed -n 's/^copy bandwidth: \([0-9.]*\).*/\1/p' "$OUT/clsort_gpu.txt" 2>/dev/null | head -1)
    python3 bench/compare.py --clsort "$OUT/clsort_gpu.json" \
        $( [ -s "$OUT/cub.jsonl" ] && echo --cub "$OUT/cub.jsonl" ) \
        --copy-gbs "${gbs:-0}" --md "$OUT/compare.md" --png "$OUT/gpu.png" \
        --title "clsort (OpenCL) vs CUB, $(head -2 "$OUT/nvidia-smi.txt" | tail -1 | cut -d, -f1)"
}

# The A/B rounds of stage_ab and stage_abrev: each variant in turn (in
# reverse order every second round), round by round, one process each, on the same inputs, with the per-kernel profile;
# line-buffered so that a timeout keeps what was printed. A variant is
# "old" (build-old's clsort), "tuned" (this build as it is), "opts:-DX=Y"
# (this build with CLSORT_BUILD_OPTIONS instead of the environment's) or a
# tuning spec.
ab_rounds() {
    wait_builds # the background compiles of stage_build would slow the first rounds
    local order
    for r in $(seq 1 "${AB_ROUNDS:-2}"); do
        # the variants in turn, in reverse order every second round, so
        # that a drift within a round does not favour one of them
        order="$*"
        [ $((r % 2)) = 0 ] && order=$(printf '%s\n' "$@" | tac | tr '\n' ' ')
        for t in $order; do
            echo "--- round $r: $t"
            local bin=./$BUILD/clsort opts=${CLSORT_BUILD_OPTIONS:-} spec=""
            case $t in
                old) bin=./build-old/clsort ;;
                tree:*) bin=./build-${t#tree:}/clsort ;;
                tuned) ;;
                opts:*) opts=${t#opts:}; opts=${opts//+/ } ;; # + between options
                *~*) spec=${t%%~*}; opts=${t#*~}; opts=${opts//+/ } ;; # a spec~options
                *) spec=$t ;;
            esac
            CLSORT_BUILD_OPTIONS=$opts timeout "${AB_TIMEOUT:-120}" stdbuf -oL $bin bench \
                --device "${AB_DEVICE:-gpu}" --cases "${AB_CASES:-u32}" --sizes "${AB_SIZES:-32M,256M}" \
                --no-qsort --min-reps 10 --seed $SEED --profile ${spec:+--tuning $spec} 2>&1 |
                grep -v "^device" || echo "(exit ${PIPESTATUS[0]})"
        done
    done 2>&1 | tee -a "$OUT/ab.txt"
}

stage_ab() {
    # tunings (AB_TUNINGS) alternating round by round
    log "A/B: ${AB_TUNINGS:-tuned} on ${AB_CASES:-u32} ${AB_SIZES:-32M,256M}, ${AB_ROUNDS:-2} rounds"
    ab_rounds ${AB_TUNINGS:-tuned}
}

# Builds the clsort of source tree $2 into $1 (once), its log in $OUT.
build_tree() {
    [ -x "$1/clsort" ] && return 0
    { cmake -S "$2" -B "$1" -DCMAKE_BUILD_TYPE=Release -DCLSORT_BUILD_EXAMPLES=OFF \
        -DCLSORT_BUILD_TESTS=OFF && cmake --build "$1" -j"$(nproc)" --target clsort; } \
        > "$OUT/$1.log" 2>&1 || { tail -20 "$OUT/$1.log"; return 1; }
}

stage_abrev() {
    # other revisions' whole trees (made by 'git archive REV | tar -x -C
    # DIR': the device gets no .git): AB_OLD_DIR built into build-old and
    # run as variant "old", or each NAME=DIR of AB_TREES into build-NAME
    # as variant "tree:NAME"; then they and this tree's variants alternate
    # round by round (AB_TUNINGS apply to this tree's build)
    local variants="" tree
    if [ -n "${AB_TREES:-}" ]; then
        for tree in $AB_TREES; do
            build_tree "build-${tree%%=*}" "${tree#*=}" || return
            variants="$variants tree:${tree%%=*}"
        done
    else
        build_tree build-old "${AB_OLD_DIR:?AB_OLD_DIR or AB_TREES: a source tree to compare with}" ||
            return
        variants=old
    fi
    log "A/B against$variants: ${AB_CASES:-u32} ${AB_SIZES:-32M,256M}, ${AB_ROUNDS:-2} rounds"
    ab_rounds $variants ${AB_TUNINGS:-tuned}
}

stage_pack() {
    # everything into results.tar.gz, and beside it the files most read
    log pack
    local tmp
    tmp=$(mktemp -d)
    tar -czf "$tmp/results.tar.gz" -C "$OUT" .
    for f in ${PACK_FILES:-compare.md clsort_gpu.json cub.jsonl ab.txt ctest-gpu.log compare_cpu.md cpuratio.md}; do
        [ -e "$OUT/$f" ] && cp "$OUT/$f" "$tmp/"
    done
    find "$OUT" -mindepth 1 -delete
    mv "$tmp"/* "$OUT/"
    rmdir "$tmp"
    ls "$OUT"
}

stage_tune() {
    for tc in ${TUNE_CASES:-u32}; do
        log "tune ($tc, 32M)"
        ./$BUILD/clsort tune --device gpu --case $tc --n 32M \
            ${TUNE_CANDIDATES:+--candidates "$TUNE_CANDIDATES"} \
            2>&1 | tee -a "$OUT/tune_gpu.txt" | tail -8
    done
    log "register report of the tuned kernels"
    CLSORT_CACHE_DIR= CLSORT_BUILD_OPTIONS=-cl-nv-verbose ./$BUILD/clsort bench --device gpu \
        --cases u32,u32+4,u64 --sizes 256M --no-qsort --min-reps 3 --profile --build-log \
        > "$OUT/buildlog_gpu.txt" 2>&1
    grep -E "registers|spill|stack|case|onesweep|upfront|plan|finish|fill|^u" "$OUT/buildlog_gpu.txt" | head -60
}

stage_small() {
    log "small sorts: one bitonic work-group (auto) against the radix sort, and CUB"
    for t in "" "small_max=0" "small_max=0,prologue_max=0" ${SMALL_TUNINGS:-}; do
        echo "--- tuning: ${t:-tuned}"
        ./$BUILD/clsort bench --device gpu --cases u32 --sizes ${SMALL_SIZES:-1K,4K,8K,16K,32K,64K,256K} --no-qsort \
            --min-reps 20 ${t:+--tuning $t} 2>&1 | tee -a "$OUT/small_gpu.txt" | grep -v "^device"
    done
    wait_builds
    [ -x $BUILD/cub_sort ] && ./$BUILD/cub_sort --cases u32 --sizes ${SMALL_SIZES:-1K,4K,8K,16K,32K,64K,256K} \
        --reps 50 | tee "$OUT/cub_small.jsonl" | sed 's/.*"n": \([0-9]*\), "ms": \([0-9.]*\).*/CUB \1 \2 ms/'
}

stage_smallsweep() {
    log "small sorts under bitonic tunings (SMALL_TUNINGS), then CUB on the same sizes"
    for t in tuned ${SMALL_TUNINGS:-}; do
        echo "--- tuning: $t"
        [ "$t" = tuned ] && t=""
        ./$BUILD/clsort bench --device gpu --cases ${SMALL_CASES:-u32} --sizes ${SMALL_SIZES:-1K,2K,4K} \
            --no-qsort --min-reps 20 ${t:+--tuning $t} 2>&1 | grep -v "^device\|^case"
    done 2>&1 | tee -a "$OUT/smallsweep.txt"
    wait_builds
    [ -x $BUILD/cub_sort ] && ./$BUILD/cub_sort --cases ${SMALL_CASES:-u32} --sizes ${SMALL_SIZES:-1K,2K,4K} \
        --reps 50 | tee -a "$OUT/smallsweep.txt" | sed 's/.*"case": "\([^"]*\)".*"n": \([0-9]*\), "ms": \([0-9.]*\).*/CUB \1 \2 \3 ms/'
}

stage_algos() {
    log "algorithms (Bainville) and batches (Zucchi)"
    ./$BUILD/clsort bench --device gpu --algorithms --batch 200,8192 --json "$OUT/algos_gpu.json" \
        2>&1 | tee "$OUT/algos_gpu.txt"
    ./$BUILD/clsort bench --device gpu --algorithms --no-table --batch 20000,8192 2>&1 |
        tee -a "$OUT/algos_gpu.txt"
    [ -x $BUILD/cub_sort ] && ./$BUILD/cub_sort --batch 200,8192 --batch 20000,8192 --reps 20 |
        tee "$OUT/cub_batch.jsonl"
}

stage_bitonic() {
    log "bitonic work-group network: tunings (BT_TUNINGS) on batches and small sorts, and CUB"
    for t in "" ${BT_TUNINGS:-bt_regs=0 bt_regs=8 bt_regs=16 bt_regs=32 bt_wg=256,bt_regs=16 bt_wg=256,bt_regs=32}; do
        echo "--- tuning: ${t:-tuned}"
        for b in 200,8192 20000,8192; do
            ./$BUILD/clsort bench --device gpu --algorithms --no-table --batch $b ${t:+--tuning $t} 2>&1 |
                grep -E "^batch|^bitonic\+local"
        done
        ./$BUILD/clsort bench --device gpu --cases u32,u32+4,u64 --sizes 1K,2K,4K --no-qsort --min-reps 20 \
            ${t:+--tuning $t} 2>&1 | grep -v "^device"
    done 2>&1 | tee "$OUT/bitonic_gpu.txt"
    wait_builds
    if [ -x $BUILD/cub_sort ]; then
        ./$BUILD/cub_sort --batch 200,8192 --batch 20000,8192 --reps 20 | tee "$OUT/cub_bitonic_batch.jsonl"
        ./$BUILD/cub_sort --cases u32,u32+4,u64 --sizes 1K,2K,4K --reps 50 | tee "$OUT/cub_bitonic_small.jsonl" |
            sed 's/.*"case": "\([^"]*\)".*"n": \([0-9]*\), "ms": \([0-9.]*\).*/CUB \1 \2 \3 ms/'
    fi
}

stage_clocks() {
    log "the SM clock around small sorts (clock probe), nvidia-smi sampling beside the small bench"
    CLSORT_LATENCY_CLOCKS_ONLY=1 ./$BUILD/clsort_latency gpu 2>&1 | tee "$OUT/clocks.txt"
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,utilization.gpu --format=csv,noheader \
        -lms 20 > "$OUT/smi_small.csv" 2>&1 &
    local smi=$!
    ./$BUILD/clsort bench --device gpu --cases u32 --sizes 1K,4K --no-qsort --min-reps 4000 2>&1 |
        grep -v "^device" | tee -a "$OUT/clocks.txt"
    kill $smi 2> /dev/null
    echo "nvidia-smi while the small bench ran (sm MHz: samples)" | tee -a "$OUT/clocks.txt"
    awk -F', ' '{print $2}' "$OUT/smi_small.csv" | sort | uniq -c | sort -rn | head -8 | tee -a "$OUT/clocks.txt"
}

# Nsight Compute on CUB's sort and on clsort's (NVIDIA's OpenCL runs on the
# CUDA driver: whether ncu sees its kernels is what this finds out): each
# kernel's duration, registers, achieved occupancy and DRAM bytes, no clock
# or cache control (the kernels as they run in a sort). NCU_SIZES, NCU_CASES.
stage_ncu() {
    wait_builds
    local m=gpu__time_duration.sum,launch__registers_per_thread,launch__block_size,launch__grid_size
    m=$m,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum
    m=$m,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem
    for c in ${NCU_CASES:-u32}; do
        log "ncu: CUB $c ${NCU_SIZES:-256M}"
        timeout 300 ncu --clock-control none --cache-control none --metrics $m --csv \
            ./$BUILD/cub_sort --cases $c --sizes ${NCU_SIZES:-256M} --reps 1 > "$OUT/ncu_cub_$c.csv" 2> "$OUT/ncu_cub_$c.err"
        tail -2 "$OUT/ncu_cub_$c.err"
        log "ncu: clsort $c ${NCU_SIZES:-256M}"
        timeout 300 ncu --clock-control none --cache-control none --metrics $m --csv --launch-count 60 \
            ./$BUILD/clsort bench --device gpu --cases $c --sizes ${NCU_SIZES:-256M} --no-qsort --min-reps 1 \
            > "$OUT/ncu_clsort_$c.csv" 2> "$OUT/ncu_clsort_$c.err"
        tail -2 "$OUT/ncu_clsort_$c.err"
    done
    python3 bench/ncu_table.py "$OUT"/ncu_*.csv | tee "$OUT/ncu.txt"
}

# The PTX in clsort's program cache, through ptxas: registers, spills and
# shared memory of every kernel the runs before built.
stage_ptx() {
    log "ptxas on the cached programs"
    python3 bench/cache_ptx.py "$CLSORT_CACHE_DIR" /tmp/ptx
    for f in /tmp/ptx/*.ptx; do
        echo "--- $(tr -c '[:print:]' ' ' < "${f%.ptx}.key" | grep -o 'D[A-Z_0-9]*=[^ ]*' | tr '\n' ' ' | cut -c1-400)"
        ptxas -arch=sm_90 -v "$f" -o /tmp/ptx/x.cubin 2>&1 | grep -E "Compiling entry|Used|spill" |
            sed "s/ptxas info    : //"
    done > "$OUT/ptxas.txt" 2>&1
    grep -B1 -A2 "bitonic_segments\|radix_onesweep'\|radix_upfront'" "$OUT/ptxas.txt" | head -40
    tar -czf "$OUT/ptx.tar.gz" -C /tmp ptx
}

for st in $stages; do
    if declare -f "stage_$st" > /dev/null; then "stage_$st"; else echo "unknown stage $st"; fi
done
log done
