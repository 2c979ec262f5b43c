#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test (unit and runtime) and
# the hardening stage (scripts/hardening.sh: the analysis unit tests under
# ASan + UBSan and the readers' fuzz targets; FSCOST_HARDENING=0 leaves it
# out and runs the analysis unit tests in the normal build instead).
# Runtime tests load BPF and mount XFS, so they need root; without it they
# skip with a reason (and fail when CI=true).
# Ends with the slowest ten tests and one line for both test runs,
# "test: N passed, N failed, N skipped". The time each stage took, and why
# they overlap, is in docs/BUILD.md ("Time").
set -euo pipefail
cd "$(dirname "$0")/.."

hardening=${FSCOST_HARDENING:-1}
begin=$SECONDS
stage() { echo "test: $1 took $((SECONDS - $2)) s"; }

# The stock-kernel tests (tests/vm/, QEMU) unless FSCOST_VM_TESTS=0: the
# runtime tests whose outcome depends on the kernel, on Debian 12's 6.1.
vm_wanted=${FSCOST_VM_TESTS:-1}
if [[ $vm_wanted == 1 ]]; then scripts/setup.sh --vm; else scripts/setup.sh; fi

logs=$(mktemp -d "${TMPDIR:-/tmp}/fscost-test.XXXXXX")
builder="" vm=""
# The builder is its own process group (job control, set -m): stopping the
# tests stops its compilers too. Not its own session (setsid): with the
# kernel's autogroups a new session is a new scheduling group that gets
# half the CPUs whatever its nice (measured: nice-19 clang at 50% beside
# the nice-0 build).
trap '[[ -z $builder ]] || kill -- "-$builder" 2>/dev/null; [[ -z $vm ]] || kill -- "-$vm" 2>/dev/null
      rm -rf "$logs"' EXIT
status=0

# The sanitized tree builds at nice 19 from the start: beside the main
# build it gets only the CPU a link or a configure leaves idle, beside ctest
# what the runtime tests leave (they keep 0.6 of the two CPUs busy on
# average), and a nice-19 job gets about 1.5% of a CPU a test wants.
# HostMeter does not count niced CPU as other work (tests/runtime/support.h).
if [[ $hardening != 0 ]]; then
  built=$SECONDS
  set -m
  nice -n 19 scripts/hardening.sh build >"$logs/hardening-build.txt" 2>&1 &
  builder=$!
  set +m
fi

start=$SECONDS
# With the hardening stage, the analysis unit tests are built once, there.
# -g1 (line tables, what a failure's backtrace and perf need) instead of
# RelWithDebInfo's -g: 17% less compile CPU for the libraries.
scripts/build.sh -DFSCOST_WERROR=ON -DFSCOST_ANALYSIS_TESTS="$([[ $hardening != 0 ]] && echo OFF || echo ON)" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
stage build "$start"

if ((EUID != 0)); then
  echo "test: not root: runtime tests (real BPF, XFS on a RAM disk) will be skipped" >&2
fi

# --no-tests=error: a build that registered no tests must not pass as green.
# The stock-kernel tests (vm.*, QEMU) run later, beside the fuzz tests.
start=$SECONDS
ctest --test-dir build --output-on-failure --no-tests=error -j"$(nproc)" -E '^vm\.' 2>&1 |
  tee "$logs/1-ctest.log" || status=1
# Its skip reasons, before the stock-kernel tests' ctest replaces the file.
cp build/Testing/Temporary/LastTest.log "$logs/main-last.txt" 2>/dev/null || true
stage ctest "$start"

# The in-guest runtime tests on Debian's stock kernel (tests/vm/): emulation
# takes a CPU, so at the end, beside the time-boxed fuzz tests only (beside
# the ASan unit tests, which are not time-boxed, it ran 5x slower). No log
# without such a test (an analysis-only tree): a log without ctest's
# summary line counts as a failure below.
vm_tests() {
  [[ $vm_wanted == 1 ]] || return 0
  ctest --test-dir build -N -R '^vm\.' | grep -q '^Total Tests: 0$' && return 0
  ctest --test-dir build --output-on-failure -R '^vm\.' >"$logs/3-vm.log" 2>&1
}

if [[ $hardening != 0 ]]; then
  if ! wait "$builder"; then
    echo "test: the hardening build failed; its last lines:"
    tail -n 40 "$logs/hardening-build.txt"
  fi
  builder=""
  stage "the hardening build (beside ctest, at nice 19)" "$built"
  start=$SECONDS
  scripts/hardening.sh unit 2>&1 | tee "$logs/2-hardening.log" || status=1
  # Its skip reasons, before the fuzz run's ctest replaces the file.
  cp "${FSCOST_FUZZ_BUILD:-build-fuzz}/Testing/Temporary/LastTest.log" "$logs/unit-last.txt" 2>/dev/null || true
  stage "the sanitized unit tests" "$start"
fi
if [[ $vm_wanted == 1 ]]; then
  vm_start=$SECONDS
  set -m  # its own process group, as the builder: stopping the tests stops QEMU
  vm_tests &
  vm=$!
  set +m
fi
# The fuzz tests beside the guest: each fuzzes for its time whatever CPU
# it gets, so the guest costs them executions, not minutes.
if [[ $hardening != 0 ]]; then
  start=$SECONDS
  scripts/hardening.sh fuzz 2>&1 | tee "$logs/2-fuzz.log" || status=1
  stage "the fuzz tests" "$start"
fi
if [[ -n $vm ]]; then
  wait "$vm" || status=1
  vm=""
  stage "the stock-kernel tests" "$vm_start"
  [[ ! -f $logs/3-vm.log ]] || cat "$logs/3-vm.log"
fi

# Both ctest runs in one closing line. A run without ctest's summary line
# (its build failed) counts as one failure.
passed=0 failed=0 skipped=0
for log in "$logs"/*.log; do
  summary=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+$' "$log" | tail -1 || true)
  if [[ $summary =~ ([0-9]+)\ tests?\ failed\ out\ of\ ([0-9]+) ]]; then
    # ctest counts skipped tests as passed; they are listed "(Skipped)".
    s=$(grep -cE '^[[:space:]]*[0-9]+ - .* \(Skipped\)$' "$log" || true)
    failed=$((failed + BASH_REMATCH[1]))
    passed=$((passed + BASH_REMATCH[2] - BASH_REMATCH[1] - s))
    skipped=$((skipped + s))
  else
    failed=$((failed + 1))
  fi
done
# The slowest ten of both runs, for whoever wants CI faster (docs/BUILD.md).
# (awk, not head: under pipefail a head that stops reading fails the script.)
echo "test: the slowest ten tests (s):"
sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec$/\2 \1/p' "$logs"/*.log |
  sort -rn | awk 'NR <= 10 { print "  " $0 }'
# Why each test skipped: ctest keeps a skipped test's output in its log only.
if ((skipped > 0)); then
  echo "test: skipped, and why:"
  for last in "$logs/main-last.txt" "$logs/unit-last.txt" \
              "${FSCOST_FUZZ_BUILD:-build-fuzz}/Testing/Temporary/LastTest.log"; do
    [ -f "$last" ] || continue
    awk '/^[0-9]+\/[0-9]+ Testing: / { name = $3 }
         /: Skipped$/ { getline why; print "  " name ": " why }' "$last"
  done
fi
stage "everything" "$begin"
((failed == 0)) || status=1
echo "test: $passed passed, $failed failed, $skipped skipped"
exit "$status"
