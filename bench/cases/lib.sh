# shellcheck shell=bash
# Sourced by bench/cases/*/truth.sh: what every case's peer-tool evidence
# needs. A truth.sh re-runs its case with perf, bpftrace, GNU time and
# FlameGraph's stackcollapse-perf.pl (never fscost), on a fresh RAM-disk
# filesystem per run, writes the raw data under $EVIDENCE and prints the
# figures docs/CASES.md quotes.
#
#   truth_init             root, $EVIDENCE made, cleanup trap set
#   need CMD HINT          CMD on PATH or an executable path; else skip (77)
#   need_workload          build/userspace/fscost-workload (or WORKLOAD_BIN)
#   need_flamegraph        FlameGraph's stackcollapse-perf.pl
#   ev_fresh SIZE MKFS...  a fresh filesystem on a loop device over a new
#                          image in /dev/shm, mounted at $EV_MNT ($EV_MOUNT_OPTS)
#   ev_release             unmount, detach, remove the image
#   perf_folded OUT CMD... perf record "${PERF_REC[@]}" CMD → OUT.folded
#   bt OUT ARGS...         bpftrace ARGS > OUT, stopping the case on its error
#   phase NAME             whether NAME is in $PHASES
#
# Peer tools' paths (environment): PEERS (/work/peers), MKFS_XFS (Debian's
# /sbin/mkfs.xfs, 6.1 in CASES.md), MKFS_XFS_NEW (a mkfs.xfs >= 6.12 for
# parent pointers, $PEERS/xfsprogs/mkfs/mkfs.xfs), FSSTRESS
# ($PEERS/xfstests/ltp/fsstress), FLAMEGRAPH ($PEERS/FlameGraph), BUILD or
# WORKLOAD_BIN. EVIDENCE defaults to $PEERS/evidence/<case>, outside the
# repository.

CASES_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT_DIR=$(cd "$CASES_DIR/../.." && pwd)
CASE_DIR=$(cd "$(dirname "$0")" && pwd)
CASE=$(basename "$CASE_DIR")
PEERS=${PEERS:-/work/peers}
BUILD=${BUILD:-$ROOT_DIR/build}
WORKLOAD_BIN=${WORKLOAD_BIN:-$BUILD/userspace/fscost-workload}
MKFS_XFS=${MKFS_XFS:-/sbin/mkfs.xfs}
MKFS_XFS_NEW=${MKFS_XFS_NEW:-$PEERS/xfsprogs/mkfs/mkfs.xfs}
FSSTRESS=${FSSTRESS:-$PEERS/xfstests/ltp/fsstress}
FLAMEGRAPH=${FLAMEGRAPH:-$PEERS/FlameGraph}
EVIDENCE=${EVIDENCE:-$PEERS/evidence/$CASE}
PERF_REC=(-e cpu-clock -c 200000 -g)   # 200 µs a sample; folded values are ns
EV_IMG="" EV_LOOP="" EV_MNT="" EV_DEV="" TMP=""

say() { echo "$CASE: $*" >&2; }
die() { say "$*"; exit 1; }
# A case that cannot run here says why and exits 77 (skipped).
skip() { say "skipped: $*"; exit 77; }

# trusted PATH: PATH and every directory above it owned by root or by us,
# and none writable by anyone else (by group only if it is root's; a
# sticky directory may be: its entries are then checked by owner), so no
# other user can have placed what PATH names. Symbolic links are followed
# to what they name, which is checked.
trusted() {
  local p me uid gid mode
  p=$(realpath -e -- "$1" 2>/dev/null) || return 1
  me=$(id -u)
  while :; do
    read -r uid gid mode < <(stat -c '%u %g %a' -- "$p")
    [ "$uid" = 0 ] || [ "$uid" = "$me" ] || return 1
    if (( 8#$mode & 8#1000 )); then :
    elif (( 8#$mode & 8#002 )); then return 1
    elif (( 8#$mode & 8#020 )) && [ "$gid" != 0 ]; then return 1; fi
    [ "$p" = / ] && return 0
    p=$(dirname -- "$p")
  done
}

# need CMD HINT: CMD is a command on PATH or an executable file, placed
# by root or us. Missing: skip; placed by someone else: refuse.
need() {
  local p
  if ! p=$(command -v -- "$1" 2>/dev/null) || [ ! -x "$p" ]; then skip "needs $1 ($2)"; fi
  trusted "$p" || die "refusing $p: it or a directory above it is another user's or writable by others"
}

need_workload() {
  need "$WORKLOAD_BIN" "build it: scripts/build.sh, or set BUILD or WORKLOAD_BIN"
}

need_flamegraph() {
  need "$FLAMEGRAPH/stackcollapse-perf.pl" \
    "git clone https://github.com/brendangregg/FlameGraph, then FLAMEGRAPH=that clone"
}

# need_xfsprogs_612: a mkfs.xfs that can make parent pointers.
need_xfsprogs_612() {
  local v major minor
  need "$MKFS_XFS_NEW" "xfsprogs >= 6.12 built from source; set MKFS_XFS_NEW"
  v=$("$MKFS_XFS_NEW" -V | sed -n 's/.*version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
  read -r major minor <<<"$v"
  if [ -z "$v" ] || [ "$major" -lt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -lt 12 ]; }; then
    skip "needs mkfs.xfs >= 6.12 for -n parent=1; $MKFS_XFS_NEW is $("$MKFS_XFS_NEW" -V)"
  fi
}

phase() { [[ " $PHASES " == *" $1 "* ]]; }

# mkdir -p that refuses to create anything under a directory another user
# could have placed or can write to.
safe_mkdir() {
  local d=$1 up=$1
  while [ ! -e "$up" ]; do up=$(dirname -- "$up"); done
  trusted "$up" || die "refusing to write under $up: another user's or writable by others"
  mkdir -p -- "$d"
  trusted "$d" || die "refusing $d: another user's or writable by others"
}

truth_cleanup() {
  ev_release
  if [ -n "$EV_MNT" ]; then rmdir -- "$EV_MNT" 2>/dev/null || true; fi
  if [ -n "$TMP" ]; then rm -rf -- "$TMP"; fi
}

# truth_init: root, the evidence directory and a scratch directory, and the
# trap that removes every mount, loop device and image on any exit.
truth_init() {
  [ "$(id -u)" -eq 0 ] || skip "needs root (loop devices, mount, perf -a, bpftrace)"
  need losetup "apt-get install mount"
  safe_mkdir "$EVIDENCE"
  trap truth_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  trap 'exit 129' HUP
  TMP=$(mktemp -d /tmp/fscost-truth-XXXXXX)
  EV_MNT=$(mktemp -d /tmp/fscost-truth-mnt-XXXXXX)
  say "evidence in $EVIDENCE"
}

ev_release() {
  if [ -n "$EV_MNT" ] && mountpoint -q -- "$EV_MNT"; then
    umount -- "$EV_MNT" 2>/dev/null || { sleep 1; umount -- "$EV_MNT" 2>/dev/null; } ||
      umount -l -- "$EV_MNT" || true
  fi
  if [ -n "$EV_LOOP" ]; then losetup -d "$EV_LOOP" 2>/dev/null || true; fi
  if [ -n "$EV_IMG" ]; then rm -f -- "$EV_IMG"; fi
  EV_IMG="" EV_LOOP="" EV_DEV=""
}

# ev_fresh SIZE MKFS [ARGS...]: the previous filesystem released, a new
# image of SIZE in /dev/shm on a loop device, MKFS ARGS run on that device
# only (checked to be backed by the image just made), mounted at $EV_MNT
# with $EV_MOUNT_OPTS, caches dropped. Sets EV_LOOP and EV_DEV (the
# kernel's dev_t of the device, as tracepoints' dev fields carry it).
ev_fresh() {
  local size=$1 back
  local -a mo=()
  shift
  ev_release
  EV_IMG=$(mktemp /dev/shm/fscost-truth-XXXXXX.img)
  truncate -s "$size" -- "$EV_IMG"
  EV_LOOP=$(losetup --find --show -- "$EV_IMG")
  back=$(losetup -n -O BACK-FILE -- "$EV_LOOP")
  [ "$back" = "$EV_IMG" ] || die "$EV_LOOP is backed by $back, not by $EV_IMG: not formatting it"
  "$@" "$EV_LOOP" >"$TMP/mkfs.out" 2>&1 || { cat "$TMP/mkfs.out" >&2; die "mkfs failed: $*"; }
  [ -n "${EV_MOUNT_OPTS:-}" ] && mo=(-o "$EV_MOUNT_OPTS")
  mount "${mo[@]}" -- "$EV_LOOP" "$EV_MNT"
  sync
  echo 3 >/proc/sys/vm/drop_caches
  # shellcheck disable=SC2034  # read by the truth.sh scripts
  EV_DEV=$(( (0x$(stat -c %t "$EV_LOOP") << 20) | 0x$(stat -c %T "$EV_LOOP") ))
}

# perf_folded OUT CMD...: CMD under perf record "${PERF_REC[@]}" (add -a
# for every CPU), its stacks collapsed by stackcollapse-perf.pl into
# OUT.folded (values: ns of cpu-clock; kworker and swapper comms merged).
perf_folded() {
  local out=$1
  shift
  perf record -q "${PERF_REC[@]}" -o "$TMP/perf.data" -- "$@"
  perf script -i "$TMP/perf.data" 2>/dev/null | "$FLAMEGRAPH/stackcollapse-perf.pl" 2>/dev/null |
    sed -E 's/^kworker[^;]*/kworker/; s/^swapper[^;]*/swapper/' >"$out.folded"
  rm -f -- "$TMP/perf.data"
}

# bt OUT ARGS...: bpftrace ARGS with its output in OUT and its errors in
# OUT.err; a failure stops the case with them. (bpftrace 0.17 reports a
# harmless RLIMIT_MEMLOCK error on kernels that account BPF memory by cgroup.)
bt() {
  local out=$1
  shift
  if ! bpftrace "$@" >"$out" 2>"$out.err"; then
    grep -v RLIMIT_MEMLOCK "$out.err" >&2 || true
    die "bpftrace $* failed"
  fi
}

# stat_sys: system + irq + softirq ticks of all CPUs (USER_HZ) so far.
stat_sys() { awk '/^cpu /{print $4 + $7 + $8}' /proc/stat; }

# files_in DIR: regular files under DIR.
files_in() { find "$1" -type f | wc -l; }
