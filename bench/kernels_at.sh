#!/usr/bin/env bash
# kernels_at.sh - the kernel sources of a git revision in a folder, for
# clsort_trace and gpu_run.sh's trace stage (TRACE_DIRS="src/kernels DIR"):
# the device machine gets the working tree without .git, so another
# revision's kernels travel as an untracked folder (remember to remove it).
# usage: bench/kernels_at.sh REV DIR
set -eu
[ $# -eq 2 ] || { echo "usage: $0 REV DIR" >&2; exit 2; }
cd "$(dirname "$0")/.."
mkdir -p "$2"
for f in $(git ls-tree --name-only "$1" src/kernels/); do
    git show "$1:$f" > "$2/$(basename "$f")"
done
ls "$2"
