#!/usr/bin/env bash
# docs/CASES.md case 4: default mount (A) vs -o wsync (B), one thread
# creating N files in one directory, REPS interleaved runs a side, each
# under bpftrace (offcpu.bt): where the creates sleep, for how long, and how
# much of it is run-queue wait. Prints the per-create table CASES.md quotes.
#   N (3000) files, REPS (3), SIZE (512M) of the RAM disk, EVIDENCE
set -euo pipefail
# shellcheck source=bench/cases/lib.sh
. "$(dirname "$0")/../lib.sh"
N=${N:-3000} REPS=${REPS:-3} SIZE=${SIZE:-512M}

truth_init
need bpftrace "apt-get install bpftrace"
need "$MKFS_XFS" "apt-get install xfsprogs"
need_workload
rm -f -- "$EVIDENCE"/[AB][0-9]*.bt.json*
for rep in $(seq 1 "$REPS"); do
  for cfg in A B; do
    opts=""
    if [ $cfg = B ]; then opts=wsync; fi
    EV_MOUNT_OPTS=$opts ev_fresh "$SIZE" "$MKFS_XFS" -f
    grep " $EV_MNT " /proc/mounts >"$EVIDENCE/$cfg$rep.mount"
    mkdir "$EV_MNT/w"
    bt "$EVIDENCE/$cfg$rep.bt.json" -q -f json "$CASE_DIR/offcpu.bt" \
      -c "$WORKLOAD_BIN $EV_MNT/w --workload create --files $N --threads 1"
    say "$cfg$rep: $(grep -o '"elapsed_s":[0-9.]*' "$EVIDENCE/$cfg$rep.bt.json"), mount options $(cut -d' ' -f4 "$EVIDENCE/$cfg$rep.mount")"
  done
done
ev_release
python3 "$CASE_DIR/analyze.py" "$EVIDENCE" "$N" | tee "$EVIDENCE/truth.md"
