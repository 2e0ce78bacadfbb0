#!/usr/bin/env bash
# firstrun.sh - first-run and cached times of whole clsort processes on the
# CPU (PoCL), for builds given as arguments (default: build-gpu), which take
# turns, two rounds: a Zucchi batch (bitonic work-groups), a 1K sort and a
# 1M scan, each first with empty caches (clsort's and PoCL's, in a new
# folder) and then again with them filled.
# usage: bench/firstrun.sh [BUILD_DIR ...]   (e.g. build-old build-gpu)
builds=("${@:-build-gpu}")
now() { python3 -c "import time; print(time.time())"; }
for r in 1 2; do
    for b in "${builds[@]}"; do
        for job in "--algorithms --no-table --batch 200,8192" "--sizes 1K --keys-only --no-qsort" \
            "--scan --sizes 1M"; do
            d=$(mktemp -d)
            for run in first cached; do
                s=$(now)
                # shellcheck disable=SC2086
                CLSORT_CACHE_DIR=$d/clsort POCL_CACHE_DIR=$d/pocl ./$b/clsort bench --device cpu $job \
                    --min-reps 1 > /dev/null 2>&1
                rc=$?
                e=$(now)
                echo "round $r $b [$job] $run: $(python3 -c "print(f'{$e - $s:.2f}')") s (exit $rc)"
            done
            rm -rf "$d"
        done
    done
done
