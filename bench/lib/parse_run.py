#!/usr/bin/env python3
"""parse_run.py KIND STDOUT INNER OUTER: one overhead run as a TSV row.

KIND is "create" (STDOUT is fscost-workload's JSON line) or "fs_mark"
(STDOUT is its table). INNER is rusage.py's JSON for the workload alone,
OUTER for the tracer with the workload under it (or the same run untraced).
Prints: files files_per_s workload_user_s workload_sys_s tracer_cpu_s
tracer_maxrss_kb. The tracer's own CPU is OUTER minus INNER minus the inner
wrapper's own; fscost's BPF programs run in the workload's context, so
their cost is in the workload's sys time, not in the tracer's CPU.
"""
import json
import sys


def files_and_rate(kind, text):
    if kind == "create":
        d = json.loads(text.strip().splitlines()[-1])
        files = d.get("timed", d["counts"])["create"]
        return files, files / d["elapsed_s"]
    if kind == "fs_mark":
        # The result row under "FSUse%  Count  Size  Files/sec  App Overhead".
        rows = [l.split() for l in text.splitlines() if l.strip() and not l.startswith("#")]
        head = next(i for i, r in enumerate(rows) if r and r[0] == "FSUse%")
        row = rows[head + 1]
        return int(row[1]), float(row[3])
    sys.exit("parse_run: unknown workload kind " + kind)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    kind, out, inner, outer = sys.argv[1:]
    with open(out) as f:
        files, rate = files_and_rate(kind, f.read())
    with open(inner) as f:
        i = json.load(f)
    with open(outer) as f:
        o = json.load(f)
    tracer = (o["user_s"] + o["sys_s"]) - (i["user_s"] + i["sys_s"]) - (
        i["self_user_s"] + i["self_sys_s"])
    print("%d %.1f %.6f %.6f %.6f %d" % (files, rate, i["user_s"], i["sys_s"], max(tracer, 0.0),
                                         o["maxrss_kb"]))


if __name__ == "__main__":
    main()
