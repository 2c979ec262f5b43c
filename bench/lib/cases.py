#!/usr/bin/env python3
"""cases.py CASE SUMMARY_JSON SECONDS: one markdown row of bench/run cases.

What each case of docs/CASES.md must show at full size, checked on the
structured explanation in summary.json (the CI suite, tests/runtime/
test_cases.cpp, checks the same at small sizes)."""
import json
import sys


def op(d, name):
    return next((o for o in d["ops"] if o["op"] == name), None)


def sig(c):
    return c["significant"]


def family(o, name):
    return next((f for f in o["families"] if f["name"] == name), None)


def lock(o, name, type_=None):
    return next((l for l in o["locks"] if l["name"] == name and (type_ is None or l["type"] == type_)), None)


def us(c):
    return "%+.2f µs/op (%.2f..%.2f)" % (c["delta"] / 1e3, c["welch"]["ci_lo"] / 1e3, c["welch"]["ci_hi"] / 1e3)


def check(case, d):
    """(figure, [failed checks])"""
    bad = []
    if case == "rmapbt-fsync":
        o = op(d, "fsync")
        f = family(o, "xfs_rmap_*")
        if o["oncpu"]["verdict"] != "more": bad.append("fsync on-CPU not more")
        if not f or not sig(f["inclusive"]): bad.append("no significant xfs_rmap_*")
        return "fsync on-CPU " + us(o["oncpu"]), bad
    if case == "shared-dir-spin":
        o = op(d, "create")
        l = lock(o, "i_rwsem (parent dir, open)", "rwsem:W")
        others = [x["name"] for x in o["locks"] if x is not l and
                  x["optimistic_spin"]["a_summary"]["mean"] + x["optimistic_spin"]["b_summary"]["mean"] > 0]
        if not l or l["optimistic_spin"]["b_summary"]["mean"] <= 0: bad.append("no optimistic spin on i_rwsem")
        if others: bad.append("optimistic spin on " + ", ".join(others))
        return "i_rwsem optimistic spin B %.0f ns/op" % (l["optimistic_spin"]["b_summary"]["mean"] if l else 0), bad
    if case == "dir-block-size":
        o = op(d, "create")
        if o["oncpu"]["verdict"] != "more": bad.append("create on-CPU not more")
        if not any(sig(p["inclusive"]) and p["kind"] == "more-work" and "xfs_create" in p["frames"] for p in o["paths"]):
            bad.append("no more-work path through xfs_create")
        if any(sig(p["inclusive"]) and p["kind"] == "new-code" for p in o["paths"]): bad.append("a new-code path")
        return "create on-CPU " + us(o["oncpu"]), bad
    if case == "wsync":
        o = op(d, "create")
        if o["offcpu"]["verdict"] != "more": bad.append("create off-CPU not more")
        if not any(p["kind"] == "log-force" and p["significant"] for p in o["offcpu_parts"]):
            bad.append("no significant log-force part")
        return "create off-CPU " + us(o["offcpu"]), bad
    if case == "agcount":
        o = op(d, "create")
        l = lock(o, "xfs_buf lock (AGI)", "semaphore")
        if not l or l["change"] != "new": bad.append("AGI not a new contention point")
        return "create off-CPU " + us(o["offcpu"]), bad
    if case == "parent-pointers":
        o = op(d, "create")
        frames = [f for p in o["paths"] if sig(p["inclusive"]) for f in p["frames"]]
        if "xfs_defer_finish_noroll" not in frames: bad.append("no path through xfs_defer_finish_noroll")
        f = family(o, "xfs_attr_*")
        if not f or not f["new_in_b"] or not sig(f["inclusive"]): bad.append("xfs_attr_* not new")
        return "create on-CPU " + us(o["oncpu"]), bad
    if case == "demo":
        s = op(d, "sync")
        # The loop device's number is whichever was free.
        bg = next((b for b in d["background"]
                   if b["name"].startswith("xfs-conv/") and b["name"].endswith(": xfs_end_io")), None)
        if not s or s["offcpu"]["verdict"] != "more": bad.append("sync off-CPU not more")
        if not bg or bg["cpu_ns"]["verdict"] != "more": bad.append("xfs-conv: xfs_end_io not more")
        return "sync off-CPU %+.0f ms" % (s["offcpu"]["delta"] / 1e6 if s else 0), bad
    raise SystemExit("cases.py: unknown case " + case)


def main():
    case, path, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    try:
        d = json.load(open(path))
        figure, bad = check(case, d)
    except (OSError, ValueError, KeyError, TypeError) as e:
        figure, bad = "-", ["no summary: %s" % e]
    warn = ",".join(sorted({w["kind"] for w in d.get("warnings", [])})) if not bad or figure != "-" else ""
    print("| %s | %.0f | %s | %s | %s |" % (case, seconds, figure, "ok" if not bad else "FAILED: " + "; ".join(bad), warn))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
