# shellcheck shell=bash
# Sourced by bench/run: fscost's numbers against the kernel's own accounting.
# Records the create and mixed workloads with the default probes and sizes,
# reads each profile's JSON report (docs/REPORT-JSON.md) and compares: summed
# per-op on-CPU time with rusage sys, sampled per-op shares with exact ones,
# and the drop counters.

# name:fscost-workload arguments (per thread sizes; docs/WORKLOAD.md).
accuracy_workloads() {
  ACC=("create-2t:--workload create --files $ACC_CREATE --threads 2 --dirs private"
       "mixed-1t:--workload mixed --files $ACC_MIXED --threads 1"
       "mixed-2t:--workload mixed --files $ACC_MIXED --threads 2")
}

bench_accuracy() {
  echo "## Accuracy"
  echo
  need_root accuracy || return 0
  need_exe accuracy "$FSCOST" "$WORKLOAD" || return 0
  local r spec name args reports=()
  accuracy_workloads
  for ((r = 0; r < ACC_RUNS; r++)); do
    for spec in "${ACC[@]}"; do
      name=${spec%%:*} args=${spec#*:}
      ramdisk_fresh
      # shellcheck disable=SC2086 # args is a word list
      if ! "$FSCOST" record -o "$work/acc.profile" -- "$WORKLOAD" "$RD_MNT" $args \
            >"$work/out" 2>"$work/log"; then
        echo "accuracy: recording $name failed:" >&2
        cat "$work/log" >&2
        exit 1
      fi
      ramdisk_umount
      "$FSCOST" report --format json "$work/acc.profile" >"$work/acc-$name-$r.json"
      reports+=("$name=$work/acc-$name-$r.json")
    done
  done
  python3 "$LIB/accuracy.py" "${reports[@]}"
  echo
  for spec in "${ACC[@]}"; do
    echo "- ${spec%%:*}: \`build/userspace/fscost record -o P -- build/userspace/fscost-workload MNT ${spec#*:}\`"
  done
  echo
  echo "Each profile read with \`fscost report --format json P\`; $ACC_RUNS runs per workload," \
       "fresh RAM-disk XFS per run."
  echo
}
