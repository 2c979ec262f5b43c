# shellcheck shell=bash
# Sourced by bench/run: what each tracer adds to one cheap syscall, the
# fixed cost a syscall-bound workload (create: two syscalls per file) pays.
# `perf bench syscall basic` times a loop of getppid(); it runs untraced,
# under an empty bpftrace program on raw_syscalls:sys_enter and sys_exit
# (what a bpftrace or bcc user pays to see every syscall: the classic
# perf-event tracepoint attach with an empty program), and under each tracer of the
# overhead benchmark. Rounds interleave the configurations.

syscall_tracer() {
  case "$1" in
    bpftrace-tp) T=(bpftrace -q -e
                       'tracepoint:raw_syscalls:sys_enter {} tracepoint:raw_syscalls:sys_exit {}'
                       -c) ;;
    *) tracer_cmd "$1" ;;
  esac
}

# syscall_run CONFIG: prints perf bench's µs per getppid() under CONFIG.
syscall_run() {
  local loops=$SYSCALL_LOOPS cmd
  syscall_tracer "$1"
  # bpftrace -c needs a path: "perf" can match both /usr/bin and /usr/sbin
  cmd=("$(command -v perf)" bench syscall basic --loop "$loops")
  local rc=0
  if [ "$1" = bpftrace-tp ]; then
    # bpftrace -c takes the command as one string
    "${T[@]}" "${cmd[*]}" >"$work/sys.out" 2>"$work/sys.log" </dev/null || rc=$?
  else
    "${T[@]}" "${cmd[@]}" >"$work/sys.out" 2>"$work/sys.log" </dev/null || rc=$?
  fi
  rm -f "$work/p.profile" "$work/perf.data"
  # A tracer that failed (a profile not written, perf record's error at exit)
  # makes its number meaningless, as in overhead_run.
  if [ "$rc" -ne 0 ] || ! awk '/usecs\/op/ {print $1; found=1} END {exit !found}' "$work/sys.out"; then
    echo "syscall: perf bench under $1 failed (exit $rc) or printed no result:" >&2
    cat "$work/sys.log" "$work/sys.out" >&2
    exit 1
  fi
}

bench_syscall() {
  echo "## Per-syscall cost"
  echo
  need_root syscall || return 0
  need_exe syscall "$FSCOST" perf bpftrace || return 0
  local configs nc r i c us
  IFS=, read -r -a configs <<<"untraced,bpftrace-tp,$CONFIGS"
  nc=${#configs[@]}
  : >"$work/syscall.tsv"
  for ((r = 0; r < ROUNDS; r++)); do
    for ((i = 0; i < nc; i++)); do
      c=${configs[$(((i + r) % nc))]}
      us=$(syscall_run "$c") || exit 1
      echo "$c $r $us" >>"$work/syscall.tsv"
    done
  done
  python3 "$LIB/syscall_table.py" "$work/syscall.tsv"
  echo "command: \`perf bench syscall basic --loop $SYSCALL_LOOPS\` (getppid in a loop)," \
       "untraced and under each tracer; bpftrace-tp is an empty" \
       "\`bpftrace -e 'tracepoint:raw_syscalls:sys_enter {} tracepoint:raw_syscalls:sys_exit {}'\`."
  echo
}
