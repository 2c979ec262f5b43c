#!/usr/bin/env python3
"""Markdown table of bench/lib/syscall.sh's runs: ns per getppid() per
configuration, and what each adds over the same round's untraced run."""
import statistics
import sys
from collections import defaultdict


def main(path):
    runs = defaultdict(dict)  # config -> round -> ns per call
    order = []
    with open(path) as f:
        for line in f:
            config, rnd, usecs = line.split()
            runs[config][int(rnd)] = float(usecs) * 1000
            if config not in order:
                order.append(config)
    base = runs["untraced"]
    print("| configuration | ns per syscall, each round | median | added ns (paired median)"
          " | added, best vs best |")
    print("|---|---|---|---|---|")
    for c in order:
        vals = [runs[c][r] for r in sorted(runs[c])]
        added = [runs[c][r] - base[r] for r in sorted(runs[c]) if r in base]
        paired = statistics.median(added) if added else float("nan")
        best = min(vals) - min(base.values())
        print(f"| {c} | {' '.join(f'{v:.0f}' for v in vals)} | {statistics.median(vals):.0f} "
              f"| {paired:+.0f} | {best:+.0f} |")
    print()


if __name__ == "__main__":
    main(sys.argv[1])
