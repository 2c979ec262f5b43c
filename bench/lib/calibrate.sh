# shellcheck shell=bash
# Sourced by bench/run: issue 30's done-when for fscost calibrate. One
# calibration of a spec, then CAL_N A-vs-A compares of the same spec with
# --calibration; each compare's runs are also diffed without it (fscost
# diff, the same runs), and calibrate.py counts the compares in which any
# tested op's on-CPU, off-CPU or latency time came out significant, with
# the floor and without. It reports, never gates. Not in `all` or --smoke:
# CAL_N + 1 compares take tens of minutes.

CAL_N=20 CAL_RUNS=5 CAL_COMPARES=8 CAL_FILES=5000 CAL_SPEC='mkfs: -m rmapbt=1'

bench_calibrate() {
  echo "## calibrate: A-vs-A compares floored by this host's between-compare noise"
  echo
  need_root calibrate || return 0
  need_exe calibrate "$FSCOST" || return 0
  local cal="$work/calibration" common i
  common=(--size 512M --workload create --files "$CAL_FILES" --threads 1)
  "$FSCOST" calibrate -q --config "$CAL_SPEC" "${common[@]}" --runs "$CAL_RUNS" \
    --compares "$CAL_COMPARES" -o "$cal" >"$cal.out" 2>"$cal.err" || {
    echo "fscost calibrate failed: $(tail -3 "$cal.err")"
    echo
    return 0
  }
  echo '```'
  cat "$cal.out"
  echo '```'
  echo
  for i in $(seq 1 "$CAL_N"); do
    local out="$work/cal-compare-$i"
    "$FSCOST" compare -q --a "$CAL_SPEC" --b "$CAL_SPEC" "${common[@]}" --runs "$CAL_RUNS" \
      --calibration "$cal/calibration.json" -o "$out" >/dev/null 2>"$out.err" || true
    "$FSCOST" diff -q --format json "$out/runs/t1/a" "$out/runs/t1/b" >"$out.plain.json" \
      2>>"$out.err" || true
  done
  python3 "$LIB/calibrate.py" "$work" "$CAL_N"
  # CAL_KEEP=DIR keeps the calibration and the compares (the work
  # directory goes when bench/run ends).
  [ -z "${CAL_KEEP:-}" ] || cp -r "$work"/calibration "$work"/cal-compare-* "$CAL_KEEP"/
  echo
  echo "command: \`bench/run calibrate --cal-n $CAL_N --cal-files $CAL_FILES\`" \
       "(--config '$CAL_SPEC', $CAL_RUNS runs a side, calibrated on $CAL_COMPARES compares" \
       "of $CAL_RUNS+$CAL_RUNS)"
  echo
}
