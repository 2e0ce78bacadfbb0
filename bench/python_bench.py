"""python_bench.py - what a Python user sees: clsort.sort(a) (a sorted copy,
host array in and out, wall clock) against np.sort(a) and, where torch and
a CUDA GPU are present, torch.from_numpy(a).cuda().sort() back to NumPy;
one process, the same array, the order rotating round by round, medians.
Every result is compared with np.sort's.

usage: python3 bench/python_bench.py [--device gpu|cpu] [--n 32M] [--rounds 7]
                                     [--dtype float32]
One JSON object per line."""
import argparse
import json
import statistics
import time

import numpy as np

import clsort


def size(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(s[:-1]) * mult[s[-1]]) if s[-1] in mult else int(s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default=None)
    ap.add_argument("--n", default="32M")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--seed", type=int, default=20111)
    args = ap.parse_args()
    n = size(args.n)
    a = np.random.default_rng(args.seed).standard_normal(n).astype(args.dtype)
    ctx = clsort.Context(args.device)
    want = np.sort(a)

    def run_clsort():
        return ctx.sort(a)

    def run_numpy():
        return np.sort(a)

    impls = {"clsort": run_clsort, "np.sort": run_numpy}
    try:
        import torch
        if torch.cuda.is_available() and ctx.device["is_gpu"]:
            def run_torch():
                return torch.from_numpy(a).cuda().sort().values.cpu().numpy()
            impls["torch.cuda"] = run_torch
    except ImportError:
        pass
    times = {k: [] for k in impls}
    names = list(impls)
    for k in names:  # warm-up: programs, pools, CUDA context
        np.testing.assert_array_equal(impls[k](), want)
    for r in range(args.rounds):
        for j in range(len(names)):
            k = names[(j + r) % len(names)]
            t0 = time.perf_counter()
            out = impls[k]()
            times[k].append((time.perf_counter() - t0) * 1e3)
            if r == 0:
                np.testing.assert_array_equal(out, want)
    med = {k: statistics.median(v) for k, v in times.items()}
    for k in names:
        print(json.dumps({"impl": k, "n": n, "dtype": args.dtype,
                          "device": ctx.device["device_name"] if k == "clsort" else k,
                          "rounds": args.rounds, "ms": round(med[k], 3),
                          "clsort_speedup": round(med[k] / med["clsort"], 3)}), flush=True)


if __name__ == "__main__":
    main()
