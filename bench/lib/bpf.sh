# shellcheck shell=bash
# Sourced by bench/run: what fscost's BPF programs cost per event and per
# created file, exactly, from the kernel's own accounting
# (kernel.bpf_stats_enabled: run_cnt and run_time_ns per program, which
# `fscost record --bpf-stats` stores in the profile). Each round records
# BPF_FILES creates with THREADS threads on a fresh RAM-disk XFS with the
# default probes and with --probes all; with --baseline FSCOST (another
# build's fscost, or a revision: bench/lib/baseline.sh) the same runs of
# that build are interleaved, so a change is paired against the previous
# build in one run. So are the floor's runs: bench/empty_hooks, an empty
# program on each hook of the same probe set.

EMPTY_HOOKS=$BUILD/bench/empty_hooks

# rotate R: stdin's lines, the first R moved to the end (modulo their count).
rotate() {
  local lines
  mapfile -t lines
  local n=${#lines[@]} i
  for ((i = 0; i < n; i++)); do echo "${lines[$(((i + $1) % n))]}"; done
}

# builds [EXTRA...]: "label=fscost" of each build compared, one a line.
builds() {
  echo "current=$FSCOST"
  if [ -n "$BASELINE" ]; then echo "baseline=$BASELINE"; fi
  if [ $# -gt 0 ]; then printf '%s\n' "$@"; fi
}

# round_builds R [EXTRA...]: the builds in round R's order (the order
# rotates, so no build always runs first).
round_builds() {
  builds "${@:2}" | rotate "$1"
}

bpf_run() {  # bpf_run BUILD-LABEL FSCOST PROBES ROUND
  local label=$1 exe=$2 probes=$3 rnd=$4
  ramdisk_fresh
  if [ "$label" = empty ]; then
    if ! "$EMPTY_HOOKS" --probes "$probes" -- "$WORKLOAD" "$RD_MNT" --workload create \
           --files "$BPF_FILES" --threads "$THREADS" --dirs "$DIRS" >"$work/b.out" 2>"$work/b.log"; then
      echo "bpf: empty programs, --probes $probes, failed:" >&2
      cat "$work/b.log" >&2
      exit 1
    fi
    ramdisk_umount
    python3 "$LIB/bpf_table.py" empty-row "$probes" "$rnd" "$work/b.out" "$work/b.log" \
      >>"$work/bpf.jsonl"
    return
  fi
  if ! "$exe" record -q --bpf-stats --probes "$probes" -o "$work/b.profile" --fs "$RD_MNT" -- \
         "$WORKLOAD" "$RD_MNT" --workload create --files "$BPF_FILES" --threads "$THREADS" \
         --dirs "$DIRS" >"$work/b.out" 2>"$work/b.log"; then
    echo "bpf: $label --probes $probes failed:" >&2
    cat "$work/b.log" >&2
    exit 1
  fi
  ramdisk_umount
  python3 "$LIB/bpf_table.py" row "$label" "$probes" "$rnd" "$work/b.profile" >>"$work/bpf.jsonl"
  rm -f "$work/b.profile"
}

bench_bpf() {
  echo "## BPF cost per event (bpf_stats)"
  echo
  need_root bpf || return 0
  need_exe bpf "$FSCOST" "$WORKLOAD" || return 0
  need_exe bpf "$EMPTY_HOOKS" || return 0
  local r p e order
  : >"$work/bpf.jsonl"
  for ((r = 0; r < ROUNDS; r++)); do
    for p in default all; do
      mapfile -t order < <(round_builds "$r" "empty=$EMPTY_HOOKS")
      for e in "${order[@]}"; do
        bpf_run "${e%%=*}" "${e#*=}" "$p" "$r"
      done
    done
  done
  python3 "$LIB/bpf_table.py" table "$work/bpf.jsonl"
  local wl
  wl=$(show_cmd "$WORKLOAD" MNT --workload create --files "$BPF_FILES" --threads "$THREADS" \
         --dirs "$DIRS")
  echo "command: \`$(show_cmd "$FSCOST" record --bpf-stats --probes P -o F --fs MNT --) $wl\`," \
       "$ROUNDS rounds, a fresh \`mkfs.xfs -f -q\` RAM disk per run;" \
       "ns per file = the programs' run_time_ns over the files created (each run's" \
       "create count), medians over rounds.${BASELINE:+ Baseline: $BASELINE_LABEL,}" \
       "${BASELINE:+\`$(show_cmd "$BASELINE")\`, interleaved with the current build.}" \
       "The floor: \`$(show_cmd "$EMPTY_HOOKS") --probes P -- $wl\` in the same rounds, its" \
       "programs' run_time_ns (bpf_stats) over its creates."
  echo
  bench_same_counts
  bpf_floor
  bench_fixed_cost
}

# "No measurement changes": with --baseline, one mixed workload (create,
# write, fsync, link, rename, unlink, mkdir, rmdir, symlink; deterministic
# per thread) recorded by each
# build, fresh filesystem each, and their per-operation counts set side by
# side: a tracer change that speeds a program up must not change what it counts.
bench_same_counts() {
  [ -n "$BASELINE" ] || return 0
  local e
  for e in "current=$FSCOST" "baseline=$BASELINE"; do
    ramdisk_fresh
    if ! "${e#*=}" record -q -o "$work/m-${e%%=*}.profile" --fs "$RD_MNT" -- "$WORKLOAD" \
           "$RD_MNT" --workload mixed --files "$MIX_FILES" --threads "$THREADS" \
           >/dev/null 2>"$work/m.log"; then
      echo "bpf: the mixed recording of ${e%%=*} failed:" >&2
      cat "$work/m.log" >&2
      exit 1
    fi
    ramdisk_umount
  done
  python3 "$LIB/bpf_table.py" same-counts "$work/m-current.profile" "$work/m-baseline.profile"
  echo "command: \`FSCOST record -q -o F --fs MNT -- $(show_cmd "$WORKLOAD") MNT --workload mixed" \
       "--files $MIX_FILES --threads $THREADS\` with each build, a fresh filesystem each."
  echo
}

# The floor no program can go under: what attaching any BPF program to
# sys_enter and sys_exit costs every syscall (the tracepoints' dispatch,
# not counted in run_time_ns), from an empty tp_btf pair.
bpf_floor() {
  local empty=$BUILD/bench/empty_syscall_tp
  [ -x "$empty" ] || { echo "floor: skipped, $empty not built"; echo; return 0; }
  command -v perf >/dev/null || { echo "floor: skipped, no perf"; echo; return 0; }
  local perf_exe r un em loops=$SYSCALL_LOOPS
  perf_exe=$(command -v perf)
  : >"$work/floor.tsv"
  "$empty" --bpf-stats -- "$perf_exe" bench syscall basic --loop "$loops" >/dev/null \
    2>"$work/floor.stats"
  local e secs order
  : >"$work/untracked.tsv"
  for ((r = 0; r < ROUNDS; r++)); do
    un=$("$perf_exe" bench syscall basic --loop "$loops" | awk '/usecs\/op/ {print $1}')
    em=$("$empty" -- "$perf_exe" bench syscall basic --loop "$loops" |
           awk '/usecs\/op/ {print $1}')
    echo "$un $em" >>"$work/floor.tsv"
    # An untracked process's syscalls while fscost records another: what
    # everything else on the machine pays.
    mapfile -t order < <(round_builds "$r")
    for e in "${order[@]}"; do
      secs=$(python3 -c "print(max(2.0, 8 * $un * $loops / 1e6))")
      "${e#*=}" record -q -o "$work/u.profile" -- sleep "$secs" &
      sleep 1
      echo "${e%%=*} $r $un $("$perf_exe" bench syscall basic --loop "$loops" |
                             awk '/usecs\/op/ {print $1}')" >>"$work/untracked.tsv"
      wait
    done
  done
  python3 "$LIB/bpf_table.py" floor "$work/floor.tsv" "$work/floor.stats" "$work/untracked.tsv"
  echo "floor command: \`perf bench syscall basic --loop $loops\` untraced, under" \
       "\`$(show_cmd "$empty")\` (two empty tp_btf programs on sys_enter and sys_exit)," \
       "and beside \`fscost record -- sleep S\` of each build (untracked path), interleaved," \
       "$ROUNDS rounds."
  echo
}

# What every recording and every compare run pays besides the workload:
# `fscost record -- true` (feature probe, load, attach, detach, kallsyms,
# writing the profile), and a whole compare with the workload's own share
# of its wall time (the built-in workload's elapsed_s + sync_s per run),
# against the same 10 workload runs alone: the compare's argv
# (compare/options.cpp workload_argv) on a fresh filesystem of each side's
# configuration and size, untraced, A and B alternating.
bench_fixed_cost() {
  local r e order
  : >"$work/fixed.tsv"
  for ((r = 0; r < ROUNDS; r++)); do
    mapfile -t order < <(round_builds "$r")
    for e in "${order[@]}"; do
      "${RUSAGE[@]}" "$work/rt.json" "${e#*=}" record -q -o "$work/t.profile" -- true \
        >/dev/null 2>"$work/rt.log" || { cat "$work/rt.log" >&2; exit 1; }
      echo "record ${e%%=*} $r $(wall_of "$work/rt.json")" >>"$work/fixed.tsv"
      rm -rf "$work/cmp"
      "${RUSAGE[@]}" "$work/cmp.json" "${e#*=}" compare -q --runs "$CMP_RUNS" --files "$CMP_FILES" \
        --a "mkfs: -m rmapbt=0" --b "mkfs: -m rmapbt=1" --size 512M -o "$work/cmp" \
        >/dev/null 2>"$work/cmp.log" || { cat "$work/cmp.log" >&2; exit 1; }
      python3 "$LIB/bpf_table.py" compare-row "${e%%=*}" "$r" "$work/cmp.json" \
        "$work/cmp/summary.json" >>"$work/fixed.tsv"
    done
    echo "alone - $r $(workload_alone)" >>"$work/fixed.tsv"
  done
  python3 "$LIB/bpf_table.py" fixed "$work/fixed.tsv"
  echo "commands: \`$(show_cmd "$FSCOST") record -q -o F -- true\`;" \
       "\`$(show_cmd "$FSCOST") compare -q --runs $CMP_RUNS --files $CMP_FILES --a 'mkfs: -m rmapbt=0'" \
       "--b 'mkfs: -m rmapbt=1' --size 512M -o D\` (each build's default warm-up: since issue 43" \
       "a short run per side and the first-run rule, before it one full run per side; RAM disk);" \
       "alone: \`$(show_cmd "$WORKLOAD") MNT --workload create --files $CMP_FILES --threads 1" \
       "--syncfs\` $CMP_RUNS times on each of \`mkfs.xfs -f -q -m rmapbt=0|1 -d size=512m\`" \
       "(a fresh filesystem per run, not timed), the sum of their walls; by hand: the same with" \
       "each run's \`mkfs.xfs -f -q -K\`, mount and umount timed too (the run by its own wall);" \
       "wall times from bench/lib/rusage.py, $ROUNDS rounds, builds interleaved."
  echo
}

wall_of() {
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["wall_s"])' "$1"
}

# The sum of the wall times of the compare's measured runs, untraced; and
# of the same runs done by hand, each with its filesystem made and unmade
# (mkfs, mount, the run, umount): what the method costs before fscost.
workload_alone() {
  local i side sum=0 by_hand=0 t0 t1 w0 w1 wall
  for ((i = 0; i < CMP_RUNS; i++)); do
    for side in 0 1; do
      t0=$(date +%s.%N)
      ramdisk_fresh -K -m "rmapbt=$side" -d size=512m
      w0=$(date +%s.%N)
      "${RUSAGE[@]}" "$work/w.json" "$WORKLOAD" "$RD_MNT" --workload create --files "$CMP_FILES" \
        --threads 1 --syncfs >/dev/null 2>"$work/w.log" || { cat "$work/w.log" >&2; exit 1; }
      w1=$(date +%s.%N)
      ramdisk_umount
      t1=$(date +%s.%N)
      wall=$(wall_of "$work/w.json")
      sum=$(python3 -c "print($sum + $wall)")
      # rusage.py's own start and exit are not the method's: the run counts
      # with its own wall.
      by_hand=$(python3 -c "print($by_hand + ($t1 - $t0) - ($w1 - $w0) + $wall)")
    done
  done
  echo "$sum $by_hand"
}
