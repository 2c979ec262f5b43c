# shellcheck shell=bash
# Sourced by bench/run: the known-mechanism cases of docs/CASES.md at full
# size, each one fscost compare checked by bench/cases/NAME/check (and
# NAME/truth.sh re-runs the case's peer-tool evidence). Not in `all` or
# --smoke: minutes each, and the parent-pointer case needs a mkfs.xfs
# >= 6.12 (bench/run cases --mkfs PATH), which CI cannot build.

CASES_MKFS=""

# case NAME THREADS COMPARE-ARGS...: one compare, one row.
bench_case() {
  local name=$1 threads=$2 out="$work/case-$1" t0 t1
  shift 2
  t0=$(date +%s.%N)
  "$FSCOST" compare -q --threads "$threads" --runs 5 -o "$out" "$@" >/dev/null 2>"$out.err" || true
  t1=$(date +%s.%N)
  "$BENCH_DIR/cases/$name/check" "$out/summary.json" "$(python3 -c "print($t1 - $t0)")" || true
}

bench_cases() {
  echo "## Known-mechanism cases at full size (docs/CASES.md)"
  echo
  need_root cases || return 0
  need_exe cases "$FSCOST" || return 0
  echo "| case | s | figure (95% CI) | check | warnings |"
  echo "|---|---|---|---|---|"
  bench_case rmapbt-fsync 1 --a 'mkfs: -m rmapbt=0' --b 'mkfs: -m rmapbt=1' --size 2G \
    --workload create --files 40000 --write 4096 --fsync
  bench_case shared-dir-spin 2 --a 'mkfs: -i size=512' --b 'mkfs: -i size=1024' --size 2G \
    --workload create --dirs shared --files 30000
  bench_case dir-block-size 1 --a 'mkfs: -n size=4096' --b 'mkfs: -n size=65536' --size 2G \
    --workload create --files 100000
  bench_case wsync 1 --a 'mount: defaults' --b 'mount: wsync' --size 2G --workload create \
    --files 30000
  TEST_DIR=/nonexistent TEST_DEV=/nonexistent QA_CHECK_FS=1 \
    bench_case agcount 4 --a 'mkfs: -d agcount=4' --b 'mkfs: -d agcount=1' --size 2G \
    --workload create --files 10000 --dirs private
  bench_case demo 2 --a 'mkfs: -m rmapbt=0' --b 'mkfs: -m rmapbt=1' --size 2G \
    --workload create --files 20000 --write 4096
  bench_case other-filesystems 1 --a 'fs: ext4' --b 'fs: xfs' --size 2G --workload create \
    --files 20000
  if [ -n "$CASES_MKFS" ]; then
    bench_case parent-pointers 2 --mkfs "$CASES_MKFS" --a 'mkfs: -i exchange=1 -n parent=0' \
      --b 'mkfs: -i exchange=1 -n parent=1' --size 2G --workload create --dirs private \
      --files 30000
  else
    echo "| parent-pointers | - | not run: needs a mkfs.xfs >= 6.12 (bench/run cases --mkfs PATH) | - | - |"
  fi
  echo
  echo "command: \`bench/run cases${CASES_MKFS:+ --mkfs $CASES_MKFS}\`"
  echo
}
