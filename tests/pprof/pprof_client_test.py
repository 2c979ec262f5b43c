#!/usr/bin/env python3
"""fscost's pprof export read by the real client, `go tool pprof`.

For each profile (the fixture tests/data/full-profile.json and, as root, a
real `fscost record` of a small create workload), `fscost convert --to pprof`
is read back with go tool pprof, and per operation -top (what it accounts for
under -tagfocus=op=^NAME$) and -traces (the sum of the samples it prints with
that op label) must equal what `fscost report --format json` says: on-CPU
samples, off-CPU ns in stacks, lock wait ns. Then `fscost import pprof` must
give the same report totals back.

Run by ctest as pprof.client with FSCOST_BIN, FSCOST_WORKLOAD_BIN and
FSCOST_TEST_DATA. Without `go` it exits 77 (skipped), unless CI=true.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

FSCOST = os.environ["FSCOST_BIN"]
WORKLOAD = os.environ.get("FSCOST_WORKLOAD_BIN", "")
DATA = os.environ["FSCOST_TEST_DATA"]
failures = []


def skip(why):
    if os.environ.get("CI") == "true":
        print(f"pprof.client: FAILED: {why} (CI=true, where this test must run)")
        sys.exit(1)
    print(f"pprof.client: SKIPPED: {why}")
    sys.exit(77)


def run(*cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise SystemExit(f"pprof.client: {' '.join(cmd)} exited {r.returncode}:\n{r.stderr}")
    return r.stdout


def check(what, got, want):
    ok = got == want
    print(f"  {'ok  ' if ok else 'FAIL'} {what}: pprof {got}, fscost {want}")
    if not ok:
        failures.append(what)


def report(profile, view):
    return json.loads(run(FSCOST, "report", profile, "--format", "json", "--view", view))


# Per-op totals from fscost's own report: {view: {op: value}}.
def fscost_totals(profile):
    oncpu = {o["name"]: o["samples"] for o in report(profile, "oncpu")["ops"]}
    off = report(profile, "offcpu")["offcpu"]
    offcpu = {o["name"]: o["stacks_ns_total"] for o in off["ops"]}
    locks = {o["name"]: sum(r["total_ns"] for r in o["locks"])
             for o in report(profile, "locks")["locks"]["ops"]}
    return {"samples": oncpu, "offcpu": offcpu, "lock_wait": locks}


NUMBER = re.compile(r"^\s*(\d+)(ns)?\s")


def pprof(env, pb, index, op, mode):
    args = ["go", "tool", "pprof", mode, "-nodefraction=0", "-edgefraction=0",
            "-sample_index=" + index, "-tagfocus=op=^" + re.escape(op) + "$"]
    if index != "samples":
        args.append("-unit=ns")
    r = subprocess.run(args + [pb], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise SystemExit(f"pprof.client: {' '.join(args)} exited {r.returncode}:\n{r.stderr}")
    return r.stdout + r.stderr


def top_total(text):
    if "matched no samples" in text:
        return 0
    m = re.search(r"Showing nodes accounting for (\d+)(?:ns)?,", text)
    return int(m.group(1)) if m else None


# -traces: blocks between dashed lines; a block's first value line is
# "<value> <leaf>", its label lines "key:  value".
def traces_total(text, op):
    total = 0
    for block in text.split("-----------+")[1:]:
        labels = dict(re.findall(r"^\s+(\w+):\s+(.*)$", block, re.M))
        if labels.get("op") != op:
            continue
        for line in block.splitlines()[1:]:
            m = NUMBER.match(line)
            if m:
                total += int(m.group(1))
                break
    return total


def check_profile(name, profile, work, env):
    print(f"{name}: {profile}")
    pb = os.path.join(work, name + ".pb.gz")
    run(FSCOST, "convert", profile, "--to", "pprof", "-o", pb)
    want = fscost_totals(profile)
    if not any(want["samples"].values()):
        failures.append(f"{name}: no on-CPU samples in any op: nothing to compare")
    for index, per_op in want.items():
        for op, value in sorted(per_op.items()):
            check(f"{name} {index} op={op} -top", top_total(pprof(env, pb, index, op, "-top")), value)
            check(f"{name} {index} op={op} -traces",
                  traces_total(pprof(env, pb, index, op, "-traces"), op), value)
    comments = run("go", "tool", "pprof", "-comments", pb, env=env)
    meta = report(profile, "oncpu")["meta"]
    check(f"{name} comment hostname", f"fscost.hostname: {meta['hostname']}" in comments, True)
    check(f"{name} comment kernel", f"fscost.kernel: {meta['kernel_release']}" in comments, True)
    back = os.path.join(work, name + ".imported.profile")
    run(FSCOST, "import", "pprof", pb, "-o", back)
    check(f"{name} import pprof: per-op totals", fscost_totals(back), want)


def main():
    if not shutil.which("go"):
        skip("no `go` (apt-get install golang-go; scripts/setup.sh does)")
    work = tempfile.mkdtemp(prefix="fscost-pprof-")
    env = dict(os.environ, HOME=work, GOCACHE=os.path.join(work, "gocache"), GOFLAGS="")
    try:
        check_profile("fixture", os.path.join(DATA, "full-profile.json"), work, env)
        if os.geteuid() != 0:
            if os.environ.get("CI") == "true":
                failures.append("not root: the recorded profile was not checked")
            else:
                print("recorded: SKIPPED (not root: fscost record needs BPF)")
        else:
            files = os.path.join(work, "files")
            os.mkdir(files)
            rec = os.path.join(work, "recorded.profile")
            run(FSCOST, "record", "--probes", "all", "-o", rec, "--",
                WORKLOAD, files, "--workload", "mixed", "--files", "3000", "--threads", "2")
            check_profile("recorded", rec, work, env)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print(f"pprof.client: {len(failures)} failed: " + "; ".join(failures))
        sys.exit(1)
    print("pprof.client: passed")


main()
