#!/usr/bin/env bash
# unit.bench_cases: bench/cases/ must not rot, checked without root and
# without any peer tool. Every case bench/lib/cases.sh runs has a
# directory with an executable check, and a truth.sh unless it is a
# check-only case; the scripts parse (bash -n, Python's compile, shellcheck
# when installed); and each check prints its one row of `bench/run cases`
# on a real summary.json: `fscost diff` of the case's recorded runs
# (tests/data/cases, tests/data/diff/fsmark-parent). The demo and
# other-filesystems have no recorded runs: theirs are built from the
# rmapbt-fsync diff, with the figures their checks read set to a passing
# and to a failing value.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cases=$root/bench/cases
data=$root/tests/data
fscost=${FSCOST_BIN:?FSCOST_BIN: the fscost binary}
CHECK_ONLY="shared-dir-spin"   # its truth is the demo's §2.3 rows (docs/CASES.md)
status=0
fail() {
  echo "FAILED: $*"
  status=1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The layout: the cases bench/run runs, and nothing else, each complete.
run=$(grep -o 'bench_case [a-z-]*' "$root/bench/lib/cases.sh" | cut -d' ' -f2 | sort -u)
dirs=$(for d in "$cases"/*/; do basename "$d"; done | sort)
[ "$run" = "$dirs" ] || fail "bench/lib/cases.sh runs [${run//$'\n'/ }], bench/cases/ holds [${dirs//$'\n'/ }]"
for name in $dirs; do
  [ -x "$cases/$name/check" ] || fail "bench/cases/$name/check is missing or not executable"
  if [[ " $CHECK_ONLY " == *" $name "* ]]; then
    [ ! -e "$cases/$name/truth.sh" ] || fail "bench/cases/$name has a truth.sh: take it out of CHECK_ONLY"
  else
    [ -x "$cases/$name/truth.sh" ] || fail "bench/cases/$name/truth.sh is missing or not executable"
  fi
done

# The scripts parse.
while IFS= read -r f; do
  bash -n "$f" || fail "bash -n $f"
done < <(find "$cases" -name '*.sh'; echo "$root/bench/lib/cases.sh")
while IFS= read -r f; do
  python3 -c 'import sys; compile(open(sys.argv[1]).read(), sys.argv[1], "exec")' "$f" || fail "compile $f"
done < <(find "$cases" -name '*.py' -o -name check)
if command -v shellcheck >/dev/null; then
  (cd "$root" && find bench/cases -name '*.sh' -print0 | xargs -0 shellcheck -x -S warning) ||
    fail "shellcheck on bench/cases"
else
  echo "shellcheck not installed: not run"
fi

# row NAME SUMMARY WANT: the check prints one row of NAME, "ok" or
# "FAILED: ...", and exits 0 or 1 to match.
row() {
  local name=$1 summary=$2 want=$3 out rc=0
  out=$("$cases/$name/check" "$summary" 7) || rc=$?
  echo "$out"
  [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || { fail "$name: not one line"; return; }
  if [ "$want" = ok ]; then
    if ! [[ "$out" =~ ^\|\ $name\ \|\ 7\ \|\ .+\ \|\ ok(\ \(first\ screen\ [0-9]+\ lines\))?\ \|\ [a-z,-]*\ \|$ ]] || [ $rc != 0 ]; then
      fail "$name: not an ok row (exit $rc)"
    fi
  elif ! [[ "$out" =~ ^\|\ $name\ \|\ 7\ \|\ .+\ \|\ FAILED:\ .+\ \|\ [a-z,-]*\ \|$ ]] || [ $rc != 1 ]; then
    fail "$name: not a FAILED row with exit 1 (exit $rc)"
  fi
}

diff_of() {  # diff_of NAME A B: NAME's summary.json from the recorded runs A vs B
  "$fscost" diff "$2" "$3" -o "$work/$1" >/dev/null 2>"$work/$1.err" || { cat "$work/$1.err"; fail "fscost diff for $1"; }
}
for name in rmapbt-fsync shared-dir-spin dir-block-size wsync agcount; do
  diff_of "$name" "$data/cases/$name/a" "$data/cases/$name/b"
  row "$name" "$work/$name/summary.json" ok
done
diff_of parent-pointers "$data/diff/fsmark-parent/a" "$data/diff/fsmark-parent/b"
row parent-pointers "$work/parent-pointers/summary.json" ok

# The demo: rmapbt-fsync's sync does not wait longer (its files were
# fsynced); with the conversion worker's off-CPU change as the sync's, it does.
row demo "$work/rmapbt-fsync/summary.json" failed
python3 - "$work/rmapbt-fsync/summary.json" "$work" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
bg = next(b for b in d["background"] if b["name"].startswith("xfs-conv/") and b["name"].endswith(": xfs_end_io"))
next(o for o in d["ops"] if o["op"] == "sync")["offcpu"] = bg["offcpu_ns"]
json.dump(d, open(sys.argv[2] + "/demo.json", "w"))
# ext4 (A) against XFS (B): each side's own events, as bpftrace counted them.
o = next(o for o in d["ops"] if o["op"] == "create")
for c in o["fs_events"].values():
    c["a_summary"]["mean"] = 0.0
own = copy.deepcopy(o["fs_events"]["xfs_trans_alloc"])
for name, mean in (("jbd2_handle_start", 1.0005), ("ext4_allocate_inode", 1.0), ("ext4_mark_inode_dirty", 4.016)):
    c = copy.deepcopy(own)
    c["a_summary"]["mean"], c["b_summary"]["mean"] = mean, 0.0
    o["fs_events"][name] = c
d["a"]["fs"] = "ext4"
json.dump(d, open(sys.argv[2] + "/other-filesystems.json", "w"))
o["fs_events"]["xfs_log_reserve"]["a_summary"]["mean"] = 1.0      # ext4 counting XFS's events
o["fs_events"]["ext4_mark_inode_dirty"]["a_summary"]["mean"] = 2.0
json.dump(d, open(sys.argv[2] + "/other-filesystems-bad.json", "w"))
PY
row demo "$work/demo.json" ok
row other-filesystems "$work/other-filesystems.json" ok
row other-filesystems "$work/other-filesystems-bad.json" failed
row wsync "$work/no-such-summary.json" failed
# A first screen over 40 lines fails the row, whatever the mechanism says.
mkdir -p "$work/long" && cp "$work/wsync/summary.json" "$work/long/"
{ for i in $(seq 45); do echo "line $i"; done; printf '%072d\n' 0 | tr 0 -; } >"$work/long/summary.txt"
row wsync "$work/long/summary.json" failed

[ $status = 0 ] && echo "unit.bench_cases: ok"
exit $status
