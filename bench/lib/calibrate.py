#!/usr/bin/env python3
"""calibrate.py WORK N: bench/run calibrate's table.

For each of the N A-vs-A compares (WORK/cal-compare-I/summary.json, floored
by the calibration, and WORK/cal-compare-I.plain.json, the same runs diffed
without it): the tested ops' on-CPU, off-CPU and latency figures that came
out significant. A compare "calls a difference" when any did. Both
configurations are the same, so every call is a false one."""
import json
import sys

FIGURES = ("oncpu", "offcpu", "latency")


def calls(path):
    """([op figure ...] significant, the smallest q and whose), or None if
    the file is missing."""
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return None
    out, least = [], (2.0, "-")
    for op in d["ops"]:
        if not op.get("tested"):
            continue
        for fig in FIGURES:
            c = op[fig]
            name = "%s %s %+.1f%%" % (op["op"], fig, 100 * (c["rel"] or 0))
            if c["q"] is not None and c["q"] < least[0]:
                least = (c["q"], name)
            if c["significant"]:
                out.append("%s (q %.3g)" % (name, c["q"]))
    return out, least


def cell(c):
    found, (q, name) = c
    return "; ".join(found) if found else "none (least q %.2f: %s)" % (q, name)


def main():
    work, n = sys.argv[1], int(sys.argv[2])
    print("| compare | floored: significant | unfloored: significant |")
    print("|---|---|---|")
    tally = {"floored": [0, 0], "plain": [0, 0]}  # [compares with a call, compares read]
    for i in range(1, n + 1):
        row = []
        for kind, path in (("floored", "%s/cal-compare-%d/summary.json" % (work, i)),
                           ("plain", "%s/cal-compare-%d.plain.json" % (work, i))):
            c = calls(path)
            if c is None:
                row.append("(failed)")
                continue
            tally[kind][1] += 1
            tally[kind][0] += bool(c[0])
            row.append(cell(c))
        print("| %d | %s |" % (i, " | ".join(row)))
    print()
    for kind, label in (("floored", "with the floor"), ("plain", "without it")):
        called, read = tally[kind]
        print("- %s: %d of %d A-vs-A compares called a difference in an op's time "
              "(%d of %d called none)" % (label, called, read, read - called, read))


if __name__ == "__main__":
    main()
