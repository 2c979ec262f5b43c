#!/usr/bin/env bash
# docs/OTHER-FILESYSTEMS.md: ext4, btrfs and XFS under creates, each on a
# fresh 1 GiB RAM disk (mkfs.ext4 -F -E nodiscard, mkfs.btrfs -f -K,
# mkfs.xfs -f -K, default mounts), fs_mark -n N -s 0 -t T -S 0 -k (T
# threads, one directory, empty files). Phases:
#   time    GNU time, 1 thread, REPS_TIME runs per filesystem: sys µs/file
#   events  bpftrace (tp_gen.py): each filesystem's events per create, at
#           1 and 2 threads, by the creating task and the rest, then a sync
#   locks   bpftrace on lock:contention_begin/end (locks.bt.in), 2 threads:
#           contended locks by call site, addresses as offsets from the
#           parent directory's inode (and ext4's journal), lockpp.py
#   owners  perf record -a -g, 1 thread: which filesystem's text each
#           sampled frame is in, by address (fsranges.py, collapse2.py)
#   dio     (not by default) ext4, two threads writing O_DIRECT into holes
#           of one file (dio_one_file.c, compiled with cc): which lock waits
#   checkpoint (not by default) ext4 on 4 GiB, the seed table's 64-task
#           fsyncing fs_mark: the jbd2 checkpoint mutex (checkpoint_mutex.bt)
# and prints the tables the doc quotes; offsets are named from BTF when
# bpftool is there (btfoff.py).
#   FSS ("ext4 btrfs xfs"), N (20000 per thread), PHASES ("time events
#   locks owners", or "all"), REPS_TIME (3), DIO_N (40000 writes a
#   thread), CP_N (1000 files a task), EVIDENCE
set -euo pipefail
# shellcheck source=bench/cases/lib.sh
. "$(dirname "$0")/../lib.sh"
FSS=${FSS:-ext4 btrfs xfs} N=${N:-20000} PHASES=${PHASES:-time events locks owners} REPS_TIME=${REPS_TIME:-3}
DIO_N=${DIO_N:-40000} CP_N=${CP_N:-1000}
if [ "$PHASES" = all ]; then PHASES="time events locks owners dio checkpoint"; fi

truth_init
need fs_mark "apt-get install fsmark"
need /usr/bin/time "apt-get install time"
for fs in $FSS; do
  case $fs in
    ext4) need mkfs.ext4 "apt-get install e2fsprogs" ;;
    btrfs) need mkfs.btrfs "apt-get install btrfs-progs" ;;
    xfs) need "$MKFS_XFS" "apt-get install xfsprogs" ;;
    *) die "FSS holds ext4, btrfs or xfs, not $fs" ;;
  esac
done
if phase events || phase locks || phase dio || phase checkpoint; then need bpftrace "apt-get install bpftrace"; fi
if phase owners; then need perf "apt-get install linux-perf"; fi
if phase dio; then need cc "apt-get install gcc"; fi
if phase dio || phase checkpoint; then need mkfs.ext4 "apt-get install e2fsprogs"; fi

# fresh FS [SIZE]: a new filesystem of that type at $EV_MNT, with d/ in it.
fresh() {
  case $1 in
    ext4) ev_fresh "${2:-1G}" mkfs.ext4 -q -F -E nodiscard ;;
    btrfs) ev_fresh "${2:-1G}" mkfs.btrfs -q -f -K ;;
    xfs) ev_fresh "${2:-1G}" "$MKFS_XFS" -q -f -K ;;
  esac
  mkdir "$EV_MNT/d"
}

# workload THREADS [sync]: $TMP/wl.sh, fs_mark in the scratch directory
# (it writes its log there), then sync when asked. Run as /bin/sh SCRIPT
# (bpftrace 0.17's -c executes only ELF files).
workload() {
  printf '#!/bin/sh\ncd %q || exit 1\nfs_mark -d %q -n %s -s 0 -t %s -S 0 -k >%q 2>&1 || exit 1\n' \
    "$TMP" "$EV_MNT/d" "$N" "$1" "$TMP/fsmark.out" >"$TMP/wl.sh"
  if [ -n "${2:-}" ]; then printf 'exec sync -f %q\n' "$EV_MNT" >>"$TMP/wl.sh"; fi
}

if phase time; then
  printf 'fs\trep\tthreads\tfiles\treal_s\tuser_s\tsys_s\tsys_us_per_file\n' >"$EVIDENCE/time.tsv"
  for rep in $(seq 1 "$REPS_TIME"); do
    for fs in $FSS; do
      fresh "$fs"
      workload 1
      /usr/bin/time -o "$TMP/time" -f "%e %U %S" /bin/sh "$TMP/wl.sh"
      n=$(files_in "$EV_MNT/d")
      read -r re us sy <"$TMP/time"
      printf '%s\t%s\t1\t%s\t%s\t%s\t%s\t%s\n' "$fs" "$rep" "$n" "$re" "$us" "$sy" \
        "$(python3 -c "print('%.2f' % ($sy * 1e6 / $n))")" >>"$EVIDENCE/time.tsv"
      say "time $fs $rep: $n files, sys $sy s"
    done
  done
fi

if phase events; then
  mkdir -p "$EVIDENCE/events"
  for fs in $FSS; do
    for t in 1 2; do
      fresh "$fs"
      workload "$t" sync
      python3 "$CASE_DIR/tp_gen.py" "$fs" "$EV_DEV" >"$EVIDENCE/events/$fs.t$t.bt"
      bt "$EVIDENCE/events/$fs.t$t.txt" "$EVIDENCE/events/$fs.t$t.bt" -c "/bin/sh $TMP/wl.sh"
      echo "files $(files_in "$EV_MNT/d")" >>"$EVIDENCE/events/$fs.t$t.txt"
      say "events $fs, $t threads done"
    done
  done
fi

if phase locks; then
  mkdir -p "$EVIDENCE/locks"
  for fs in $FSS; do
    # Addresses as offsets from known bases: the parent directory's inode
    # always; on ext4 also the superblock's journal.
    base=""
    if [ "$fs" = ext4 ]; then
      # shellcheck disable=SC2016  # bpftrace's variables, not the shell's
      base='$sbi = (struct ext4_sb_info *)$nd->path.dentry->d_inode->i_sb->s_fs_info;
      @off_journal[args->flags, (int64)($la - (uint64)$sbi->s_journal)] = count();'
    fi
    python3 -c 'import sys; print(open(sys.argv[1]).read().replace("      BASES\n", sys.argv[2] + "\n"))' \
      "$CASE_DIR/locks.bt.in" "$base" >"$EVIDENCE/locks/$fs.bt"
    fresh "$fs"
    workload 2
    bt "$EVIDENCE/locks/$fs.t2.txt" "$EVIDENCE/locks/$fs.bt" -c "/bin/sh $TMP/wl.sh"
    python3 "$CASE_DIR/lockpp.py" "$EVIDENCE/locks/$fs.t2.txt" >"$EVIDENCE/locks/$fs.t2.table"
    say "locks $fs done"
  done
fi

if phase owners; then
  mkdir -p "$EVIDENCE/owners"
  python3 "$CASE_DIR/fsranges.py" "$EVIDENCE/owners/fsranges.json" >"$EVIDENCE/owners/fsranges.txt"
  for fs in $FSS; do
    fresh "$fs"
    workload 1
    perf record -q -a -g -F 4999 -o "$TMP/perf.data" -- /bin/sh "$TMP/wl.sh"
    perf script -F comm,tid,ip,sym -i "$TMP/perf.data" >"$TMP/perf.txt" 2>/dev/null
    rm -f -- "$TMP/perf.data"
    python3 "$CASE_DIR/collapse2.py" "$TMP/perf.txt" "$fs" "$EVIDENCE/owners/fsranges.json" \
      >"$EVIDENCE/owners/$fs.t1.txt"
    say "owners $fs done"
  done
fi

if phase dio; then
  mkdir -p "$EVIDENCE/dio"
  cc -O2 -pthread -o "$TMP/dio" "$CASE_DIR/dio_one_file.c"
  fresh ext4
  bt "$EVIDENCE/dio/ext4.txt" "$CASE_DIR/dio_locks.bt" -c "$TMP/dio $EV_MNT/d/f $DIO_N"
  say "dio done"
fi

if phase checkpoint; then
  mkdir -p "$EVIDENCE/checkpoint"
  fresh ext4 4G
  printf '#!/bin/sh\ncd %q || exit 1\nexec fs_mark -d%q -D5 -N100 -L1 -p5 -r5 -s4096 -w4096 -n%s -t64 >%q 2>&1\n' \
    "$TMP" "$EV_MNT/test" "$CP_N" "$TMP/fsmark.out" >"$TMP/wl.sh"
  bt "$EVIDENCE/checkpoint/ext4.txt" "$CASE_DIR/checkpoint_mutex.bt" -c "/bin/sh $TMP/wl.sh"
  say "checkpoint done"
fi
ev_release
if command -v bpftool >/dev/null; then
  bpftool btf dump file /sys/kernel/btf/vmlinux format raw >"$TMP/btf_raw.txt" 2>/dev/null || true
fi
BTF_RAW=$TMP/btf_raw.txt python3 "$CASE_DIR/figures.py" "$EVIDENCE" "$N" | tee "$EVIDENCE/truth.md"
