#!/usr/bin/env python3
"""overhead_table.py RUNS.tsv: the overhead tables of bench/run, as markdown.

RUNS.tsv has one line per run: workload config round files files_per_s
workload_user_s workload_sys_s tracer_cpu_s tracer_maxrss_kb (the tracer's
own CPU: its process tree's usage minus the workload's; maxrss: the largest
process of the tree). Prints, per workload, throughput and kernel CPU per op
against untraced, the tracers' own cost, fscost against perf, and the
targets of docs/PERFORMANCE.md.
"""
import math
import statistics
import sys
from collections import defaultdict

ORDER = ["untraced", "fscost", "fscost-baseline", "fscost-all", "perf", "perflock"]
TARGETS = {"fscost": 0.97, "fscost-all": 0.95}


def load(path):
    runs = defaultdict(lambda: defaultdict(list))  # workload -> config -> [run]
    with open(path) as f:
        for line in f:
            w, c, rnd, files, rate, user, sys_, tcpu, trss = line.split()
            files = float(files)
            runs[w][c].append({
                "round": int(rnd), "rate": float(rate), "kus": float(sys_) * 1e6 / files,
                "tracer_s": float(tcpu), "rss_mb": float(trss) / 1024,
                "total_us": (float(user) + float(sys_) + float(tcpu)) * 1e6 / files})
    return runs


def med(runs, key):
    return statistics.median(r[key] for r in runs)


def best(runs):
    return max(r["rate"] for r in runs)


def paired_ratios(rs, base, key):
    """Each round's value over the same round's `base` value: runs seconds
    apart share the machine's state, so slow drift in the load of a shared
    machine cancels."""
    by_round = {r["round"]: r[key] for r in base}
    # A tiny run can have 0 kernel µs: rusage splits user/sys at the tick.
    return [r[key] / by_round[r["round"]] for r in rs if by_round.get(r["round"])]


def paired(rs, base, key):
    """Median over rounds of the paired ratios."""
    ratios = paired_ratios(rs, base, key)
    return statistics.median(ratios) if ratios else float("nan")


def median_ci(xs, level=0.95):
    """Distribution-free confidence interval of the median: the order
    statistics x(k) and x(n+1-k) with the largest k whose binomial(n, 1/2)
    coverage is at least `level` (k = 1, the range, when n is too small to
    reach it; returns the coverage it has)."""
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return float("nan"), float("nan"), 0.0
    pmf = [math.comb(n, i) / 2 ** n for i in range(n + 1)]
    best = (xs[0], xs[-1], 1 - 2 * pmf[0])
    for k in range(1, n // 2 + 1):
        coverage = 1 - 2 * sum(pmf[:k])
        if coverage < level:
            break
        best = (xs[k - 1], xs[n - k], coverage)
    return best


def verdict(ratios, goal, above="met", below="missed", at_most=False):
    """`above` / `below` when the median's 95% interval is wholly on one side
    of the goal; otherwise the machine's noise does not decide it. at_most:
    the goal is a ceiling (met when the interval lies wholly under it)."""
    lo, hi, cov = median_ci(ratios)
    if at_most:
        above, below = below, above
    if cov < 0.9:  # fewer than 5 rounds: even the range is no interval
        word = "not resolved by %d rounds" % len(ratios)
    elif lo >= goal:
        word = above
    elif hi < goal:
        word = below
    else:
        word = "not resolved by %d rounds" % len(ratios)
    return "%s (paired median's %.0f%% interval %.3f–%.3f)" % (word, 100 * cov, lo, hi)


def config_table(by_config):
    base = by_config["untraced"]
    print("| configuration | runs (files/s) | median files/s | median vs untraced"
          " | paired vs untraced | best vs untraced | kernel µs/file: median (range)"
          " | kernel CPU vs untraced (paired) | tracer CPU s (median) | total CPU µs/file"
          " | max RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for c in [c for c in ORDER if c in by_config]:
        rs = by_config[c]
        runs = " ".join("%.0f" % r["rate"] for r in rs)
        tracer = "–" if c == "untraced" else "%.2f" % med(rs, "tracer_s")
        rss = "%.0f" % max(r["rss_mb"] for r in rs)
        kus = [r["kus"] for r in rs]
        print("| %s | %s | %.0f | %.3f | %.3f | %.3f | %.2f (%.2f–%.2f) | %.3f | %s | %.2f | %s |"
              % (c, runs, med(rs, "rate"), med(rs, "rate") / med(base, "rate"),
                 paired(rs, base, "rate"), best(rs) / best(base), med(rs, "kus"), min(kus),
                 max(kus), paired(rs, base, "kus"), tracer, med(rs, "total_us"), rss))


def versus_table(by_config):
    pairs = [(f, p) for f in ("fscost", "fscost-baseline", "fscost-all")
             for p in ("perf", "perflock") if f in by_config and p in by_config]
    if "fscost" in by_config and "fscost-baseline" in by_config:
        pairs.append(("fscost", "fscost-baseline"))
    if not pairs:
        return
    print()
    print("| comparison | median files/s ratio | paired files/s ratio | best files/s ratio"
          " | total CPU per file ratio | total CPU per file, paired |")
    print("|---|---|---|---|---|---|")
    for f, p in pairs:
        a, b = by_config[f], by_config[p]
        print("| %s / %s | %.3f | %.3f | %.3f | %.3f | %.3f |" % (
            f, p, med(a, "rate") / med(b, "rate"), paired(a, b, "rate"), best(a) / best(b),
            med(a, "total_us") / med(b, "total_us"), paired(a, b, "total_us")))


def targets(by_config):
    base = by_config["untraced"]
    out = []
    for c, goal in TARGETS.items():
        if c in by_config:
            m = med(by_config[c], "rate") / med(base, "rate")
            p = paired(by_config[c], base, "rate")
            b = best(by_config[c]) / best(base)
            out.append("%s ≥ %.2f× untraced: median %.3f, paired %.3f, best %.3f: %s" % (
                c, goal, m, p, b,
                verdict(paired_ratios(by_config[c], base, "rate"), goal)))
    perfs = [p for p in ("perf", "perflock") if p in by_config]
    if "fscost" in by_config and perfs:
        ahead = all(med(by_config["fscost"], "rate") > med(by_config[p], "rate") for p in perfs)
        out.append("fscost ahead of %s on median throughput: %s" % (
            " and ".join(perfs), "yes" if ahead else "no"))
        for p in perfs:
            out.append("fscost / %s, paired: %s" % (
                p, verdict(paired_ratios(by_config["fscost"], by_config[p], "rate"), 1.0,
                           "fscost ahead", p + " ahead")))
    if "fscost" in by_config and "perf" in by_config:
        # Issue 32: fscost's whole CPU cost per file within 2% of perf record -a -g's.
        out.append("fscost / perf total CPU per file ≤ 1.02: paired %.3f: %s" % (
            paired(by_config["fscost"], by_config["perf"], "total_us"),
            verdict(paired_ratios(by_config["fscost"], by_config["perf"], "total_us"), 1.02,
                    at_most=True)))
    for line in out:
        print("- " + line)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for workload, by_config in load(sys.argv[1]).items():
        if "untraced" not in by_config:
            sys.exit("overhead_table: no untraced runs of " + workload)
        rounds = len(by_config["untraced"])
        print("### %s (%d rounds)\n" % (workload, rounds))
        config_table(by_config)
        versus_table(by_config)
        print()
        targets(by_config)
        print()


if __name__ == "__main__":
    main()
