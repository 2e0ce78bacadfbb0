#!/usr/bin/env python3
"""compare.py - one table of clsort against CUB (and other peers) from the
JSON the benchmark programs wrote in the same run, plus a PNG plot.

usage: compare.py --clsort clsort.json [--cub cub.jsonl] [--copy-gbs G]
                  [--md out.md] [--png out.png] [--title T] [--peers cpu.jsonl]
       compare.py --cpu --clsort clsort_cpu.json --peers cpu_peers.jsonl
                  [--md out.md] [--png out.png] [--title T]

       compare.py --scaling scaling.jsonl [--md out.md] [--png out.png] [--title T]
       compare.py --rounds clsort_1.json:peer_1.jsonl clsort_2.json:peer_2.jsonl ...
                  [--md out.md]

--scaling: the thread-scaling table and plot (gpu_run.sh's scaling stage:
clsort and ips4o at 32M u32 keys against the thread count, with the copy
bandwidth measured at each count).
--rounds: clsort and one CPU peer (cpu_peers --impls, one implementation)
run alternately, a pair of files a round (gpu_run.sh's cpuratio stage): each
round's ratio and their median, case by case, so that a host whose speed
drifts from minute to minute compares like with like.
--peers adds the CPU anchors that bench/cpu/cpu_peers.cpp wrote (ips4o,
vqsort, std::sort, qsort); --cpu makes the table clsort (through PoCL)
against each of them instead of against CUB.
"""
import argparse
import json
import math
import sys
from statistics import median


def load_rows(path):
    text = open(path).read().strip()
    if not text:
        return []
    if text.startswith("["):
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.strip().startswith("{")]


def model_bytes(case):
    """Bytes moved per key by an LSD sort of 8-bit digits with one upfront
    histogram read: k (histogram) + passes * 2 * (k + v)."""
    spec = case.split("@")[0]
    bits = None
    if ":" in spec:
        spec, b, e = spec.split(":")
        bits = int(e) - int(b)
    key, _, val = spec.partition("+")
    k = {"u8": 1, "u16": 2, "u32": 4, "u64": 8}[key]
    v = int(val) if val else 0
    if bits is None:
        bits = 8 * k
    passes = math.ceil(bits / 8)
    return k + passes * 2 * (k + v)


def fmt_rate(mk):
    return f"{mk / 1000:.2f} G" if mk >= 1000 else f"{mk:.0f} M"


def emit_table(lines, md):
    """Prints the table's lines, and writes them to md when given."""
    table = "\n".join(lines)
    print(table)
    if md:
        with open(md, "w") as f:
            f.write(table + "\n")


def pyplot():
    """matplotlib.pyplot with a file backend, or None (and a note) without it."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("compare.py: no matplotlib, no plot", file=sys.stderr)
        return None
    return plt


def save_rate_plot(fig, ax, a):
    """Axes of a rate-against-n plot (log n, GKeys/s), saved to a.png."""
    ax.set_xscale("log", base=2)
    ax.set_xlabel("n (keys)")
    ax.set_ylabel("GKeys/s")
    ax.set_title(a.title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clsort")
    ap.add_argument("--scaling")
    ap.add_argument("--cub")
    ap.add_argument("--copy-gbs", type=float, default=0)
    ap.add_argument("--md")
    ap.add_argument("--png")
    ap.add_argument("--title", help="the plot's title (default: clsort vs CUB, or vs the CPU sorts with --cpu)")
    ap.add_argument("--peers")
    ap.add_argument("--cpu", action="store_true")
    ap.add_argument("--rounds", nargs="+", metavar="CLSORT_JSON:PEER_JSONL")
    a = ap.parse_args()
    if a.title is None:
        a.title = ("clsort (PoCL) vs CPU sorts" if a.cpu
                   else "clsort thread scaling" if a.scaling else "clsort vs CUB")
    if a.scaling:
        return scaling(a)
    if a.rounds:
        return rounds(a)
    if not a.clsort:
        ap.error("--clsort is needed (or --scaling)")
    ours = load_rows(a.clsort)
    peers = load_rows(a.peers) if a.peers else []
    if a.cpu:
        return cpu_table(a, ours, peers)
    cub = {(r["case"], r["n"]): r for r in load_rows(a.cub)} if a.cub else {}
    lines = []
    hdr = "| case | n | clsort ms | clsort rate | CUB ms | CUB rate | clsort/CUB | of copy limit |"
    lines.append(hdr)
    lines.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in ours:
        c = cub.get((r["case"], r["n"]))
        limit = ""
        if a.copy_gbs > 0:
            lim_mk = a.copy_gbs * 1e3 / model_bytes(r["case"])  # GB/s / B = Gkeys/s -> M
            limit = f"{r['mkeys_per_s'] / lim_mk:.0%} of {fmt_rate(lim_mk)}"
        ratio = f"{c['ms'] / r['ms']:.2f}x" if c and r["ms"] > 0 else ""
        check = "" if r.get("correct", True) else " WRONG"
        lines.append(
            f"| {r['case']} | {r['n']} | {r['ms']:.3f} | {fmt_rate(r['mkeys_per_s'])}{check} | "
            + (f"{c['ms']:.3f} | {fmt_rate(c['mkeys_per_s'])} | " if c else "| | ")
            + f"{ratio} | {limit} |")
    emit_table(lines, a.md)
    if a.png:
        plt = pyplot()
        if not plt:
            return
        fig, ax = plt.subplots(figsize=(8, 5))
        cases = sorted({r["case"] for r in ours})
        plot_peers(ax, peers)
        for case in cases:
            pts = sorted((r["n"], r["mkeys_per_s"]) for r in ours if r["case"] == case)
            line, = ax.plot([p[0] for p in pts], [p[1] / 1e3 for p in pts], "o-",
                            label=f"clsort {case}")
            cpts = sorted((n, r["mkeys_per_s"]) for (cs, n), r in cub.items() if cs == case)
            if cpts:
                ax.plot([p[0] for p in cpts], [p[1] / 1e3 for p in cpts], "s--",
                        color=line.get_color(), label=f"CUB {case}")
        save_rate_plot(fig, ax, a)


def plot_peers(ax, peers):
    """The CPU anchors, one line per (implementation, case): the parallel and
    the vectorised anchors (ips4o, vqsort) in colours of their own, the
    others grey; keys alone dotted, pairs dashed."""
    colours = {"ips4o": "tab:green", "vqsort": "tab:purple"}
    for key in sorted({(p["impl"], p["case"]) for p in peers}):
        pts = sorted((p["n"], p["mkeys_per_s"]) for p in peers if (p["impl"], p["case"]) == key)
        style = "x--" if "+" in key[1] else "x:"
        ax.plot([q[0] for q in pts], [q[1] / 1e3 for q in pts], style,
                color=colours.get(key[0], "grey"), alpha=0.8, label=f"{key[0]} {key[1]} (CPU)")


def case_name(case):
    """The headline's case names ("u32 keys", "u32 pairs") as --cases specs."""
    return {"u32 keys": "u32", "u32 pairs": "u32+4"}.get(case, case)


def cpu_table(a, ours, peers):
    """clsort through PoCL against every CPU anchor, case by case."""
    for r in ours:
        r["case"] = case_name(r["case"])
    impls = []
    for p in peers:
        if p["impl"] not in impls:
            impls.append(p["impl"])
    by = {(p["impl"], p["case"], p["n"]): p for p in peers}
    hdr = "| case | n | clsort ms | clsort rate | " + " | ".join(
        f"{i} rate | clsort/{i}" for i in impls) + " |"
    lines = [hdr, "|" + " --- |" * (4 + 2 * len(impls))]
    for r in ours:
        cells = [r["case"], str(r["n"]), f"{r['ms']:.2f}",
                 fmt_rate(r["mkeys_per_s"]) + ("" if r.get("correct", True) else " WRONG")]
        for i in impls:
            p = by.get((i, r["case"], r["n"]))
            if p:
                cells += [fmt_rate(p["mkeys_per_s"]) + (f" ({p['threads']}T)" if p.get("threads", 1) > 1 else ""),
                          f"{p['ms'] / r['ms']:.2f}x"]
            else:
                cells += ["", ""]
        lines.append("| " + " | ".join(cells) + " |")
    emit_table(lines, a.md)
    if a.png:
        plt = pyplot()
        if not plt:
            return
        fig, ax = plt.subplots(figsize=(8, 5))
        for case in sorted({r["case"] for r in ours}):
            pts = sorted((r["n"], r["mkeys_per_s"]) for r in ours if r["case"] == case)
            ax.plot([q[0] for q in pts], [q[1] / 1e3 for q in pts], "o-", label=f"clsort {case}")
        plot_peers(ax, peers)
        save_rate_plot(fig, ax, a)


def rounds(a):
    """clsort against one CPU peer, round by round (the peer's time over
    clsort's in each round, then the median of those ratios)."""
    per = {}  # (case, n) -> [(clsort ms, peer ms, peer name, threads)]
    for pair in a.rounds:
        ours_path, _, peer_path = pair.partition(":")
        if not peer_path:
            sys.exit(f"--rounds: '{pair}' is not CLSORT_JSON:PEER_JSONL")
        peer = {(p["case"], p["n"]): p for p in load_rows(peer_path)}
        for r in load_rows(ours_path):
            if not r.get("correct", True):
                sys.exit(f"{ours_path}: a wrong result ({r['case']}, n={r['n']})")
            c = case_name(r["case"])
            p = peer.get((c, r["n"]))
            if p:
                per.setdefault((c, r["n"]), []).append(
                    (r["ms"], p["ms"], p["impl"], p.get("threads", 1)))
    if not per:
        sys.exit("--rounds: no case that both files of a round hold")
    name = next(iter(per.values()))[0][2]
    threads = next(iter(per.values()))[0][3]
    lines = [f"| case | n | rounds | clsort ms (median) | {name} ms (median, {threads}T) | "
             f"clsort/{name} by round | median ratio |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for (c, n), rs in per.items():
        ratios = [q / o for o, q, _, _ in rs]
        lines.append(f"| {c} | {n} | {len(rs)} | {median([o for o, _, _, _ in rs]):.2f} | "
                     f"{median([q for _, q, _, _ in rs]):.2f} | "
                     + " ".join(f"{x:.2f}" for x in ratios)
                     + f" | {median(ratios):.2f}x |")
    emit_table(lines, a.md)


def scaling(a):
    """Rate against threads for clsort (PoCL) and ips4o, with the copy GB/s."""
    rows = sorted(load_rows(a.scaling), key=lambda r: r["threads"])
    n = 32 * 1024 * 1024
    lines = ["| threads | copy GB/s | clsort ms | clsort rate | speed-up | ips4o ms | ips4o rate | clsort/ips4o |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    base = rows[0]["clsort_ms"] if rows and rows[0]["clsort_ms"] else None
    for r in rows:
        c, i = r["clsort_ms"], r.get("ips4o_ms")
        lines.append(f"| {r['threads']} | {r['copy_gbs'] or ''} | {c:.1f} | {fmt_rate(n / c / 1e3)} | "
                     f"{base / c:.1f}x | " + (f"{i:.1f} | {fmt_rate(n / i / 1e3)} | {i / c:.2f}x |" if i else "| | |"))
    emit_table(lines, a.md)
    if a.png:
        plt = pyplot()
        if not plt:
            return
        fig, ax = plt.subplots(figsize=(7, 4.5))
        t = [r["threads"] for r in rows]
        ax.plot(t, [n / r["clsort_ms"] / 1e3 for r in rows], "o-", label="clsort (PoCL)")
        ax.plot(t, [n / r["ips4o_ms"] / 1e3 if r.get("ips4o_ms") else float("nan") for r in rows],
                "s--", label="ips4o (parallel)")
        ax.set_xscale("log", base=2)
        ax.set_xticks(t)
        ax.set_xticklabels([str(x) for x in t])
        ax.set_xlabel("threads")
        ax.set_ylabel("MKeys/s (32M u32 keys)")
        ax2 = ax.twinx()
        ax2.plot(t, [r["copy_gbs"] or float("nan") for r in rows], "x:", color="grey",
                 label="copy GB/s")
        ax2.set_ylabel("copy bandwidth, GB/s")
        ax.set_title(a.title)
        ax.grid(True, alpha=0.3)
        h1, l1 = ax.get_legend_handles_labels()
        h2, l2 = ax2.get_legend_handles_labels()
        ax.legend(h1 + h2, l1 + l2, fontsize=8, loc="upper left")
        fig.tight_layout()
        fig.savefig(a.png, dpi=110)


if __name__ == "__main__":
    main()
