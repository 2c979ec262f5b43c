#!/usr/bin/env python3
"""bench/lib/bpf.sh's tables.

  bpf_table.py row LABEL PROBES ROUND PROFILE   one JSON line per run
  bpf_table.py table RUNS.jsonl                 ns per file, per program
  bpf_table.py floor FLOOR.tsv                  the empty tp_btf pair's cost
  bpf_table.py compare-row BUILD ROUND RUSAGE SUMMARY   one compare's wall and workload share
  bpf_table.py fixed FIXED.tsv                  record and compare fixed costs
"""
import json
import statistics
import sys
from collections import defaultdict


def row(label, probes, rnd, path):
    with open(path) as f:
        p = json.load(f)
    files = sum(o["count"] for o in p["ops"] if o["name"] == "create")
    progs = {g["name"]: (g["runs"], g["run_ns"]) for g in p.get("bpf_programs", [])}
    if not files or not progs:
        sys.exit(f"bpf_table: {path} has no creates or no bpf_programs (--bpf-stats)")
    drops = {k: v for k, v in p.get("drops", {}).items() if v}
    print(json.dumps({"build": label, "probes": probes, "round": int(rnd), "files": files,
                      "programs": progs, "drops": drops}))


def table(path):
    runs = [json.loads(line) for line in open(path)]
    groups = defaultdict(list)
    for r in runs:
        groups[(r["probes"], r["build"])].append(r)
    med = statistics.median
    print("| probes | build | ns per created file, each round | median | vs baseline (paired) |")
    print("|---|---|---|---|---|")
    per_file = {}
    for (probes, build), rs in sorted(groups.items()):
        vals = {r["round"]: sum(ns for _, ns in r["programs"].values()) / r["files"] for r in rs}
        per_file[(probes, build)] = vals
    for (probes, build), vals in sorted(per_file.items()):
        base = per_file.get((probes, "baseline"))
        paired = ""
        if base and build != "baseline":
            d = [vals[k] / base[k] for k in vals if k in base]
            paired = f"{med(d):.3f}×" if d else ""
        print(f"| {probes} | {build} | {' '.join(f'{v:.0f}' for _, v in sorted(vals.items()))} "
              f"| {med(vals.values()):.0f} | {paired} |")
    print()
    for (probes, build), rs in sorted(groups.items()):
        if build != "current":
            continue
        base_rs = groups.get((probes, "baseline"), [])
        print(f"Per program, --probes {probes} (current build; medians over rounds"
              f"{'; the baseline build beside it' if base_rs else ''}):")
        print()
        if base_rs:
            print("| program | runs per file | ns per run | baseline ns per run | ns per file"
                  " | baseline ns per file |")
            print("|---|---|---|---|---|---|")
        else:
            print("| program | runs per file | ns per run | ns per file |")
            print("|---|---|---|---|")
        names = sorted({n for r in rs for n in r["programs"]},
                       key=lambda n: -med(r["programs"].get(n, [0, 0])[1] / r["files"] for r in rs))
        for n in names:
            per = [r["programs"].get(n, [0, 0]) for r in rs]
            runs_pf = med(c / r["files"] for (c, _), r in zip(per, rs))
            ns_run = med(ns / c for c, ns in per if c) if any(c for c, _ in per) else 0
            ns_pf = med(ns / r["files"] for (_, ns), r in zip(per, rs))
            if ns_pf < 0.5 and runs_pf < 0.01:
                continue
            if base_rs:
                bper = [r["programs"].get(n, [0, 0]) for r in base_rs]
                b_run = med(ns / c for c, ns in bper if c) if any(c for c, _ in bper) else 0
                b_pf = med(ns / r["files"] for (_, ns), r in zip(bper, base_rs))
                print(f"| {n} | {runs_pf:.2f} | {ns_run:.0f} | {b_run:.0f} | {ns_pf:.0f}"
                      f" | {b_pf:.0f} |")
            else:
                print(f"| {n} | {runs_pf:.2f} | {ns_run:.0f} | {ns_pf:.0f} |")
        drops = defaultdict(list)
        for r in rs:
            for k, v in r["drops"].items():
                drops[k].append(v)
        if drops:
            print()
            print("Drops: " + ", ".join(f"{k} {'/'.join(map(str, v))} (in {len(v)} of {len(rs)} runs)"
                                        for k, v in sorted(drops.items())))
        print()


def floor(path, stats_path=None, untracked_path=None):
    rows = [tuple(float(x) * 1000 for x in line.split()) for line in open(path) if line.strip()]
    added = [e - u for u, e in rows]
    print("| syscall path | ns per getppid(), each round | median |")
    print("|---|---|---|")
    print(f"| untraced | {' '.join(f'{u:.0f}' for u, _ in rows)} | {statistics.median(u for u, _ in rows):.0f} |")
    print(f"| empty tp_btf pair | {' '.join(f'{e:.0f}' for _, e in rows)} | {statistics.median(e for _, e in rows):.0f} |")
    print(f"| added (paired) | {' '.join(f'{a:+.0f}' for a in added)} | {statistics.median(added):+.0f} |")
    print()
    if untracked_path:
        by = defaultdict(list)
        for line in open(untracked_path):
            build, _, un, us = line.split()
            by[build].append((float(us) - float(un)) * 1000)
        for build, added in sorted(by.items()):
            print(f"Untracked syscalls beside a recording ({build}): +"
                  f"{statistics.median(added):.0f} ns each (paired median; rounds: "
                  f"{' '.join(f'{a:+.0f}' for a in added)}).")
        print()
    if stats_path:
        runs = ns = 0
        for line in open(stats_path):
            w = line.split()
            if len(w) == 4 and w[0] == "bpf_stats":
                runs += int(w[2])
                ns += int(w[3])
        if runs:
            print(f"bpf_stats' own cost: an empty program reads {ns / runs:.0f} ns per run"
                  f" ({runs} runs): every ns per run above includes it, so a program's work is"
                  " its figure less this.")
            print()


def compare_row(build, rnd, rusage_path, summary_path):
    wall = json.load(open(rusage_path))["wall_s"]
    runs = json.load(open(summary_path))["compare"]["runs"]
    work = sum((r.get("workload") or {}).get("elapsed_s", 0) +
               (r.get("workload") or {}).get("sync_s", 0) for r in runs)
    print(f"compare {build} {rnd} {wall} {work}")


def fixed(path):
    rows = defaultdict(lambda: defaultdict(list))
    for line in open(path):
        w = line.split()
        rows[w[0]][w[1]].append([float(x) for x in w[3:]])
    med = statistics.median
    print("| what | build | wall s, each round | median | workload share (median) |")
    print("|---|---|---|---|---|")
    for what in ("record", "compare"):
        for build in sorted(rows[what]):
            vals = rows[what][build]
            walls = [v[0] for v in vals]
            share = f"{med(v[1] / v[0] for v in vals) * 100:.0f}%" if what == "compare" else ""
            print(f"| {what} | {build} | {' '.join(f'{x:.2f}' for x in walls)} | {med(walls):.2f} "
                  f"| {share} |")
    print()


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "row":
        row(*sys.argv[2:6])
    elif cmd == "table":
        table(sys.argv[2])
    elif cmd == "compare-row":
        compare_row(*sys.argv[2:6])
    elif cmd == "fixed":
        fixed(sys.argv[2])
    elif cmd == "floor":
        floor(sys.argv[2], *sys.argv[3:5])
    else:
        sys.exit(__doc__)
