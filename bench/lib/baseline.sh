# shellcheck shell=bash
# Sourced by bench/run: --baseline names the build to pair with, as another
# build's fscost binary or as a revision of this tree. A revision is built
# once (fscost and fscost-workload, from `git archive`, so the work tree and
# its .git are untouched) into $BUILD/baselines/<commit> and reused.

BASELINE_LABEL=""

resolve_baseline() {
  [ -n "$BASELINE" ] || return 0
  if [ -f "$BASELINE" ] && [ -x "$BASELINE" ]; then
    BASELINE_LABEL=$(show_cmd "$BASELINE")
    return 0
  fi
  local sha dir
  if ! sha=$(git -C "$ROOT_DIR" rev-parse --verify -q "$BASELINE^{commit}"); then
    echo "bench/run: --baseline $BASELINE is neither an fscost binary nor a revision of" \
         "$ROOT_DIR" >&2
    exit 2
  fi
  dir=$BUILD/baselines/$sha
  if [ ! -x "$dir/build/userspace/fscost" ] || [ ! -x "$dir/build/userspace/fscost-workload" ]; then
    echo "bench/run: building the baseline ${sha:0:12} into $dir (once; its log: build.log)" >&2
    rm -rf "$dir"
    mkdir -p "$dir/src"
    git -C "$ROOT_DIR" archive "$sha" | tar -x -C "$dir/src"
    if ! { cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
           cmake --build "$dir/build" -j"$(nproc)" --target fscost fscost-workload; } \
         >"$dir/build.log" 2>&1; then
      tail -n 30 "$dir/build.log" >&2
      echo "bench/run: the baseline ${sha:0:12} did not build" >&2
      exit 1
    fi
  fi
  BASELINE=$dir/build/userspace/fscost
  BASELINE_LABEL="${sha:0:12} ($(git -C "$ROOT_DIR" log -1 --format=%s "$sha" | cut -c1-60)…)"
}
