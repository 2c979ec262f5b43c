#!/usr/bin/env bash
# unit.bench_baseline: bench/run --baseline takes another build's fscost, or
# a revision of this tree that it builds once into $BUILD/baselines/<commit>
# and reuses (bench/lib/baseline.sh). Checked without building: a revision
# whose build is cached resolves to it, a binary resolves to itself, and a
# word that is neither stops bench/run with exit 2 and says why.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
fail() {
  echo "FAILED: $*"
  status=1
}

resolve() {  # resolve WORD: BASELINE after resolve_baseline, with BUILD=$work
  (
    BUILD=$work
    # shellcheck source=bench/lib/common.sh
    . "$root/bench/lib/common.sh"
    # shellcheck source=bench/lib/baseline.sh
    . "$root/bench/lib/baseline.sh"
    BASELINE=$1
    resolve_baseline
    echo "$BASELINE|$BASELINE_LABEL"
  )
}

if git -C "$root" rev-parse --verify -q HEAD >/dev/null; then
  sha=$(git -C "$root" rev-parse HEAD)
  cached=$work/baselines/$sha/build/userspace
  mkdir -p "$cached"
  printf '#!/bin/sh\n' >"$cached/fscost"
  printf '#!/bin/sh\n' >"$cached/fscost-workload"
  chmod +x "$cached/fscost" "$cached/fscost-workload"
  got=$(resolve HEAD)
  [ "${got%%|*}" = "$cached/fscost" ] || fail "HEAD resolved to '${got%%|*}', not the cached $cached/fscost"
  [[ ${got#*|} == "${sha:0:12} ("* ]] || fail "HEAD's label is '${got#*|}', not its commit and subject"
  got=$(resolve "$cached/fscost")
  [ "${got%%|*}" = "$cached/fscost" ] || fail "a binary resolved to '${got%%|*}', not itself"
else
  echo "not a git checkout: the revision cases are not checked"
fi

set +e
out=$(BUILD=$work "$root/bench/run" bpf --baseline no-such-revision-or-file 2>&1)
rc=$?
set -e
[ "$rc" = 2 ] || fail "bench/run --baseline no-such-revision-or-file exited $rc, not 2"
grep -q "is neither an fscost binary nor a revision" <<<"$out" ||
  fail "bench/run --baseline no-such-revision-or-file did not say why: $out"
[ -z "$(ls "$work/baselines" 2>/dev/null | grep -v "^${sha:-x}$")" ] ||
  fail "a bad --baseline left a build directory"

[ "$status" = 0 ] && echo "bench --baseline: ok"
exit "$status"
