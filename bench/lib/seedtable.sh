# shellcheck shell=bash
# Sourced by bench/run: the second seed's fs_mark table
# (../shared/context/002: files/s of ext4, btrfs, xfs and tux3 at 1, 16
# and 64 tasks on a RAM disk), remade by fscost compare on this machine's
# RAM disk: once with the three commands as published (their file size
# shrinks as the task count grows, which the guardrail reports), once with
# the file size held at 4 KiB. tux3 is not in this kernel. Not in `all` or
# --smoke: each sweep is 3 filesystems x 3 task counts x --seed-runs runs.
# Written up in docs/SEED-TABLE.md.

SEED_RUNS=3 SEED_FILES=1000

# The published command at T tasks with file size S ({dir}/test for -dtest).
seed_cmd() {
  echo "fs_mark -d{dir}/test -D5 -N100 -L1 -p5 -r5 -s$2 -w4096 -n$SEED_FILES -t$1"
}

# seed_sweep NAME SIZE@1 SIZE@16 SIZE@64: one compare of the three
# filesystems, its matrix printed (the top of its summary.txt).
seed_sweep() {
  local name=$1 out="$work/seed-$1"
  "$FSCOST" compare -q --size 4G --runs "$SEED_RUNS" --baseline xfs \
    --config ext4='fs: ext4' --config btrfs='fs: btrfs' --config xfs='fs: xfs' \
    --workload-cmd-at 1="$(seed_cmd 1 "$2")" --workload-cmd-at 16="$(seed_cmd 16 "$3")" \
    --workload-cmd-at 64="$(seed_cmd 64 "$4")" -o "$out" >/dev/null 2>"$out.err" || {
    echo "seed table ($name): fscost compare failed: $(tail -3 "$out.err")"
    echo
    return 0
  }
  echo "### $name"
  echo
  echo '```'
  sed -n '1,/ against C xfs (vs-/p' "$out/summary.txt" | sed '$d'
  echo '```'
  echo
  [ -z "${SEED_KEEP:-}" ] || cp -r "$out" "$SEED_KEEP/seed-$name"
}

bench_seedtable() {
  echo "## The seed's fs_mark table (docs/SEED-TABLE.md)"
  echo
  need_root seedtable || return 0
  need_exe seedtable "$FSCOST" fs_mark || return 0
  echo "tux3 is not in this kernel; its row is not remade."
  echo
  seed_sweep published 1048576 65536 4096
  seed_sweep size-4k 4096 4096 4096
  echo "command: \`bench/run seedtable --seed-runs $SEED_RUNS --seed-files $SEED_FILES\`"
  echo
}
