#!/usr/bin/env python3
"""accuracy.py NAME=REPORT.json...: fscost's accuracy tables, as markdown.

Each REPORT is `fscost report --format json` of one recorded run
(docs/REPORT-JSON.md); NAME groups runs of one workload. Per run:
- exact/sys: the summed exact per-op on-CPU time over rusage sys time of
  the workload (the report's consistency ratio);
- +path: the same with the report's syscall entry/exit path samples
  (consistency.syscall_path_ns) added to the numerator: kernel time inside
  syscalls but before sys_enter or after sys_exit fired, where fscost's own
  programs run, which the per-op timestamps cannot cover;
- +kernel: the same with all the workload's samples in the kernel outside any
  op's timestamps (the syscall path of +path, page faults, exec, exit;
  sampled, so converted at 1/freq_hz each) added to the numerator: the
  kernel time per-op accounting cannot see by design. It includes +path's;
  do not add the two;
- closure: exact per-op on-CPU plus the sampled time outside syscalls
  (user mode and [kernel]) over rusage user + sys. With tick-based CPU
  accounting the kernel splits a task's precise runtime into user and sys
  by which mode 4 ms ticks hit, so sys alone carries the split's sampling
  error while user + sys is the precise total;
- sampled/exact: op samples × 1/freq_hz over the exact per-op on-CPU sum;
- share diff: the largest |sampled share − exact share| over the ops, in
  percentage points, where a share is the op's part of all op samples
  (sampled) or of the summed on-CPU time (exact); and the binomial
  standard error a share of that size has with that many samples;
- drops: the map-full counters (what "no drops at default sizes" is
  about: a --max-* size fixes each) and the others (skipped program runs,
  nested lock waits, lost stacks), each with the names of those not 0.
"""
import math
import statistics
import sys
from collections import defaultdict

TARGET = 0.02  # |exact/sys − 1| within 2 %


def analyse(r):
    ops = [o for o in r["ops"] if o["oncpu_ns_total"] > 0 or o["samples"] > 0]
    oncpu = sum(o["oncpu_ns_total"] for o in ops)
    samples = sum(o["samples"] for o in ops)
    ns_per_sample = 1e9 / r["meta"]["freq_hz"]
    sys_ns = r["rusage"]["sys_ns"] if r["rusage"] else 0
    kernel_ns = r["background"]["kernel_samples"] * ns_per_sample
    user_ns = r["background"]["user_samples"] * ns_per_sample
    cpu_ns = (r["rusage"]["user_ns"] + sys_ns) if r["rusage"] else 0
    shares = []
    for o in ops:
        exact = o["oncpu_ns_total"] / oncpu if oncpu else 0
        sampled = o["samples"] / samples if samples else 0
        se = math.sqrt(exact * (1 - exact) / samples) if samples else float("nan")
        shares.append((o["name"], o["count"], o["oncpu_ns_per_op"], exact, sampled, se))
    worst = max(shares, key=lambda s: abs(s[4] - s[3]))
    drops = {k: v for k, v in r["drops"].items() if v}
    size = sum(v for k, v in drops.items() if k.endswith("_map_full"))
    return {
        "ops": sum(o["count"] for o in ops),
        "ratio": r["consistency"]["ratio"],
        "with_path": r["consistency"].get("ratio_with_syscall_path"),
        "with_kernel": (oncpu + kernel_ns) / sys_ns if sys_ns else None,
        "closure": (oncpu + kernel_ns + user_ns) / cpu_ns if cpu_ns else None,
        "samples": samples,
        "sampled_exact": samples * ns_per_sample / oncpu if oncpu else None,
        "worst": worst, "shares": shares, "drops": drops,
        "size_drops": size, "other_drops": sum(drops.values()) - size,
    }


def fmt(x, spec="%.3f"):
    return "–" if x is None else spec % x


def run_table(groups):
    print("| workload | run | ops | exact/sys | +path | +kernel | closure | op samples"
          " | sampled/exact | max share diff pp (op; SE pp) | drops: map full / other |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, runs in groups.items():
        for i, a in enumerate(runs):
            w = a["worst"]
            names = ", ".join("%s %d" % kv for kv in sorted(a["drops"].items()))
            drops = "%d / %d%s" % (a["size_drops"], a["other_drops"],
                                   " (" + names + ")" if names else "")
            print("| %s | %d | %d | %s | %s | %s | %s | %d | %s | %.2f (%s; %.2f) | %s |" % (
                name, i, a["ops"], fmt(a["ratio"]), fmt(a["with_path"]), fmt(a["with_kernel"]),
                fmt(a["closure"]),
                a["samples"],
                fmt(a["sampled_exact"]), 100 * abs(w[4] - w[3]), w[0], 100 * w[5], drops))


def summary(groups):
    print()
    for name, runs in groups.items():
        ratios = [a["ratio"] for a in runs if a["ratio"] is not None]
        path = [a["with_path"] for a in runs if a["with_path"] is not None]
        kern = [a["with_kernel"] for a in runs if a["with_kernel"] is not None]
        closure = [a["closure"] for a in runs if a["closure"] is not None]
        diffs = [100 * abs(a["worst"][4] - a["worst"][3]) for a in runs]
        if not ratios:
            print("- %s: no rusage, no ratio" % name)
            continue
        m = statistics.median(ratios)
        mp = statistics.median(path) if path else None
        print("- %s: exact/sys median %.3f (%.3f–%.3f), %s the 2%% target; with the syscall"
              " path %s (%s); with [kernel] samples %.3f; closure %.3f; max share difference"
              " %.2f pp; map-full drops %s; other drops %d" % (
                  name, m, min(ratios), max(ratios),
                  "within" if abs(m - 1) <= TARGET else "outside", fmt(mp),
                  "–" if mp is None else "within" if abs(mp - 1) <= TARGET else "outside",
                  statistics.median(kern) if kern else float("nan"),
                  statistics.median(closure) if closure else float("nan"), max(diffs),
                  "none" if all(a["size_drops"] == 0 for a in runs) else "SOME",
                  sum(a["other_drops"] for a in runs)))


def share_table(groups):
    print()
    print("Per-op shares, first run of each workload:")
    print()
    print("| workload | op | count | exact on-CPU µs/op | exact share % | sampled share %"
          " | diff pp | SE pp |")
    print("|---|---|---|---|---|---|---|---|")
    for name, runs in groups.items():
        for op, count, per_op, exact, sampled, se in sorted(runs[0]["shares"],
                                                            key=lambda s: -s[3]):
            print("| %s | %s | %d | %s | %.2f | %.2f | %+.2f | %.2f |" % (
                name, op, count, fmt(per_op and per_op / 1e3, "%.2f"), 100 * exact,
                100 * sampled, 100 * (sampled - exact), 100 * se))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    import json
    groups = defaultdict(list)
    for arg in sys.argv[1:]:
        name, path = arg.split("=", 1)
        with open(path) as f:
            groups[name].append(analyse(json.load(f)))
    run_table(groups)
    summary(groups)
    share_table(groups)


if __name__ == "__main__":
    main()
