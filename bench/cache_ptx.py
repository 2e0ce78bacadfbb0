#!/usr/bin/env python3
"""cache_ptx.py - the PTX that NVIDIA's OpenCL left in clsort's program cache,
one file per program, for ptxas and cuobjdump (registers, spills, SASS).

usage: bench/cache_ptx.py CACHE_DIR OUT_DIR
Writes OUT_DIR/<n>.ptx and OUT_DIR/<n>.key (the cache key: build options,
device, driver) for each cached program whose binary is PTX text."""
import os
import struct
import sys

src, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst, exist_ok=True)
n = 0
for name in sorted(os.listdir(src)):
    if not name.endswith(".clbin"):
        continue
    data = open(os.path.join(src, name), "rb").read()
    if data[:8] != b"CLSORTPB" or len(data) < 32:
        continue
    _fmt, klen = struct.unpack_from("<II", data, 8)
    (blen,) = struct.unpack_from("<Q", data, 16)
    key = data[32:32 + klen]
    binary = data[32 + klen:32 + klen + blen]
    if b".entry" not in binary:
        continue
    with open(os.path.join(dst, "%d.ptx" % n), "wb") as f:
        f.write(binary.rstrip(b"\0"))
    with open(os.path.join(dst, "%d.key" % n), "wb") as f:
        f.write(key)
    n += 1
print("%d programs" % n)
