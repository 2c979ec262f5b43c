#!/usr/bin/env bash
# docs/CASES.md case 5: -d agcount=4 (A) vs -d agcount=1 (B), T threads
# each creating N files (W bytes each) in its own directory, REPS
# interleaved runs a side, each under bpftrace (locks.bt: lock waits from
# lock:contention_begin/end by kernel stack and flags, and off-CPU time):
# whether the one AGI buffer's semaphore becomes a contention point. Prints
# the per-create table CASES.md quotes (the 4-thread row by default; T=2
# N=10000 gives the 2-thread row, DIRS=shared the shared-directory one).
#   T (4), N (5000), DIRS (private), W (4096), REPS (3), SIZE (512M), EVIDENCE
set -euo pipefail
# shellcheck source=bench/cases/lib.sh
. "$(dirname "$0")/../lib.sh"
T=${T:-4} N=${N:-5000} DIRS=${DIRS:-private} W=${W:-4096} REPS=${REPS:-3} SIZE=${SIZE:-512M}
# mkfs.xfs refuses a single AG ("must have at least 2 superblocks") unless
# it believes fstests runs it.
export TEST_DIR=/nonexistent TEST_DEV=/nonexistent QA_CHECK_FS=1

truth_init
need bpftrace "apt-get install bpftrace"
need "$MKFS_XFS" "apt-get install xfsprogs"
need_workload
rm -f -- "$EVIDENCE"/[AB][0-9]*.bt.json*
wopt=()
if [ "$W" != 0 ]; then wopt=(--write "$W"); fi
for rep in $(seq 1 "$REPS"); do
  for cfg in A B; do
    ag=4
    if [ $cfg = B ]; then ag=1; fi
    ev_fresh "$SIZE" "$MKFS_XFS" -f -d agcount=$ag
    mkdir "$EV_MNT/w"
    bt "$EVIDENCE/$cfg$rep.bt.json" -q -f json "$CASE_DIR/locks.bt" -c "$WORKLOAD_BIN $EV_MNT/w \
--workload create --files $N --threads $T --dirs $DIRS ${wopt[*]}"
    say "$cfg$rep: agcount=$ag, $(grep -o '"elapsed_s":[0-9.]*' "$EVIDENCE/$cfg$rep.bt.json"), $(df --output=pcent "$EV_MNT" | tail -1 | tr -d ' ') full"
  done
done
ev_release
python3 "$CASE_DIR/analyze.py" "$EVIDENCE" $((N * T)) | tee "$EVIDENCE/truth.md"
