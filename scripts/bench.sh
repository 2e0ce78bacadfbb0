#!/usr/bin/env bash
# bench.sh - the main job: installs what is missing, builds, and runs the
# headline benchmark `clsort bench` on the default device (the first GPU,
# else the CPU through PoCL). Arguments go to `clsort bench`, for example
#   scripts/bench.sh --device cpu --sizes 1M,8M --json out.json
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
exec "${BUILD_DIR:-build}/clsort" bench "$@"
