#!/usr/bin/env bash
# persist_ab.sh - registers (ptxas, -cl-nv-verbose) and timings of the onesweep
# kernel with persistent work-groups (tuning os_persist) on the GPU, variants
# alternating over two rounds. VARIANTS: space-separated "P|OPTS" (os_persist
# P, CLSORT_BUILD_OPTIONS OPTS without spaces); SEED: the inputs.
VARIANTS=${VARIANTS:-"0| 3|"}
B=./build-gpu/clsort
for v in $VARIANTS; do
  p=${v%%|*}; o=${v#*|}
  echo "== regs os_persist=$p opts=$o"
  CLSORT_BUILD_OPTIONS="$o -cl-nv-verbose" $B bench --device gpu --cases u32,u32+4,u64 --sizes 1M --min-reps 1 --no-qsort --build-log --tuning os_persist=$p 2>&1 | grep -A4 "entry function 'clsort_radix_onesweep'" | grep -E 'Used|spill' | head -6
done
for r in 1 2; do
for v in $VARIANTS; do
  p=${v%%|*}; o=${v#*|}
  echo "--- round $r os_persist=$p opts=$o"
  CLSORT_BUILD_OPTIONS="$o" $B bench --device gpu --cases u32,u32+4,u64 --sizes 32M,256M --min-reps 10 --no-qsort --seed $SEED --tuning os_persist=$p --profile 2>&1 | grep -v "^device"
done
done
