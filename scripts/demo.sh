#!/usr/bin/env bash
# The main job on a fresh machine: install, build, then compare two XFS
# configurations (rmapbt=0 vs rmapbt=1) on a 2 GiB RAM disk (1 GiB runs into
# ENOSPC at 2 threads): 5 interleaved runs each of a small workload creating
# 4 KiB files and syncing (each block allocated at writeback is a
# reverse-mapping update with rmapbt=1) at 1 and 2 threads, each run on a
# fresh XFS and recorded by fscost, then diffed (about a minute here).
# Prints the mail-ready summary and where the report is (docs/COMPARE.md).
set -euo pipefail
cd "$(dirname "$0")/.."
((EUID == 0)) || { echo "demo: needs root (BPF, loop device, mount); run it as root (sudo scripts/demo.sh)" >&2; exit 1; }

scripts/setup.sh
# Only what the demo runs, and only a line while it builds; the compiler's
# words are kept for a failure.
log=$(mktemp "${TMPDIR:-/tmp}/fscost-demo-build.XXXXXX")
trap 'rm -f "$log"' EXIT
echo "demo: building fscost and fscost-workload (a few minutes on 2 CPUs)"
if ! { cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
  cmake --build build -j"$(nproc)" --target fscost fscost-workload; } >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "demo: the build failed; its last lines are above" >&2
  exit 1
fi

out=${FSCOST_DEMO_OUT:-demo-compare}
if [ -e "$out" ]; then
  echo "demo: $out exists; moving it to $out.old" >&2
  rm -rf "$out.old" && mv "$out" "$out.old"
fi
build/userspace/fscost compare \
  --a 'mkfs: -m rmapbt=0' --b 'mkfs: -m rmapbt=1' \
  --workload create --files "${FSCOST_DEMO_FILES:-20000}" --write 4096 --threads 1,2 --runs 5 \
  --size 2G -o "$out"
echo "demo: open $out/report.html in a browser; $out/summary.txt is ready to mail"
echo "demo: each run's profile is under $out/runs/ (try: build/userspace/fscost report $out/runs/t2/b/run-01.profile)"
