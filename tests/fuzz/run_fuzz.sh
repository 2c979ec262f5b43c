#!/usr/bin/env bash
# run_fuzz.sh FUZZER CORPUS SECONDS ARTIFACTS: fuzzes for SECONDS, starting
# from a temporary copy of the seed corpus CORPUS (the repository's stays
# as it is). A crash, hang (one input over 30 s), leak, sanitizer report or
# more than 2 GiB of memory fails, with the input that did it left in
# ARTIFACTS (crash-*, timeout-*, leak-*, oom-*) to replay:
#   FUZZER ARTIFACTS/crash-...
set -euo pipefail
fuzzer=$1 corpus=$2 seconds=$3 artifacts=$4

work=$(mktemp -d "${TMPDIR:-/tmp}/fscost-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -R "$corpus" "$work/corpus"
mkdir -p "$artifacts"

# Any UBSan report is fatal (the build has -fno-sanitize-recover=all);
# print its stack too.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}

echo "run_fuzz: $(basename "$fuzzer") for ${seconds}s over $(ls "$corpus" | wc -l) seeds"
# Not exec: the EXIT trap must still remove the copy (exec left one per
# fuzzer in /tmp). set -e passes the fuzzer's failure on as ours.
"$fuzzer" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$artifacts/" "$work/corpus"
