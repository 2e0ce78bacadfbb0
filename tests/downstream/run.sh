#!/usr/bin/env bash
# run.sh BUILD_DIR SOURCE_DIR WORK_DIR - installs the build into a prefix
# and builds a downstream program against it both ways: CMake's
# find_package(clsort) (shared and static targets) and pkg-config; runs
# each. Exits 77 (skipped) when the test device has no OpenCL platform.
set -eu
build=$1 src=$2 work=$3
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work.install.log" 2>&1 ||
    { cat "$work.install.log"; exit 1; }
cmake -S "$src/tests/downstream" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$work/prefix" \
    > "$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/cmake" > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
libdir=$(dirname "$(find "$work/prefix" -name clsort.pc)")
PKG_CONFIG_PATH=$libdir cc -std=c11 "$src/tests/downstream/main.c" \
    $(PKG_CONFIG_PATH=$libdir pkg-config --cflags --libs clsort) -o "$work/downstream_pkgconfig"
rc=0
for p in "$work/cmake/downstream_shared" "$work/cmake/downstream_static" "$work/downstream_pkgconfig"; do
    LD_LIBRARY_PATH=$(dirname "$libdir") "$p" || rc=$?
    [ $rc = 0 ] || break
done
exit $rc
