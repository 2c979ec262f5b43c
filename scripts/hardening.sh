#!/usr/bin/env bash
# The hardening stage scripts/test.sh runs after the normal tests
# (docs/BUILD.md, "Sanitizers and fuzzers"): the analysis-only tree built
# with clang, ASan + UBSan and libFuzzer into build-fuzz/, then ctest's
# unit tests under the sanitizers and the fuzz.* tests, each reader's fuzz
# target for FSCOST_FUZZ_SECONDS (default 60) over a copy of its seed
# corpus. Any failing test, crash, hang, leak or sanitizer report fails it.
# Takes about 10 minutes on a 2-CPU machine from an empty build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${FSCOST_FUZZ_BUILD:-build-fuzz}
seconds=${FSCOST_FUZZ_SECONDS:-60}

# -O1: fast enough to fuzz, and half the compile time of -O2 under ASan.
CC=clang CXX=clang++ cmake -S . -B "$dir" -DFSCOST_ANALYSIS_ONLY=ON -DFSCOST_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DFSCOST_FUZZ_SECONDS="$seconds"
cmake --build "$dir" -j"$(nproc)" --target analysis_tests \
  fuzz_profile_json fuzz_folded fuzz_perf_script fuzz_pprof

# Any UBSan report is fatal (-fno-sanitize-recover=all); print its stack.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
exec ctest --test-dir "$dir" --output-on-failure --no-tests=error -j"$(nproc)" -R '^(unit|fuzz)\.'
