#!/usr/bin/env python3
"""hostdists.py - the table of bench/gpu_run.sh's hostdists stage: clsort's
host-array sorts on the CPU per distribution, one column per tuning (medians
over the rounds), against ips4o and vqsort on the same inputs.

usage: hostdists.py hostdists.txt hostdists_peers.jsonl
"""
import json
import statistics
import sys


def main():
    rows, tunings, cur = {}, [], None
    with open(sys.argv[1]) as f:
        for line in f:
            w = line.split()
            if line.startswith("--- round"):
                cur = line.split(":", 1)[1].strip()
                if cur not in tunings:
                    tunings.append(cur)
            elif cur and len(w) >= 3 and "@" in w[0] and w[1].isdigit():
                rows.setdefault((w[0], int(w[1])), {}).setdefault(cur, []).append(float(w[2]))
    peers = {}
    try:
        with open(sys.argv[2]) as f:
            for line in f:
                p = json.loads(line)
                case = p["case"] if "@" in p["case"] else p["case"] + "@uniform"
                peers.setdefault((case, p["n"]), {}).setdefault(p["impl"], []).append(p["ms"])
    except (OSError, IndexError):
        pass
    impls = ["ips4o", "vqsort"]
    head = ["case", "n"] + ["clsort %s ms" % t for t in tunings] + ["%s ms" % i for i in impls]
    head += ["%s: x ips4o" % t for t in tunings]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for (case, n), by in rows.items():
        med = [statistics.median(by[t]) if t in by else None for t in tunings]
        pk = case if "@" in case else case + "@uniform"
        pm = [statistics.median(peers[(pk, n)][i]) if i in peers.get((pk, n), {}) else None
              for i in impls]
        cells = [case, "%dM" % (n >> 20)]
        cells += ["%.2f" % m if m else "" for m in med]
        cells += ["%.2f" % m if m else "" for m in pm]
        cells += ["%.2fx" % (pm[0] / m) if m and pm[0] else "" for m in med]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
