#!/usr/bin/env bash
# test.sh - installs what is missing, builds, and runs every test with ctest
# (on PoCL when there is no GPU; CLSORT_TEST_DEVICE picks another device).
# The spgemm example's tests read the real matrices that the Debian packages
# r-cran-matrix and libsuperlu-dist-dev ship; when those are not installed,
# their .deb files are fetched and unpacked into build/matrices (data only,
# nothing is installed). Arguments go to ctest, for example -R radix.
# CLSORT_TEST_COLD=1 empties the tests' caches first (as CI does).
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh
BUILD_DIR=${BUILD_DIR:-build}
mkdir -p "$BUILD_DIR"
extra=()
rdir=/usr/lib/R/library/Matrix/external
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
sdir=/usr/lib/$arch/superlu-dist/tests/EXAMPLE
if [ ! -e $rdir/lund_a.mtx ] || [ ! -e $sdir/big.rua ]; then
    case "$BUILD_DIR" in
        /*) m="$BUILD_DIR/matrices" ;;
        *) m="$PWD/$BUILD_DIR/matrices" ;;
    esac
    if [ ! -e "$m/usr/lib/R/library/Matrix/external/lund_a.mtx" ] ||
       [ ! -e "$m$sdir/big.rua" ]; then
        mkdir -p "$m/debs"
        (cd "$m/debs" && apt-get download r-cran-matrix libsuperlu-dist-dev > /dev/null 2>&1 ||
             { sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo; $sudo apt-get update -qq &&
               apt-get download r-cran-matrix libsuperlu-dist-dev > /dev/null 2>&1; } ||
             echo "test.sh: could not fetch r-cran-matrix and libsuperlu-dist-dev: their tests will be skipped")
        for f in "$m"/debs/*.deb; do [ -e "$f" ] && dpkg -x "$f" "$m"; done
    fi
    [ -e $rdir/lund_a.mtx ] || extra+=("-DSPGEMM_RMATRIX_DIR=$m/usr/lib/R/library/Matrix/external")
    [ -e $sdir/big.rua ] || extra+=("-DSPGEMM_SUPERLU_DIR=$m$sdir")
fi
scripts/build.sh "${extra[@]}"
cd "$BUILD_DIR"
# (cold: also without the test times of an earlier run, by which ctest
# would order the tests: a fresh clone has none)
[ "${CLSORT_TEST_COLD:-0}" = 1 ] && rm -rf test-cache Testing/Temporary/CTestCostData.txt
# As a new user: the tests keep clsort's and PoCL's caches in
# $BUILD_DIR/test-cache (a fresh clone starts cold, a second run is warm),
# and HOME and XDG_CACHE_HOME point to an empty temporary folder, so the
# caller's caches neither help nor change.
home=$(mktemp -d "${TMPDIR:-/tmp}/clsort-test-home.XXXXXX")
trap 'rm -rf "$home"' EXIT
HOME=$home XDG_CACHE_HOME=$home/.cache ctest -j"$(nproc)" --output-on-failure "$@"
