#!/usr/bin/env bash
# package_test.sh PYTHON SOURCE_DIR WORK_DIR - installs the clsort package
# from the checkout into a fresh virtual environment, offline (pip with
# Debian's setuptools and wheel, no index), and runs the Python tests there,
# from outside the checkout, so that they import the installed package and
# the libclsort inside it. Exits 77 (skipped) when the interpreter has no
# NumPy or no venv module.
set -eu
py=$1 src=$2 work=$3
"$py" -c "import numpy, venv, ensurepip" 2> /dev/null || { echo "no numpy or venv: skipped"; exit 77; }
rm -rf "$work"
mkdir -p "$work/src"
# a copy of the checkout without its build folders: pip builds in the tree
tar -C "$src" --exclude='./build*' --exclude='./.git' --exclude='./.debs' -cf - . |
    tar -C "$work/src" -xf -
"$py" -m venv --system-site-packages "$work/env"
# --no-deps: NumPy is the interpreter's (checked above), wherever it lives
"$work/env/bin/python" -m pip install --quiet --no-build-isolation --no-index --no-deps "$work/src" \
    > "$work/pip.log" 2>&1 || { cat "$work/pip.log"; exit 1; }
unset CLSORT_LIBRARY PYTHONPATH
"$work/env/bin/python" -c "import numpy" 2> /dev/null ||
    { echo "this interpreter's NumPy is not visible in a virtual environment: skipped"; exit 77; }
cd "$work"
"$work/env/bin/python" -c "import clsort, os; assert os.path.dirname(clsort.__file__).startswith('$work'), clsort.__file__"
exec "$work/env/bin/python" "$src/tests/python/test_clsort.py"
