#!/usr/bin/env bash
# The suite's new-code case (docs/CASES.md, "rmapbt + fsync"): Debian's
# mkfs.xfs -m rmapbt=0 (A) vs -m rmapbt=1 (B), one thread creating N files
# of 4 KiB, each fsynced before its close, so the writeback allocation and
# its reverse-map update (case 2's rmap work, §2.2) run in the fsync's own
# context. Phases, each over REPS interleaved runs on fresh filesystems:
#   perf  perf record -g of the workload alone, stackcollapse-perf.pl: the
#         fsync's CPU and the rmap families inside it
#   bpf   bpftrace: rmap, defer and transaction events per file, in the
#         workload's context and in every other task
# and prints the per-fsync table.
#   N (10000), PHASES ("perf bpf"), REPS (3), SIZE (2G), EVIDENCE
set -euo pipefail
# shellcheck source=bench/cases/lib.sh
. "$(dirname "$0")/../lib.sh"
N=${N:-10000} PHASES=${PHASES:-perf bpf} REPS=${REPS:-3} SIZE=${SIZE:-2G}
TPS=(xfs_rmap_map xfs_rmap_defer xfs_rmap_convert xfs_defer_trans_roll xfs_trans_commit xfs_trans_roll)

truth_init
need "$MKFS_XFS" "apt-get install xfsprogs"
need_workload
if phase perf; then need perf "apt-get install linux-perf"; need_flamegraph; fi
if phase bpf; then need bpftrace "apt-get install bpftrace"; fi
WL=("$WORKLOAD_BIN" "$EV_MNT/w" --workload create --files "$N" --threads 1 --write 4096 --fsync)

fresh() {
  local rmapbt=0
  if [ "$1" = B ]; then rmapbt=1; fi
  ev_fresh "$SIZE" "$MKFS_XFS" -f -m rmapbt=$rmapbt
  mkdir "$EV_MNT/w"
}

if phase perf; then
  mkdir -p "$EVIDENCE/perf"
  rm -f -- "$EVIDENCE"/perf/[AB][0-9]*.folded "$EVIDENCE"/perf/[AB][0-9]*.json
  printf 'rep\tcfg\tfiles\telapsed_s\n' >"$EVIDENCE/perf/runs.tsv"
  for rep in $(seq 1 "$REPS"); do
    for cfg in A B; do
      fresh $cfg
      perf_folded "$EVIDENCE/perf/$cfg$rep" "${WL[@]}" >"$EVIDENCE/perf/$cfg$rep.json"
      elapsed=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["elapsed_s"])' <"$EVIDENCE/perf/$cfg$rep.json")
      printf '%s\t%s\t%s\t%s\n' "$rep" $cfg "$N" "$elapsed" >>"$EVIDENCE/perf/runs.tsv"
      say "perf $cfg$rep: ${elapsed} s"
    done
  done
fi

if phase bpf; then
  mkdir -p "$EVIDENCE/bpf"
  rm -f -- "$EVIDENCE"/bpf/[AB][0-9]*.bt*
  probes=$(printf 'tracepoint:xfs:%s,' "${TPS[@]}")
  for rep in $(seq 1 "$REPS"); do
    for cfg in A B; do
      fresh $cfg
      bt "$EVIDENCE/bpf/$cfg$rep.bt" -c "${WL[*]}" -e "
        ${probes%,} /args->dev == $EV_DEV && pid == cpid/ { @own[probe] = count(); }
        ${probes%,} /args->dev == $EV_DEV && pid != cpid/ { @other[probe, comm] = count(); }"
      say "bpf $cfg$rep done"
    done
  done
fi
ev_release
python3 "$CASE_DIR/figures.py" "$EVIDENCE" "$N" | tee "$EVIDENCE/truth.md"
