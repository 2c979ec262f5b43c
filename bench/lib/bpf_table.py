#!/usr/bin/env python3
"""bench/lib/bpf.sh's tables.

  bpf_table.py row LABEL PROBES ROUND PROFILE   one JSON line per run
  bpf_table.py empty-row PROBES ROUND OUT LOG  the same for empty_hooks' run
  bpf_table.py table RUNS.jsonl                 ns per file, per program
  bpf_table.py floor FLOOR.tsv                  the empty tp_btf pair's cost
  bpf_table.py same-counts CURRENT BASELINE     per-op counts of one workload under each build
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


def empty_row(probes, rnd, out_path, log_path):
    """empty_hooks' run: the workload's JSON line and the programs' bpf_stats."""
    d = json.loads(open(out_path).read().strip().splitlines()[-1])
    files = d["counts"]["create"]
    progs = {}
    for line in open(log_path):
        w = line.split()
        if len(w) == 4 and w[0] == "bpf_stats":
            progs[w[1]] = (int(w[2]), int(w[3]))
    if not files or not progs:
        sys.exit(f"bpf_table: {out_path}, {log_path}: no creates or no bpf_stats lines")
    print(json.dumps({"build": "empty", "probes": probes, "round": int(rnd), "files": files,
                      "programs": progs, "drops": {}}))


def paired(vals, base):
    """Median of the per-round ratios vals[r] / base[r], as text; '' without pairs."""
    d = [vals[k] / base[k] for k in vals if base and k in base and base[k]]
    return f"{statistics.median(d):.3f}×" if d else ""


def table(path):
    runs = [json.loads(line) for line in open(path)]
    groups = defaultdict(list)
    for r in runs:
        groups[(r["probes"], r["build"])].append(r)
    med = statistics.median
    print("| probes | build | ns per created file, each round | median | vs baseline (paired)"
          " | ÷ empty programs on the same hooks (paired; target ≤ 1.3×) |")
    print("|---|---|---|---|---|---|")
    per_file = {}
    for (probes, build), rs in groups.items():
        per_file[(probes, build)] = {
            r["round"]: sum(ns for _, ns in r["programs"].values()) / r["files"] for r in rs}
    order = {"empty": 0, "baseline": 1, "current": 2}
    for (probes, build), vals in sorted(per_file.items(), key=lambda kv: (kv[0][0], order[kv[0][1]])):
        vs_base = paired(vals, per_file.get((probes, "baseline"))) if build == "current" else ""
        vs_empty = ""
        if build != "empty":
            vs_empty = paired(vals, per_file.get((probes, "empty")))
            if vs_empty:
                vs_empty += " met" if float(vs_empty[:-1]) <= 1.3 else " **missed**"
        print(f"| {probes} | {build} | {' '.join(f'{v:.0f}' for _, v in sorted(vals.items()))} "
              f"| {med(vals.values()):.0f} | {vs_base} | {vs_empty} |")
    print()

    def per_program(rs, n):
        """(runs per file, ns per run, ns per file) of program n, medians over runs."""
        per = [r["programs"].get(n, [0, 0]) for r in rs]
        if not rs:
            return 0, 0, 0
        runs_pf = med(c / r["files"] for (c, _), r in zip(per, rs))
        ns_run = med(ns / c for c, ns in per if c) if any(c for c, _ in per) else 0
        ns_pf = med(ns / r["files"] for (_, ns), r in zip(per, rs))
        return runs_pf, ns_run, ns_pf

    for (probes, build), rs in sorted(groups.items()):
        if build != "current":
            continue
        base_rs = groups.get((probes, "baseline"), [])
        empty_rs = groups.get((probes, "empty"), [])
        print(f"Per program, --probes {probes} (current build; medians over rounds; beside it"
              " the baseline build and an empty program on the same hook):")
        print()
        print("| program | runs per file | ns per run | baseline ns per run | empty ns per run"
              " | ns per file | baseline ns per file | empty ns per file | ÷ empty, per file |")
        print("|---|---|---|---|---|---|---|---|---|")
        names = sorted({n for r in rs for n in r["programs"]},
                       key=lambda n: -per_program(rs, n)[2])
        for n in names:
            runs_pf, ns_run, ns_pf = per_program(rs, n)
            if ns_pf < 0.5 and runs_pf < 0.01:
                continue
            _, b_run, b_pf = per_program(base_rs, n) if base_rs else (0, 0, 0)
            _, e_run, e_pf = per_program(empty_rs, n) if empty_rs else (0, 0, 0)
            cell = lambda v, have: f"{v:.0f}" if have else "–"
            ratio = f"{ns_pf / e_pf:.2f}×" if e_pf else "–"
            print(f"| {n} | {runs_pf:.2f} | {ns_run:.0f} | {cell(b_run, base_rs)}"
                  f" | {cell(e_run, empty_rs)} | {ns_pf:.0f} | {cell(b_pf, base_rs)}"
                  f" | {cell(e_pf, empty_rs)} | {ratio} |")
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


def fs_events(op):
    """An op's filesystem event counts; profiles before format version 2
    (the baseline build may be one) name them "xfs"."""
    return op.get("fs_events", op.get("xfs", {}))


def same_counts(current_path, baseline_path):
    """Each named operation's count, errors and filesystem events under both
    builds. Counts and errors are the workload's own and must be equal; the
    event counts may differ by what background writeback and log pushes did
    meanwhile, which is listed, not judged."""
    def ops(path):
        with open(path) as f:
            return {o["name"]: o for o in json.load(f)["ops"] if o["name"] != "other"}
    cur, base = ops(current_path), ops(baseline_path)
    names = sorted(set(cur) | set(base))
    unequal = [n for n in names
               if (cur.get(n, {}).get("count"), cur.get(n, {}).get("errors"))
               != (base.get(n, {}).get("count"), base.get(n, {}).get("errors"))]
    events = []
    for n in names:
        xc, xb = fs_events(cur.get(n, {})), fs_events(base.get(n, {}))
        for ev in sorted(set(xc) | set(xb)):
            if xc.get(ev, 0) != xb.get(ev, 0):
                events.append(f"{n} {ev} {xc.get(ev, 0)} / {xb.get(ev, 0)}")
    print("Per-operation counts, the mixed workload under each build:")
    print()
    print("| operation | count (current / baseline) | errors | equal |")
    print("|---|---|---|---|")
    for n in names:
        c, b = cur.get(n, {}), base.get(n, {})
        print(f"| {n} | {c.get('count', 0)} / {b.get('count', 0)} | {c.get('errors', 0)} / "
              f"{b.get('errors', 0)} | {'no' if n in unequal else 'yes'} |")
    print()
    print(f"Counts and errors: {'all equal' if not unequal else 'DIFFER: ' + ', '.join(unequal)}"
          f" ({len(names)} operations). Filesystem events per operation: "
          + ("all equal." if not events else
             f"{len(events)} differ (current / baseline): {'; '.join(events[:12])}"
             f"{' …' if len(events) > 12 else ''}."))
    print()


def compare_row(build, rnd, rusage_path, summary_path):
    wall = json.load(open(rusage_path))["wall_s"]
    runs = json.load(open(summary_path))["compare"]["runs"]
    work = sum((r.get("workload") or {}).get("elapsed_s", 0) +
               (r.get("workload") or {}).get("sync_s", 0) for r in runs)
    print(f"compare {build} {rnd} {wall} {work}")


def fixed(path):
    rows = defaultdict(lambda: defaultdict(dict))
    for line in open(path):
        w = line.split()
        rows[w[0]][w[1]][int(w[2])] = [float(x) for x in w[3:]]
    med = statistics.median
    alone = {r: v[0] for r, v in rows["alone"]["-"].items()}
    by_hand = {r: v[1] for r, v in rows["alone"]["-"].items()}
    print("| what | build | wall s, each round | median | workload share (median)"
          " | ÷ the workload runs alone (paired; target ≤ 1.3×) | ÷ the runs by hand (paired) |")
    print("|---|---|---|---|---|---|---|")
    for what in ("record", "compare", "alone", "by hand"):
        builds = rows["alone"] if what == "by hand" else rows[what]
        for build in sorted(builds):
            vals = builds[build]
            if what == "by hand":
                walls = [by_hand[r] for r in sorted(by_hand)]
            else:
                walls = [v[0] for _, v in sorted(vals.items())]
            share = vs_alone = vs_hand = ""
            if what == "compare":
                share = f"{med(v[1] / v[0] for v in vals.values()) * 100:.0f}%"
                d = [v[0] / alone[r] for r, v in vals.items() if alone.get(r)]
                if d:
                    vs_alone = f"{med(d):.2f}×" + (" met" if med(d) <= 1.3 else " **missed**")
                h = [v[0] / by_hand[r] for r, v in vals.items() if by_hand.get(r)]
                if h:
                    vs_hand = f"{med(h):.2f}×"
            name = {"alone": "the compare's measured runs, workload alone",
                    "by hand": "the same runs by hand: mkfs, mount, run, umount each"}.get(what, what)
            print(f"| {name} | {build} | {' '.join(f'{x:.2f}' for x in walls)} | {med(walls):.2f} "
                  f"| {share} | {vs_alone} | {vs_hand} |")
    print()


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "row":
        row(*sys.argv[2:6])
    elif cmd == "empty-row":
        empty_row(*sys.argv[2:6])
    elif cmd == "table":
        table(sys.argv[2])
    elif cmd == "same-counts":
        same_counts(sys.argv[2], sys.argv[3])
    elif cmd == "compare-row":
        compare_row(*sys.argv[2:6])
    elif cmd == "fixed":
        fixed(sys.argv[2])
    elif cmd == "floor":
        floor(sys.argv[2], *sys.argv[3:5])
    else:
        sys.exit(__doc__)
