#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test (unit and runtime).
# Runtime tests load BPF and mount XFS, so they need root; without it they
# skip with a reason (and fail when CI=true).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
scripts/build.sh

if ((EUID != 0)); then
  echo "test: not root: runtime tests (real BPF, XFS on a RAM disk) will be skipped" >&2
fi
# --no-tests=error: a build that registered no tests must not pass as green.
exec ctest --test-dir build --output-on-failure --no-tests=error
