#!/usr/bin/env python3
"""ncu_table.py - one line per kernel launch from Nsight Compute's --csv
output (the program's own output may be mixed in; lines that are not the
CSV's are skipped): duration, registers, block and grid, achieved
occupancy, DRAM bytes and what limits the blocks per SM.

usage: bench/ncu_table.py FILE.csv ..."""
import csv
import sys

SHORT = {
    "gpu__time_duration.sum": "us",
    "launch__registers_per_thread": "regs",
    "launch__block_size": "block",
    "launch__grid_size": "grid",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "occ%",
    "dram__bytes_read.sum": "MB rd",
    "dram__bytes_write.sum": "MB wr",
    "launch__occupancy_limit_registers": "lim regs",
    "launch__occupancy_limit_shared_mem": "lim smem",
}
# to microseconds and megabytes (ncu writes "ns"/"nsecond" and the like)
SCALE = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1, "us": 1, "msecond": 1e3, "ms": 1e3,
         "byte": 1e-6, "Kbyte": 1e-3, "KB": 1e-3, "Mbyte": 1, "MB": 1, "Gbyte": 1e3, "GB": 1e3}

for path in sys.argv[1:]:
    rows, header = {}, None
    for line in open(path, errors="replace"):
        if line.startswith('"ID"'):
            header = next(csv.reader([line]))
            continue
        if not header or not line.startswith('"'):
            continue
        try:
            rec = dict(zip(header, next(csv.reader([line]))))
        except (csv.Error, StopIteration):
            continue
        if "Metric Name" not in rec:
            continue
        key = (int(rec["ID"]), rec["Kernel Name"])
        name = rec["Metric Name"]
        try:
            val = float(rec["Metric Value"].replace(",", ""))
        except ValueError:
            continue
        unit = rec.get("Metric Unit", "")
        if name.startswith("dram__bytes") or name == "gpu__time_duration.sum":
            val *= SCALE.get(unit, 1)
        rows.setdefault(key, {})[SHORT.get(name, name)] = val
    print("== %s: %d launches" % (path, len(rows)))
    cols = list(SHORT.values())
    print("%4s %-44s " % ("id", "kernel") + " ".join("%9s" % c for c in cols))
    for (i, kname), m in sorted(rows.items()):
        kname = kname.split("(")[0]
        kname = kname if len(kname) <= 44 else kname[:20] + ".." + kname[-22:]
        print("%4d %-44s " % (i, kname) +
              " ".join("%9.2f" % m[c] if c in m else "%9s" % "-" for c in cols))
