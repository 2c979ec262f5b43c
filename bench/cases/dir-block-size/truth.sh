#!/usr/bin/env bash
# docs/CASES.md case 3: -n size=4096 (A) vs -n size=65536 (B), one thread
# creating N files in one directory, REPS interleaved runs a side, each
# under perf record -g (cpu-clock, 5 kHz) and FlameGraph's
# stackcollapse-perf.pl: what the create does more of with 64 KiB
# directory blocks. Prints the per-create table CASES.md quotes.
#   N (40000) files, REPS (3), SIZE (512M) of the RAM disk, EVIDENCE
set -euo pipefail
# shellcheck source=bench/cases/lib.sh
. "$(dirname "$0")/../lib.sh"
N=${N:-40000} REPS=${REPS:-3} SIZE=${SIZE:-512M}

truth_init
need perf "apt-get install linux-perf"
need_flamegraph
need "$MKFS_XFS" "apt-get install xfsprogs"
need_workload
rm -f -- "$EVIDENCE"/[AB][0-9]*.folded "$EVIDENCE"/[AB][0-9]*.json
printf 'rep\tcfg\tcreates\telapsed_s\n' >"$EVIDENCE/runs.tsv"
for rep in $(seq 1 "$REPS"); do
  for cfg in A B; do
    bsize=4096
    if [ $cfg = B ]; then bsize=65536; fi
    ev_fresh "$SIZE" "$MKFS_XFS" -f -n size=$bsize
    mkdir "$EV_MNT/w"
    perf_folded "$EVIDENCE/$cfg$rep" "$WORKLOAD_BIN" "$EV_MNT/w" --workload create --files "$N" \
      --threads 1 >"$EVIDENCE/$cfg$rep.json"
    elapsed=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["elapsed_s"])' <"$EVIDENCE/$cfg$rep.json")
    printf '%s\t%s\t%s\t%s\n' "$rep" $cfg "$N" "$elapsed" >>"$EVIDENCE/runs.tsv"
    say "$cfg$rep: -n size=$bsize, ${elapsed} s"
  done
done
ev_release
python3 "$CASE_DIR/analyze.py" "$EVIDENCE" | tee "$EVIDENCE/truth.md"
