#!/usr/bin/env bash
# Workload throughput untraced vs under `fscost record`, side by side.
#
#   bench/overhead.sh [--rounds R] [--n N] [--threads T] [--mode create|mixed]
#                     [--private-dirs] [--smoke]
#
# Each round makes a fresh XFS on a RAM disk (loop over /dev/shm) for each
# configuration, runs tests/testprogs/fsops, and takes its ops/s. The order of
# the configurations alternates per round (AB, BA, ...) so drift hits both.
# Prints per-run figures, medians and the ratio traced/untraced as markdown.
# FSCOST_ARGS adds options to `fscost record` (e.g. "--freq 99").
set -euo pipefail

ROUNDS=5 N=20000 THREADS=2 MODE=create DIRS=""
BUILD=${BUILD:-build}
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift ;;
    --n) N=$2; shift ;;
    --threads) THREADS=$2; shift ;;
    --mode) MODE=$2; shift ;;
    --private-dirs) DIRS=--private-dirs ;;
    --smoke) ROUNDS=1 N=500 ;;
    *) echo "usage: $0 [--rounds R] [--n N] [--threads T] [--mode create|mixed] [--private-dirs] [--smoke]" >&2; exit 2 ;;
  esac
  shift
done

FSCOST=$BUILD/userspace/fscost
FSOPS=$BUILD/tests/fsops
[ -x "$FSCOST" ] && [ -x "$FSOPS" ] || { echo "build first: scripts/build.sh" >&2; exit 2; }
if [ "$(id -u)" -ne 0 ]; then
  echo "needs root (BPF, loop devices, mount)" >&2
  [ "${CI:-}" = true ] && exit 1
  exit 77  # ctest: skipped, with the reason above
fi

. "$(dirname "$0")/../scripts/ramdisk.sh"
ramdisk_init 2G
work=$(mktemp -d /tmp/fscost-bench-XXXXXX)
trap 'rm -rf "$work"; ramdisk_cleanup' EXIT

# run CONFIG -> prints ops/s of one fresh-filesystem run
run() {
  ramdisk_fresh
  local out
  if [ "$1" = untraced ]; then
    out=$("$FSOPS" "$RD_MNT" --mode "$MODE" --n "$N" --threads "$THREADS" $DIRS)
  else
    out=$("$FSCOST" record -o "$work/p.profile" ${FSCOST_ARGS:-} -- "$FSOPS" "$RD_MNT" --mode "$MODE" --n "$N" \
          --threads "$THREADS" $DIRS 2>"$work/record.log")
  fi
  ramdisk_umount
  # "ops/s sys-µs-per-op": throughput, and the workload's own kernel CPU per
  # op (BPF programs run in its context, so this is the per-op cost).
  python3 -c 'import json,sys; d=json.loads(sys.argv[1]); n=d["ops_per_s"]*d["elapsed_s"]
print("%.1f %.3f" % (d["ops_per_s"], d["sys_s"]*1e6/n))' "$out"
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

declare -a U T UC TC
for ((r = 0; r < ROUNDS; r++)); do
  if ((r % 2 == 0)); then u=$(run untraced); t=$(run traced)
  else t=$(run traced); u=$(run untraced); fi
  U+=("${u% *}") UC+=("${u#* }") T+=("${t% *}") TC+=("${t#* }")
done

mu=$(printf '%s\n' "${U[@]}" | median)
mt=$(printf '%s\n' "${T[@]}" | median)
# Per-round ratios: each pair ran back to back, so machine drift cancels.
mr=$(for ((r = 0; r < ROUNDS; r++)); do awk -v t="${T[r]}" -v u="${U[r]}" 'BEGIN { print t / u }'; done | median)
echo "| configuration | runs (ops/s) | median ops/s |"
echo "|---|---|---|"
echo "| untraced | ${U[*]} | $mu |"
echo "| fscost record ${FSCOST_ARGS:-(defaults)} | ${T[*]} | $mt |"
muc=$(printf '%s\n' "${UC[@]}" | median)
mtc=$(printf '%s\n' "${TC[@]}" | median)
echo "| untraced: sys µs/op | ${UC[*]} | $muc |"
echo "| fscost record: sys µs/op | ${TC[*]} | $mtc |"
awk -v t="$mt" -v u="$mu" -v r="$mr" \
  'BEGIN { printf "\nratio of medians traced/untraced: %.3f; median of per-round ratios: %.3f\n", t / u, r }'
awk -v t="$mtc" -v u="$muc" 'BEGIN { printf "kernel CPU per op traced/untraced: %.3f\n", t / u }'
echo "command: ${FSCOST_ARGS:+FSCOST_ARGS='$FSCOST_ARGS' }bench/overhead.sh --rounds $ROUNDS --n $N --threads $THREADS --mode $MODE${DIRS:+ $DIRS}"
