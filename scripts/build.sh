#!/usr/bin/env bash
# build.sh - configures and builds clsort (library, `clsort` command, tests,
# examples) into build/ (or $BUILD_DIR), Release.
set -eu
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
mkdir -p "$BUILD_DIR"
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release "$@" > "$BUILD_DIR/configure.log" 2>&1 ||
    { cat "$BUILD_DIR/configure.log"; exit 1; }
cmake --build "$BUILD_DIR" -j"$(nproc)"
