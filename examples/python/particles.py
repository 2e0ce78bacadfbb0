"""particles.py - particle-in-cell sorting from Python with clsort.

Particles on a periodic 2-D grid move each step and are re-sorted by cell,
so that the particles of a cell are contiguous (Helluy's experiment, the C
version of which is examples/pic). Each particle is a row (x, y, vx, vy) of
a float64 array: clsort.sort_pairs sorts the cell indices and moves the rows
with them in one call, stably. Each step is checked against NumPy's stable
argsort, and the charge per cell is then read from the sorted segments.

usage: PYTHONPATH=python python3 examples/python/particles.py [--n N]
       [--cells C] [--steps S] [--device D]
"""

import argparse
import sys
import time

import numpy as np

import clsort


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 20, help="particles (default 2^20)")
    ap.add_argument("--cells", type=int, default=32, help="cells per side (default 32)")
    ap.add_argument("--steps", type=int, default=5, help="time steps (default 5)")
    ap.add_argument("--device", default=None, help="gpu, cpu, P:D or part of a name")
    a = ap.parse_args()
    if a.n < 1 or a.cells < 1 or a.steps < 1:
        ap.error("--n, --cells and --steps must be positive")

    ctx = clsort.Context(a.device)
    rng = np.random.default_rng(2011)
    parts = np.empty((a.n, 4))
    parts[:, :2] = rng.random((a.n, 2))               # positions in [0, 1)^2
    parts[:, 2:] = rng.standard_normal((a.n, 2)) * 0.01  # velocities
    dt = 1.0
    print("device: %s; %d particles, %d x %d cells, %d steps"
          % (ctx.device["device_name"], a.n, a.cells, a.cells, a.steps))
    for step in range(a.steps):
        parts[:, :2] = (parts[:, :2] + dt * parts[:, 2:]) % 1.0  # move, periodic
        ij = np.minimum((parts[:, :2] * a.cells).astype(np.int64), a.cells - 1)
        cell = (ij[:, 1] * a.cells + ij[:, 0]).astype(np.uint32)
        want = np.argsort(cell, kind="stable")  # the reference
        ref_rows = parts[want]

        t0 = time.perf_counter()
        ctx.sort_pairs(cell, parts)            # cells sorted, rows moved with them
        t1 = time.perf_counter()

        if not (np.array_equal(parts, ref_rows) and np.all(cell[:-1] <= cell[1:])):
            print("step %d: WRONG order" % step)
            return 1
        # charge per cell from the sorted segments: segment c is [start[c], start[c+1])
        start = np.searchsorted(cell, np.arange(a.cells * a.cells + 1))
        charge = np.diff(start)
        if charge.sum() != a.n or not np.array_equal(
                charge, np.bincount(cell, minlength=a.cells * a.cells)):
            print("step %d: WRONG deposit" % step)
            return 1
        print("step %d: sort_pairs %.2f ms (%.1f MKeys/s)%s, fullest cell %d, emptiest %d, ok"
              % (step, (t1 - t0) * 1e3, a.n / (t1 - t0) / 1e6,
                 " with the kernel build" if step == 0 else "", charge.max(), charge.min()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
