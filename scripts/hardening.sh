#!/usr/bin/env bash
# The hardening stage scripts/test.sh runs beside and after the normal tests
# (docs/BUILD.md, "Sanitizers and fuzzers"): the analysis-only tree built
# with clang, ASan + UBSan and libFuzzer into build-fuzz/, then the analysis
# unit tests under the sanitizers and the fuzz.* tests, each reader's fuzz
# target for FSCOST_FUZZ_SECONDS (default 60) over a copy of its seed
# corpus. Any failing test, crash, hang, leak or sanitizer report fails it.
#
#   scripts/hardening.sh [all|build|test|unit|fuzz]    # default all
#
# test = unit (the sanitized analysis unit tests) then fuzz (the fuzz.*
# tests). test.sh runs `build` at nice 19 while the runtime tests run (it
# takes only the CPU they leave idle), then `unit`, then `fuzz` beside the
# stock-kernel tests: a fuzz test runs for its time whatever CPU it gets.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${FSCOST_FUZZ_BUILD:-build-fuzz}
seconds=${FSCOST_FUZZ_SECONDS:-60}
phase=${1:-all}
case $phase in all|build|test|unit|fuzz) ;; *) echo "usage: $0 [all|build|test|unit|fuzz]" >&2; exit 2 ;; esac

if [[ $phase == all || $phase == build ]]; then
  # -O1: fast enough to fuzz, and half the compile time of -O2 under ASan;
  # -g1: line tables, all a sanitizer's report needs.
  CC=clang CXX=clang++ cmake -S . -B "$dir" -DFSCOST_ANALYSIS_ONLY=ON -DFSCOST_FUZZ=ON -DFSCOST_WERROR=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
    -DFSCOST_FUZZ_SECONDS="$seconds"
  cmake --build "$dir" -j"$(nproc)" --target analysis_tests \
    fuzz_profile_json fuzz_folded fuzz_perf_script fuzz_pprof
fi

# Any UBSan report is fatal (-fno-sanitize-recover=all); print its stack.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
case $phase in
  all|test) tests='^(unit|fuzz)\.' ;;
  unit) tests='^unit\.' ;;
  fuzz) tests='^fuzz\.' ;;
  *) exit 0 ;;
esac
ctest --test-dir "$dir" --output-on-failure --no-tests=error -j"$(nproc)" -R "$tests"
