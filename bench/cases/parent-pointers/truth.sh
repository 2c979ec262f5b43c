#!/usr/bin/env bash
# docs/CASES.md case 1: -n parent=0 (A) vs -n parent=1 (B), both
# -i exchange=1, made by a mkfs.xfs >= 6.12. The workload (WL) is
# fsstress -z -f creat=1 -n N -p 2 (two processes, a directory each; case 1)
# or fs_mark -n N -s 0 -t 2 (two threads, one directory; case 1b). Phases,
# each over interleaved runs on fresh filesystems:
#   time  GNU time on the workload and system-wide sys time (/proc/stat)
#   bpf   bpftrace: XFS transaction, defer and xattr events per create
#   perf  perf record -a -g, stackcollapse-perf.pl, then the A/B arithmetic
#         (analyze.py, children.py, buckets.py; reports in the evidence)
#   locks bpftrace on lock:contention_begin/end and sched_switch of the
#         workload's threads: lock waits per create by lock and flags
#         (agcount/analyze.py's locks.txt; the contention verdict's truth)
# and prints the per-create table CASES.md quotes.
#   WL (fsstress), N (50000 per process; fs_mark: 20000 per thread),
#   PHASES ("time bpf perf"), REPS_TIME (5), REPS_BPF (2), REPS_PERF (3),
#   SIZE (1G), EVIDENCE (each WL in its own subdirectory)
set -euo pipefail
# shellcheck source=bench/cases/lib.sh
. "$(dirname "$0")/../lib.sh"
WL=${WL:-fsstress} PHASES=${PHASES:-time bpf perf} SIZE=${SIZE:-1G}
REPS_TIME=${REPS_TIME:-5} REPS_BPF=${REPS_BPF:-2} REPS_PERF=${REPS_PERF:-3}
case $WL in
  fsstress) N=${N:-50000} ;;
  fs_mark) N=${N:-20000} ;;
  *) die "WL is fsstress or fs_mark, not $WL" ;;
esac
OUT=$EVIDENCE/$WL
TPS=(xfs_create xfs_trans_alloc xfs_trans_commit xfs_trans_roll xfs_trans_dup xfs_trans_cancel
  xfs_defer_finish xfs_defer_trans_roll xfs_defer_create_intent xfs_defer_finish_item
  xfs_defer_relog_intent xfs_attr_sf_addname xfs_attr_sf_add xfs_attr_sf_create xfs_attr_leaf_add
  xfs_cil_whiteout_mark xfs_log_reserve xfs_log_regrant xfs_log_ticket_regrant
  xfs_log_ticket_ungrant xfs_rmap_map xfs_rmap_defer)
# The exclusive split of case 1(d): each sample to the deepest frame matching one of these.
BUCKETS='xlog_cil_commit,xfs_attri_.*|xfs_attrd_.*,list_sort,xfs_attr_finish_item,xlog_cil_push_work'
BUCKETS+=',xlog_cil_cleanup_whiteouts,xfs_dialloc,xfs_trans_dup|xfs_log_regrant,xfs_parent_.*'
FAMILIES='xfs_attr_.*,xfs_parent_.*,xfs_defer_.*,xlog_cil_.*,xfs_trans_.*,xlog_cil_commit,xfs_trans_roll'

truth_init
need_xfsprogs_612
need /usr/bin/time "apt-get install time"
if [ "$WL" = fsstress ]; then need "$FSSTRESS" "build xfstests; set FSSTRESS"; else need fs_mark "apt-get install fsmark"; fi
if phase bpf || phase locks; then need bpftrace "apt-get install bpftrace"; fi
if phase perf; then need perf "apt-get install linux-perf"; need_flamegraph; fi
mkdir -p "$OUT"

# workload REP: this run's workload as a script (bpftrace 0.17's -c runs
# it as /bin/sh SCRIPT: it executes only ELF files). fs_mark writes its
# log in its working directory, so it runs in the scratch one.
workload() {
  if [ "$WL" = fsstress ]; then
    printf '#!/bin/sh\nexec %q -z -f creat=1 -n %s -p 2 -d %q -s %s >/dev/null\n' \
      "$FSSTRESS" "$N" "$EV_MNT/d" "$1"
  else
    printf '#!/bin/sh\ncd %q && exec fs_mark -d %q -n %s -s 0 -t 2 -S 0 -k >/dev/null\n' \
      "$TMP" "$EV_MNT/d" "$N"
  fi >"$TMP/wl.sh"
  chmod +x "$TMP/wl.sh"
}

fresh() {   # fresh CFG REP
  local parent=0
  if [ "$1" = B ]; then parent=1; fi
  ev_fresh "$SIZE" "$MKFS_XFS_NEW" -f -i exchange=1 -n parent=$parent
  mkdir "$EV_MNT/d"
  workload "$2"
}

if phase time; then
  printf 'rep\tcfg\tcreates\treal_s\tuser_s\tsys_s\tsys_us_per_create\tsyswide_sys_us_per_create\n' >"$OUT/time.tsv"
  for rep in $(seq 1 "$REPS_TIME"); do
    for cfg in A B; do
      fresh $cfg "$rep"
      s0=$(stat_sys)
      /usr/bin/time -o "$TMP/time" -f "%e %U %S" "$TMP/wl.sh"
      s1=$(stat_sys)
      n=$(files_in "$EV_MNT/d")
      read -r re us sy <"$TMP/time"
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rep" $cfg "$n" "$re" "$us" "$sy" \
        "$(python3 -c "print('%.3f' % ($sy * 1e6 / $n))")" \
        "$(python3 -c "print('%.3f' % (($s1 - $s0) * 1e6 / $(getconf CLK_TCK) / $n))")" >>"$OUT/time.tsv"
      say "time $cfg$rep: $n creates, sys $sy s"
    done
  done
fi

if phase bpf; then
  mkdir -p "$OUT/bpf"
  rm -f -- "$OUT"/bpf/[AB][0-9]*.bt*
  comm=$WL
  for rep in $(seq 1 "$REPS_BPF"); do
    for cfg in A B; do
      fresh $cfg "$rep"
      probes=$(printf 'tracepoint:xfs:%s,' "${TPS[@]}")
      # Keyed by comm itself: bpftrace 0.17 made garbage keys of a string ternary.
      bt "$OUT/bpf/$cfg$rep.bt" -c "/bin/sh $TMP/wl.sh" -e "${probes%,} /args->dev == $EV_DEV/ { @[probe, comm] = count(); }
        tracepoint:xfs:xfs_attr_defer_add /comm == \"$comm\"/ { @[probe, comm] = count(); }
        tracepoint:xfs:xfs_trans_commit /args->dev == $EV_DEV && comm == \"$comm\"/ { @commit_stack[kstack(7)] = count(); }
        tracepoint:xfs:xfs_defer_create_intent /args->dev == $EV_DEV/ { @intent_type[str(args->name)] = count(); }"
      echo "creates_on_disk $(files_in "$EV_MNT/d")" >>"$OUT/bpf/$cfg$rep.bt"
      say "bpf $cfg$rep done"
    done
  done
  python3 "$CASE_DIR/bpfsum.py" "$OUT/bpf" "$comm" >"$OUT/bpf/bpfsum.txt"
fi

if phase locks; then
  mkdir -p "$OUT/locks"
  rm -f -- "$OUT"/locks/[AB][0-9]*.bt.json*
  # agcount/locks.bt's maps, by the workload's name: fsstress forks its
  # processes, so -c's pid is not theirs.
  comm=$WL
  for rep in $(seq 1 "$REPS_BPF"); do
    for cfg in A B; do
      fresh $cfg "$rep"
      bt "$OUT/locks/$cfg$rep.bt.json" -q -f json -c "/bin/sh $TMP/wl.sh" -e "
        tracepoint:lock:contention_begin /comm == \"$comm\"/ {
          if (@lts[tid] == 0) { @lts[tid] = nsecs; @lst[tid] = kstack(perf, 30); }
          @lfl[tid] = args->flags; }
        tracepoint:lock:contention_end /@lts[tid]/ {
          \$d = nsecs - @lts[tid];
          @wait_ns[@lst[tid], @lfl[tid]] = sum(\$d); @wait_n[@lst[tid], @lfl[tid]] = count();
          @tot_wait_ns = sum(\$d); @tot_n = count();
          delete(@lts[tid]); delete(@lst[tid]); delete(@lfl[tid]); }
        END { clear(@lts); clear(@lst); clear(@lfl); }"
      say "locks $cfg$rep: $(files_in "$EV_MNT/d") creates"
    done
  done
  # Every run creates its N files a process (checked in the lines above).
  python3 "$CASES_DIR/agcount/analyze.py" "$OUT/locks" $((2 * N)) >/dev/null
  say "lock waits per create: $OUT/locks/locks.txt"
fi

if phase perf; then
  mkdir -p "$OUT/perf"
  rm -f -- "$OUT"/perf/[AB][0-9]*.folded
  PERF_REC+=(-a)
  printf 'rep\tcfg\tcreates\treal_s\tuser_s\tsys_s\n' >"$OUT/perf/runs.tsv"
  for rep in $(seq 1 "$REPS_PERF"); do
    for cfg in A B; do
      fresh $cfg "$rep"
      perf_folded "$OUT/perf/$cfg$rep" /usr/bin/time -o "$TMP/time" -f "%e %U %S" "$TMP/wl.sh"
      printf '%s\t%s\t%s\t%s\n' "$rep" $cfg "$(files_in "$EV_MNT/d")" "$(tr ' ' '\t' <"$TMP/time")" >>"$OUT/perf/runs.tsv"
      say "perf $cfg$rep done"
    done
  done
  python3 "$CASES_DIR/analyze.py" "$OUT/perf" "$FAMILIES" >"$OUT/perf/analyze.txt"
  python3 "$CASES_DIR/children.py" "$OUT/perf" xfs_trans_roll >"$OUT/perf/children-xfs_trans_roll.txt"
  python3 "$CASES_DIR/buckets.py" "$OUT/perf" "$BUCKETS" >"$OUT/perf/buckets.txt"
fi
ev_release
python3 "$CASE_DIR/figures.py" "$OUT" "$WL" | tee "$OUT/truth.md"
