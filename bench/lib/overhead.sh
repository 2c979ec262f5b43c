# shellcheck shell=bash
# Sourced by bench/run: workload throughput untraced and under each tracer,
# side by side in one run. Each round runs every (workload, configuration)
# on a fresh RAM-disk XFS, the configurations in an order that rotates per
# round so machine drift hits all of them.
#
# Workloads: create (fscost-workload) and fs_mark, with THREADS threads, each
# in its own directory (DIRS=private: fs_mark with one -d per thread, as XFS
# developers run it) or all in one (DIRS=shared). Configurations:
# untraced, fscost (default probes), fscost-all (--probes all), perf
# (perf record -a -g at fscost's 997 Hz), perflock (perf lock record -a);
# with --baseline, fscost-baseline (that build's default probes).

# workload_cmd KIND: the workload's command line on the mounted RAM disk.
workload_cmd() {
  local i
  W=()
  case "$1" in
    create) W=("$WORKLOAD" "$RD_MNT" --workload create --files "$CREATE_FILES"
               --threads "$THREADS" --dirs "$DIRS") ;;
    fs_mark)
      W=(fs_mark)
      if [ "$DIRS" = shared ]; then
        W+=(-d "$RD_MNT/shared" -t "$THREADS")
      else
        for ((i = 0; i < THREADS; i++)); do W+=(-d "$RD_MNT/$i"); done
      fi
      W+=(-n "$FSMARK_FILES" -s 0 -S 0 -k -L 1) ;;
  esac
}

# tracer_cmd CONFIG: the tracer's command line, ending where the workload's
# starts.
tracer_cmd() {
  case "$1" in
    untraced) T=() ;;
    fscost) T=("$FSCOST" record -o "$work/p.profile" --) ;;
    fscost-all) T=("$FSCOST" record -o "$work/p.profile" --probes all --) ;;
    fscost-baseline) T=("$BASELINE" record -o "$work/p.profile" --) ;;
    perf) T=(perf record -q -a -g -F 997 -o "$work/perf.data" --) ;;
    perflock) T=(perf lock record -q -a -o "$work/perf.data" --) ;;
    *) echo "unknown configuration $1" >&2; exit 2 ;;
  esac
}

# overhead_run KIND CONFIG: one run on a fresh filesystem; prints parse_run's
# row. fs_mark writes its log into the current directory, hence the cd.
overhead_run() {
  workload_cmd "$1"
  tracer_cmd "$2"
  ramdisk_fresh
  if ! (cd "$work" && "${RUSAGE[@]}" "$work/outer.json" "${T[@]}" \
          "${RUSAGE[@]}" "$work/inner.json" "${W[@]}" >"$work/out" 2>"$work/log"); then
    echo "overhead: $1 under $2 failed:" >&2
    cat "$work/log" "$work/out" >&2
    exit 1
  fi
  ramdisk_umount
  rm -f "$work/p.profile" "$work/perf.data"
  python3 "$LIB/parse_run.py" "$1" "$work/out" "$work/inner.json" "$work/outer.json"
}

bench_overhead() {
  echo "## Overhead"
  echo
  need_root overhead || return 0
  need_exe overhead "$FSCOST" "$WORKLOAD" fs_mark perf || return 0
  local configs kinds nc r i k c row
  IFS=, read -r -a configs <<<"untraced,$CONFIGS"
  # --baseline: the baseline build's default probes beside the current one's.
  if [ -n "$BASELINE" ]; then configs+=(fscost-baseline); fi
  kinds=(create fs_mark)
  nc=${#configs[@]}
  : >"$work/runs.tsv"
  for ((r = 0; r < ROUNDS; r++)); do
    for k in "${kinds[@]}"; do
      for ((i = 0; i < nc; i++)); do
        c=${configs[$(((i + r) % nc))]}
        row=$(overhead_run "$k" "$c")
        echo "$k $c $r $row" >>"$work/runs.tsv"
      done
    done
  done
  python3 "$LIB/overhead_table.py" "$work/runs.tsv"
  workload_cmd create
  echo "create: \`$(show_cmd "${W[@]}")\`"
  workload_cmd fs_mark
  echo "fs_mark: \`$(show_cmd "${W[@]}")\` (run in a temporary directory: it writes fs_log.txt)"
  echo
  echo "Tracers: fscost \`record -o P --\`, fscost-all \`record -o P --probes all --\`," \
       "perf \`record -q -a -g -F 997 -o D --\`, perflock \`lock record -q -a -o D --\`;" \
       "${BASELINE:+fscost-baseline: $BASELINE_LABEL \`record -o P --\`;}" \
       "each run under bench/lib/rusage.py, and the workload under its own rusage.py."
  echo "Mount: \`mkfs.xfs -f -q\` of a loop device over a 2 GiB file in /dev/shm, fresh per run."
  echo
}
