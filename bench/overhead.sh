#!/usr/bin/env bash
# Workload throughput untraced and under tracers, side by side in one run.
#
#   bench/overhead.sh [--rounds R] [--n N] [--threads T] [--mode create|mixed]
#                     [--private-dirs] [--configs LIST] [--smoke]
#
# LIST is a comma list of: untraced (always included), fscost (default
# probes), fscost-all (--probes all), perf (perf record -a -g at the same
# 997 Hz), perflock (perf lock record -a). Each round makes a fresh XFS on a
# RAM disk (loop over /dev/shm) per configuration and runs
# fscost-workload (docs/WORKLOAD.md); the order of the configurations rotates per round
# so machine drift hits all. Prints per-run ops/s, the workload's own kernel
# CPU per op, medians, and the ratios to untraced, as markdown.
set -euo pipefail

ROUNDS=5 N=20000 THREADS=2 MODE=create DIRS="" CONFIGS="fscost"
BUILD=${BUILD:-build}
usage() {
  echo "usage: $0 [--rounds R] [--n N] [--threads T] [--mode create|mixed] [--private-dirs]" \
       "[--configs fscost,fscost-all,perf,perflock] [--smoke]" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift ;;
    --n) N=$2; shift ;;
    --threads) THREADS=$2; shift ;;
    --mode) MODE=$2; shift ;;
    --private-dirs) DIRS=--private-dirs ;;
    --configs) CONFIGS=$2; shift ;;
    --smoke) ROUNDS=1 N=500 ;;
    *) usage ;;
  esac
  shift
done

FSCOST=$BUILD/userspace/fscost
WORKLOAD=$BUILD/userspace/fscost-workload
[ -x "$FSCOST" ] && [ -x "$WORKLOAD" ] || { echo "build first: scripts/build.sh" >&2; exit 2; }
if [ "$(id -u)" -ne 0 ]; then
  echo "needs root (BPF, loop devices, mount)" >&2
  [ "${CI:-}" = true ] && exit 1
  exit 77  # ctest: skipped, with the reason above
fi

. "$(dirname "$0")/../scripts/ramdisk.sh"
ramdisk_init 2G
work=$(mktemp -d /tmp/fscost-bench-XXXXXX)
trap 'rm -rf "$work"; ramdisk_cleanup' EXIT

IFS=, read -r -a configs <<<"untraced,$CONFIGS"

# run CONFIG -> "ops/s sys-µs-per-op" of one fresh-filesystem run. The
# workload's own kernel CPU per op includes the BPF programs (they run in its
# context); perf's cost is mostly in the perf process and its wakeups.
run() {
  local w=("$WORKLOAD" "$RD_MNT" --workload "$MODE" --files "$N" --threads "$THREADS" $DIRS) out
  ramdisk_fresh
  case "$1" in
    untraced) out=$("${w[@]}") ;;
    fscost) out=$("$FSCOST" record -o "$work/p.profile" -- "${w[@]}" 2>"$work/log") ;;
    fscost-all) out=$("$FSCOST" record -o "$work/p.profile" --probes all -- "${w[@]}" 2>"$work/log") ;;
    perf) out=$(perf record -q -a -g -F 997 -o "$work/perf.data" -- "${w[@]}" 2>"$work/log") ;;
    perflock) out=$(perf lock record -q -a -o "$work/perf.data" -- "${w[@]}" 2>"$work/log") ;;
    *) echo "unknown configuration $1" >&2; exit 2 ;;
  esac
  ramdisk_umount
  python3 -c 'import json,sys; d=json.loads(sys.argv[1]); n=d["ops_per_s"]*d["elapsed_s"]
print("%.1f %.3f" % (d["ops_per_s"], d["sys_s"]*1e6/n))' "$out"
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

declare -A OPS CPU
nc=${#configs[@]}
for ((r = 0; r < ROUNDS; r++)); do
  for ((i = 0; i < nc; i++)); do
    c=${configs[$(((i + r) % nc))]}
    res=$(run "$c")
    OPS[$c]+="${res% *} " CPU[$c]+="${res#* } "
  done
done

base_ops=$(tr ' ' '\n' <<<"${OPS[untraced]}" | grep . | median)
base_cpu=$(tr ' ' '\n' <<<"${CPU[untraced]}" | grep . | median)
best() { sort -g | tail -n 1; }
base_best=$(tr ' ' '\n' <<<"${OPS[untraced]}" | grep . | best)
# Medians, and the best run of each: on a noisy VM, interference only ever
# slows a run down, so the best runs compare the tools' own cost.
echo "| configuration | runs (ops/s) | median ops/s | median vs untraced | best vs untraced | kernel µs/op (median) | kernel CPU vs untraced |"
echo "|---|---|---|---|---|---|---|"
for c in "${configs[@]}"; do
  mo=$(tr ' ' '\n' <<<"${OPS[$c]}" | grep . | median)
  bo=$(tr ' ' '\n' <<<"${OPS[$c]}" | grep . | best)
  mc=$(tr ' ' '\n' <<<"${CPU[$c]}" | grep . | median)
  awk -v c="$c" -v runs="${OPS[$c]}" -v mo="$mo" -v bo="$bo" -v mc="$mc" -v bmo="$base_ops" \
      -v bbo="$base_best" -v bc="$base_cpu" \
    'BEGIN { printf "| %s | %s| %.0f | %.3f | %.3f | %.2f | %.3f |\n", c, runs, mo, mo / bmo, bo / bbo, mc, mc / bc }'
done
echo
echo "command: bench/overhead.sh --rounds $ROUNDS --n $N --threads $THREADS --mode $MODE${DIRS:+ $DIRS} --configs $CONFIGS"
