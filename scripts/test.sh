#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test (unit and runtime), then
# the hardening stage (scripts/hardening.sh: sanitized unit tests and the
# readers' fuzz targets; FSCOST_HARDENING=0 leaves it out).
# Runtime tests load BPF and mount XFS, so they need root; without it they
# skip with a reason (and fail when CI=true).
# Ends with one line for both test runs, "test: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
scripts/build.sh

if ((EUID != 0)); then
  echo "test: not root: runtime tests (real BPF, XFS on a RAM disk) will be skipped" >&2
fi
logs=$(mktemp -d "${TMPDIR:-/tmp}/fscost-test.XXXXXX")
trap 'rm -rf "$logs"' EXIT
status=0

# --no-tests=error: a build that registered no tests must not pass as green.
ctest --test-dir build --output-on-failure --no-tests=error 2>&1 | tee "$logs/1-ctest.log" ||
  status=1

if [[ ${FSCOST_HARDENING:-1} != 0 ]]; then
  start=$SECONDS
  scripts/hardening.sh 2>&1 | tee "$logs/2-hardening.log" || status=1
  echo "test: the hardening stage took $((SECONDS - start)) s"
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
echo "test: the slowest ten tests (s):"
sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec$/\2 \1/p' "$logs"/*.log |
  sort -rn | head -10 | sed 's/^/  /'
((failed == 0)) || status=1
echo "test: $passed passed, $failed failed, $skipped skipped"
exit "$status"
