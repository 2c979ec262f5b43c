#!/usr/bin/env bash
# docs/CASES.md case 2, the README demo's mechanism: Debian's mkfs.xfs
# -m rmapbt=0 (A) vs -m rmapbt=1 (B) on a 4 GiB RAM disk; fs_mark -n NF
# -s 4096 -t 2 (two threads, one directory, no fsync), then a sync of the
# filesystem inside the measured window (else the allocations, and all
# rmap work, would come after it). Phases, each over interleaved runs on
# fresh filesystems:
#   time  GNU time on fs_mark+sync, system-wide sys time, fs_mark's files/s
#   perf  perf record -a -g, stackcollapse-perf.pl: CPU by comm and family,
#         the rmap work's callers, the parent directory's rwsem spin (§2.3)
#   bpf   bpftrace: rmap, transaction and log-grant events per file, and
#         the ENOSPC flushes that make the 1 GiB recipe misleading (§2.0)
#   lock  bpftrace on lock:contention_begin/end: the AGF buffer semaphore
#         waits, and what the tracepoint sees of the directory's rwsem
# and prints the per-file table CASES.md quotes. SIZE=1G shows §2.0.
#   NF (40000 per thread), PHASES ("time perf bpf lock"), REPS_TIME (4),
#   REPS_PERF (3), REPS_BPF (2), REPS_LOCK (2), SIZE (4G), EVIDENCE
set -euo pipefail
# shellcheck source=bench/cases/lib.sh
. "$(dirname "$0")/../lib.sh"
NF=${NF:-40000} PHASES=${PHASES:-time perf bpf lock} SIZE=${SIZE:-4G}
REPS_TIME=${REPS_TIME:-4} REPS_PERF=${REPS_PERF:-3} REPS_BPF=${REPS_BPF:-2} REPS_LOCK=${REPS_LOCK:-2}
TPS=(xfs_create xfs_rmap_map xfs_rmap_convert xfs_rmap_defer xfs_rmap_unmap xfs_trans_commit
  xfs_trans_roll xfs_defer_trans_roll xfs_log_grant_sleep xfs_cil_whiteout_mark)
FAMILIES='xfs_rmap_.*,xfs_rmapbt_.*,xfs_btree_.*,xfs_defer_.*,xfs_trans_.*,xlog_cil_.*,wb_workfn'
FAMILIES+=',xfs_bmapi_convert_delalloc,xfs_end_io,xfs_iomap_write_unwritten,xlog_grant_head_wait,xfs_buf_lock'

truth_init
need "$MKFS_XFS" "apt-get install xfsprogs"
need fs_mark "apt-get install fsmark"
need /usr/bin/time "apt-get install time"
if phase perf; then need perf "apt-get install linux-perf"; need_flamegraph; fi
if phase bpf || phase lock; then need bpftrace "apt-get install bpftrace"; fi

# fresh CFG: a new filesystem and the run's workload script ($TMP/wl.sh,
# run as /bin/sh SCRIPT: bpftrace 0.17's -c executes only ELF files).
fresh() {
  local rmapbt=0
  if [ "$1" = B ]; then rmapbt=1; fi
  ev_fresh "$SIZE" "$MKFS_XFS" -f -m rmapbt=$rmapbt
  mkdir "$EV_MNT/d"
  printf '#!/bin/sh\ncd %q || exit 1\nfs_mark -d %q -n %s -s 4096 -t 2 -S 0 -k >%q 2>&1 || exit 1\nexec sync -f %q\n' \
    "$TMP" "$EV_MNT/d" "$NF" "$TMP/fsmark.out" "$EV_MNT" >"$TMP/wl.sh"
}

if phase time; then
  printf 'rep\tcfg\tfiles\treal_s\tuser_s\tsys_s\tsys_us_per_file\tsyswide_sys_us_per_file\tfsmark_files_per_s\n' \
    >"$EVIDENCE/time.tsv"
  for rep in $(seq 1 "$REPS_TIME"); do
    for cfg in A B; do
      fresh $cfg
      s0=$(stat_sys)
      /usr/bin/time -o "$TMP/time" -f "%e %U %S" /bin/sh "$TMP/wl.sh"
      s1=$(stat_sys)
      n=$(files_in "$EV_MNT/d")
      read -r re us sy <"$TMP/time"
      fps=$(awk '$2 ~ /^[0-9]+$/ && NF == 5 {print $4}' "$TMP/fsmark.out")
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rep" $cfg "$n" "$re" "$us" "$sy" \
        "$(python3 -c "print('%.3f' % ($sy * 1e6 / $n))")" \
        "$(python3 -c "print('%.3f' % (($s1 - $s0) * 1e6 / $(getconf CLK_TCK) / $n))")" "$fps" >>"$EVIDENCE/time.tsv"
      say "time $cfg$rep: $n files, $re s"
    done
  done
fi

if phase perf; then
  mkdir -p "$EVIDENCE/perf"
  rm -f -- "$EVIDENCE"/perf/[AB][0-9]*.folded
  PERF_REC+=(-a)
  printf 'rep\tcfg\tfiles\treal_s\tuser_s\tsys_s\n' >"$EVIDENCE/perf/runs.tsv"
  for rep in $(seq 1 "$REPS_PERF"); do
    for cfg in A B; do
      fresh $cfg
      perf_folded "$EVIDENCE/perf/$cfg$rep" /usr/bin/time -o "$TMP/time" -f "%e %U %S" /bin/sh "$TMP/wl.sh"
      printf '%s\t%s\t%s\t%s\n' "$rep" $cfg "$(files_in "$EV_MNT/d")" "$(tr ' ' '\t' <"$TMP/time")" \
        >>"$EVIDENCE/perf/runs.tsv"
      say "perf $cfg$rep done"
    done
  done
  python3 "$CASES_DIR/analyze.py" "$EVIDENCE/perf" "$FAMILIES" >"$EVIDENCE/perf/analyze.txt"
  python3 "$CASES_DIR/callers.py" "$EVIDENCE/perf" xfs_rmap_finish_one 9 >"$EVIDENCE/perf/callers-rmap.txt"
  python3 "$CASES_DIR/callers.py" "$EVIDENCE/perf" rwsem_spin_on_owner 9 >"$EVIDENCE/perf/callers-spin.txt"
fi

if phase bpf; then
  mkdir -p "$EVIDENCE/bpf"
  rm -f -- "$EVIDENCE"/bpf/[AB][0-9]*.bt*
  for rep in $(seq 1 "$REPS_BPF"); do
    for cfg in A B; do
      fresh $cfg
      probes=$(printf 'tracepoint:xfs:%s,' "${TPS[@]}")
      # Writeback queued from xfs_flush_inodes_worker is the ENOSPC flush
      # of buffered writes (§2.0); the final sync queues its own.
      bt "$EVIDENCE/bpf/$cfg$rep.bt" -c "/bin/sh $TMP/wl.sh" -e "
        ${probes%,} /args->dev == $EV_DEV/ { @[probe, comm] = count(); }
        tracepoint:writeback:writeback_queue { @wb_queue[kstack(8)] = count(); }"
      echo "files $(files_in "$EV_MNT/d")" >>"$EVIDENCE/bpf/$cfg$rep.bt"
      say "bpf $cfg$rep done"
    done
  done
fi

if phase lock; then
  mkdir -p "$EVIDENCE/lock"
  rm -f -- "$EVIDENCE"/lock/[AB][0-9]*.bt*
  for rep in $(seq 1 "$REPS_LOCK"); do
    for cfg in A B; do
      fresh $cfg
      # flags: SPIN 1, READ 2, WRITE 4, MUTEX 32; 0 is a semaphore.
      bt "$EVIDENCE/lock/$cfg$rep.bt" -c "/bin/sh $TMP/wl.sh" -e '
        tracepoint:lock:contention_begin { @t0[tid] = nsecs; @fl[tid] = args->flags; @st[tid] = kstack(12); }
        tracepoint:lock:contention_end /@t0[tid]/ {
          @n[@fl[tid], @st[tid]] = count(); @ns[@fl[tid], @st[tid]] = sum(nsecs - @t0[tid]);
          delete(@t0[tid]); delete(@fl[tid]); delete(@st[tid]); }
        END { clear(@t0); clear(@fl); clear(@st); }'
      echo "files $(files_in "$EV_MNT/d")" >>"$EVIDENCE/lock/$cfg$rep.bt"
      say "lock $cfg$rep done"
    done
  done
  python3 "$CASE_DIR/locksum.py" "$EVIDENCE"/lock/[AB][0-9]*.bt >"$EVIDENCE/lock/locksum.txt"
fi
ev_release
python3 "$CASE_DIR/figures.py" "$EVIDENCE" | tee "$EVIDENCE/truth.md"
