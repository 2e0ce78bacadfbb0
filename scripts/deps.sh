#!/usr/bin/env bash
# deps.sh - installs the Debian packages clsort needs to build and run, where
# they are missing: a C compiler, CMake, the OpenCL headers and ICD loader,
# PoCL (the CPU OpenCL runtime, so that a machine without a GPU driver
# still has a device), and Python 3 with NumPy, venv, pip, setuptools and wheel
# for the Python package and its test (pip installs it into a virtual
# environment, offline). Uses sudo when not run as root.
#
# usage: scripts/deps.sh [extra-package ...]
set -eu
pkgs="gcc g++ make cmake pkg-config ocl-icd-opencl-dev opencl-headers ocl-icd-libopencl1 \
      pocl-opencl-icd clinfo zlib1g-dev python3 python3-numpy python3-venv python3-pip \
      python3-setuptools python3-wheel openmpi-bin libopenmpi-dev $*"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps.sh: installing$missing"
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends $missing > /dev/null
