#!/usr/bin/env python3
"""dists_svg.py - the distribution plot of docs/PERFORMANCE.md, as SVG (no
plotting library needed): for each table of bench/compare.py (the GPU's
clsort/CUB, the CPU's clsort/ips4o), one panel of horizontal bars, a row per
case at one size, on a log scale, with the parity line; later measurements
of a row (another commit or card) as markers beside its bar.

The plot of docs/PERFORMANCE.md (from the repository root):

  H="GPU rows on the H100, bank spread and 256 x 24 tiles (b0cce66)"
  C="CPU rows on the Xeon-16 with the fill from tiles (ffdc3ac)"
  K="CPU rows on the Xeon-16 with the CPU check (0d04b4c)"
  bench/dists_svg.py --size 33554432 \
      --panel "GPU, clsort/CUB (H200, device buffers, 4d998a2)=docs/perf/h200_dists_1128.md" \
      --panel "CPU, clsort/ips4o (Xeon-16, PoCL 5, device buffers, 01dbd52)=docs/perf/xeon16_dists_1127b.md" \
      --later "0:u32@few-unique=2.74:$H" --later "0:u32@few-1024=1.31:$H" \
      --later "0:u32@and-2=1.10:$H" --later "0:u32@and-4=1.04:$H" --later "0:u32@sorted-runs=1.15:$H" \
      --later "0:u32@zipf-1m=1.05:$H" --later "0:u32@sorted-swaps=1.09:$H" --later "0:f32@normal=1.04:$H" \
      --later "0:u32@uniform=1.03:$H" --later "0:u32@reversed=2.93:$H" --later "0:u64@reversed=4.90:$H" \
      --later "0:u64@uniform=1.03:$H" --later "0:u64@zipf-1m=1.04:$H" --later "0:u32+4@few-unique=1.01:$H" \
      --later "0:u32+4@zipf-1m=1.05:$H" --later "0:u32+4@uniform=1.04:$H" \
      --later "1:u32@few-2=2.52:$C" --later "1:u32@few-unique=1.92:$C" \
      --later "1:u32@zipf-1k=0.94:$K" --later "1:u32@and-4=0.88:$K" --later "1:u32@few-1024=1.04:$K" \
      --later "1:u32@zipf-1m=1.06:$K" --later "1:u32@uniform=2.82:$K" --later "1:u32@and-2=2.07:$K" \
      > docs/perf/dists.svg

--later PANEL:CASE=RATIO:LABEL adds a marker to row CASE of panel PANEL
(0-based). Rows are the tables' rows at --size, in their order.
"""
import argparse
import math
import re
import sys
from xml.sax.saxutils import escape

# the later measurements' markers, one colour a label
MARKER_COLOURS = ["#25c", "#b6c", "#e80", "#111"]


def read_table(path, size):
    """(case, ratio) of each row of the markdown table at n == size: the
    last column that reads like '1.23x'."""
    rows = []
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 3 or not cells[1].isdigit() or int(cells[1]) != size:
                continue
            ratios = [c for c in cells if re.fullmatch(r"[0-9.]+x", c)]
            if ratios:
                rows.append((cells[0], float(ratios[-1][:-1])))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, required=True)
    ap.add_argument("--panel", action="append", required=True, help="TITLE=TABLE.md")
    ap.add_argument("--later", action="append", default=[], help="PANEL:CASE=RATIO:LABEL")
    a = ap.parse_args()
    panels = []
    for p in a.panel:
        title, path = p.rsplit("=", 1)
        panels.append((title, read_table(path, a.size), {}))
    for m in a.later:
        head, rest = m.split("=", 1)
        pi, case = head.split(":", 1)
        ratio, label = rest.split(":", 1)
        panels[int(pi)][2].setdefault(case, []).append((float(ratio), label))

    lo, hi = 0.5, 32.0  # the x range, log scale
    left, width, row_h, top_pad = 170, 520, 16, 44

    def x_of(r):
        r = min(max(r, lo), hi)
        return left + width * math.log(r / lo) / math.log(hi / lo)

    out, y = [], 10
    labels = sorted({lab for _, _, later in panels for v in later.values() for _, lab in v})
    for title, rows, later in panels:
        out.append(f'<text x="{left}" y="{y + 14}" font-weight="bold">{escape(title)}, '
                   f'{a.size // 1048576}M keys</text>')
        y0 = y + top_pad - 20
        h = row_h * len(rows)
        for tick in (0.5, 1, 2, 4, 8, 16, 32):
            x = x_of(tick)
            out.append(f'<line x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" y2="{y0 + h}" '
                       f'stroke="{"#000" if tick == 1 else "#ccc"}" stroke-width="1"/>')
            out.append(f'<text x="{x:.1f}" y="{y0 + h + 12}" text-anchor="middle" '
                       f'font-size="10">{tick:g}x</text>')
        for i, (case, r) in enumerate(rows):
            yy = y0 + i * row_h
            x1 = x_of(1.0)
            xr = x_of(r)
            colour = "#3a7" if r >= 1.0 else "#c44"
            out.append(f'<rect x="{min(x1, xr):.1f}" y="{yy + 3}" width="{abs(xr - x1):.1f}" '
                       f'height="{row_h - 6}" fill="{colour}"/>')
            out.append(f'<text x="{left - 6}" y="{yy + row_h - 4}" text-anchor="end" '
                       f'font-size="11">{escape(case)}</text>')
            out.append(f'<text x="{max(x1, xr) + 4:.1f}" y="{yy + row_h - 4}" '
                       f'font-size="10">{r:.2f}x</text>')
            for rl, lab in later.get(case, []):
                k = labels.index(lab)
                out.append(f'<path d="M {x_of(rl):.1f} {yy + 2} l 5 6 l -5 6 l -5 -6 z" '
                           f'fill="{MARKER_COLOURS[k % len(MARKER_COLOURS)]}"/>')
        y = y0 + h + 24
    for k, lab in enumerate(labels):  # the markers' legend
        out.append(f'<path d="M {left + 5} {y + 2} l 5 6 l -5 6 l -5 -6 z" '
                   f'fill="{MARKER_COLOURS[k % len(MARKER_COLOURS)]}"/>')
        out.append(f'<text x="{left + 16}" y="{y + 12}" font-size="11">later: '
                   f'{escape(lab)}</text>')
        y += 18
    sys.stdout.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 60}" '
                     f'height="{y + 10}" font-family="sans-serif" font-size="12">\n'
                     f'<rect width="100%" height="100%" fill="#fff"/>\n'
                     + "\n".join(out) + "\n</svg>\n")


if __name__ == "__main__":
    main()
