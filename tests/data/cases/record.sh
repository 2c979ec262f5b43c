#!/usr/bin/env bash
# Re-records the known cases' runs that unit.CaseVerdicts decides from:
# runtime.CaseTest.* with FSCOST_RECORD_CASES set keeps each compare's
# profiles here as <case>/{a,b}/run-NN.profile (the compare's arguments
# live in tests/runtime/test_cases.cpp only). As root, from a build
# (BUILD, default ./build), on a host as quiet as you can get: these runs
# decide the verdicts, so record them where the mechanism, not the host,
# sets the figures. Then `FSCOST_BLESS=1 build/tests/analysis_tests
# --gtest_filter='CaseVerdicts.*'`, and review the first screens' change.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$here/../../../build}
FSCOST_RECORD_CASES=$here "$build/tests/runtime_tests" --gtest_filter='CaseTest.*' "$@"
du -sh "$here"
