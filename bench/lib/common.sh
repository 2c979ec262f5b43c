# shellcheck shell=bash
# Sourced by bench/run: paths, checks and helpers shared by the benchmarks.
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT_DIR=$(dirname "$BENCH_DIR")
BUILD=${BUILD:-$ROOT_DIR/build}
BUILD=$(cd "$BUILD" 2>/dev/null && pwd || echo "$BUILD")  # runs cd elsewhere
FSCOST=$BUILD/userspace/fscost
WORKLOAD=$BUILD/userspace/fscost-workload
ANALYSIS_SPEED=$BUILD/bench/analysis_speed
LIB=$BENCH_DIR/lib
# rusage.py OUT CMD...: CMD's CPU, peak RSS and wall time, as JSON.
RUSAGE=(python3 "$LIB/rusage.py")

# A benchmark that cannot run here says why and is skipped; under CI the
# machine can run everything, so a skip is a failure.
skip() {
  echo "skipped: $*"
  echo
}

need_root() {
  [ "$(id -u)" -eq 0 ] && return 0
  skip "$1 needs root (BPF, loop devices, mount)"
  return 1
}

# need_exe PART FILE...: each FILE is a built binary or a command on PATH.
need_exe() {
  local f hint
  for f in "${@:2}"; do
    [ -x "$f" ] || command -v "$f" >/dev/null && continue
    case "$f" in
      "$BUILD"/*) hint="build first: scripts/build.sh, or set BUILD" ;;
      fs_mark) hint="apt-get install fsmark" ;;
      perf) hint="apt-get install linux-perf" ;;
      *) hint="install it" ;;
    esac
    skip "$1 needs $f ($hint)"
    return 1
  done
}

# The machine the numbers come from.
machine() {
  local virt cpu mem
  virt=$(systemd-detect-virt 2>/dev/null || true)
  cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
  mem=$(awk '/^MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)
  echo "$(nproc) CPUs ($cpu), $mem, Linux $(uname -r)${virt:+, virtualized: $virt}," \
       "load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
}

# show_cmd ARGS...: a command line as the docs print it: paths relative to
# the source tree, the scratch mount as MNT.
show_cmd() {
  local s="$*"
  s=${s//$ROOT_DIR\//}
  [ -n "${RD_MNT:-}" ] && s=${s//$RD_MNT/MNT}
  echo "$s"
}
