# shellcheck shell=bash
# Sourced by bench/run: fscost at many CPUs, on Debian's stock kernel under
# QEMU (tests/vm/run; issue 44). The guest boots with VM_CPUS vCPUs (2
# online while its modules load, then the rest: loading modules with 64
# emulated CPUs online is what is slow), records a VM_CPUS-thread create
# workload in one shared directory on a RAM-disk XFS, and checks what the
# CPU count stresses: per-CPU arrays summed over every CPU (each op counted
# exactly once), the maps' default sizes at that count (no drop), and the
# drain (reading the maps once the recording stopped). Emulated on 2 host
# CPUs: the times are not performance figures, and the table says so.

# -F 99, not the default 997: every emulated CPU's sampling interrupt is
# emulated on the host's 2 (64 × 997 Hz stalled a 64-thread run for 30
# minutes); the sample rate sizes no map.
VM_CPUS=64 VM_FILES=50 VM_FREQ=99 VM_COMPARE_FILES=2000

# vm_guest: what runs inside the guest, as root, in the checkout.
vm_guest() {
  cat <<'EOS'
set -euo pipefail
modprobe xfs
modprobe loop
. scripts/ramdisk.sh
ramdisk_init 1G
ramdisk_fresh
out=/tmp/vm-bench
mkdir -p "$out"
echo "kernel $(uname -r)"
echo "online CPUs: $(nproc)"
echo "recording from $(date +%T)"
"$FSCOST" record -q -F "$FREQ" -o "$out/p.profile" -- "$WORKLOAD" "$RD_MNT" --workload create \
  --threads "$THREADS" --dirs shared --files "$FILES" >"$out/workload.json" 2>"$out/record.log" ||
  { cat "$out/record.log"; exit 1; }
echo "recorded until $(date +%T)"
"$FSCOST" report "$out/p.profile" --format json >"$out/report.json"
python3 - "$out/workload.json" "$out/report.json" <<'PY'
import json, sys
issued = json.load(open(sys.argv[1]))
rep = json.load(open(sys.argv[2]))
counted = {o["name"]: o["count"] for o in rep["ops"]}
for op, n in issued["counts"].items():
    # open and close: the dynamic loader's too (see vm_compare_guest)
    if n and op not in ("open", "close"):
        print(f"op {op} issued {n} counted {counted.get(op, 0)}")
drops = {k: v for k, v in rep["drops"].items() if v}
print("drops", sum(drops.values()), json.dumps(drops, sort_keys=True))
print("cpus", rep["meta"]["cpus"])
print("drain_ms %.1f" % (rep["meta"].get("drain_ns", 0) / 1e6))
print("samples", rep["samples_total"])
PY
EOS
}

# vm_compare_guest: a 5+5 compare in the guest (2 vCPUs); every run's
# profile against the workload's own counts, then the first screen.
vm_compare_guest() {
  cat <<'EOS'
set -euo pipefail
modprobe xfs
modprobe loop
echo "kernel $(uname -r)"
out=/tmp/vm-compare
"$FSCOST" compare --a 'mkfs: -m rmapbt=0' --b 'mkfs: -m rmapbt=1' --workload create \
  --files "$FILES" --runs 5 --size 512M -o "$out" >/dev/null 2>"$out.log" ||
  { cat "$out.log"; exit 1; }
for j in "$out"/runs/t*/*/run-*.json; do
  "$FSCOST" report "${j%.json}.profile" --format json >"${j%.json}.report.json"
done
python3 - "$out" <<'PY'
import glob, json, sys
runs = sorted(glob.glob(sys.argv[1] + "/runs/t*/*/run-*.json"))
runs = [r for r in runs if not r.endswith(".report.json")]
equal = 0
for r in runs:
    issued = json.load(open(r))["workload"]["counts"]
    counted = {o["name"]: o["count"] for o in json.load(open(r[:-5] + ".report.json"))["ops"]}
    # open and close: the dynamic loader's, of the workload's libraries,
    # are the process's too, and not in the workload's own count.
    bad = {op: (n, counted.get(op, 0)) for op, n in issued.items()
           if n and op not in ("open", "close") and counted.get(op, 0) != n}
    equal += not bad
    if bad:
        print("mismatch", r, bad)
print(f"compare runs {len(runs)} counted exactly {equal}")
PY
echo "first screen:"
sed -n '1,40p' "$out/summary.txt"
EOS
}

bench_vm() {
  echo "## ${VM_CPUS} vCPUs: per-CPU maps, drops and drain (stock kernel under QEMU)"
  echo
  need_root vm || return 0
  need_exe vm "$FSCOST" "$WORKLOAD" || return 0
  local why
  if ! why=$("$ROOT_DIR/tests/vm/run" --check 2>&1); then
    skip "vm: ${why#vm: }"
    return 0
  fi
  local files=$VM_FILES mem=$((2048 + 32 * VM_CPUS))
  [ "$SMOKE" = 1 ] && files=20
  local start=$SECONDS rc=0
  # --tcg multi: 64 vCPUs on one host thread would take hours; a thread each
  # risks the stale-int3 hang (tests/vm/run), which this bench then reports.
  (cd "$ROOT_DIR" && "$ROOT_DIR/tests/vm/run" --cpus "$VM_CPUS" --online 2 --mem "$mem" \
     --tcg multi --timeout 3000 -- env FSCOST="$FSCOST" WORKLOAD="$WORKLOAD" THREADS="$VM_CPUS" \
     FILES="$files" FREQ="$VM_FREQ" bash -c "$(vm_guest)") >"$work/vm.out" 2>&1 || rc=$?
  local wall=$((SECONDS - start))
  if [ "$rc" -ne 0 ]; then
    echo "vm: the guest run failed (exit $rc):" >&2
    tail -n 40 "$work/vm.out" >&2
    exit 1
  fi
  # Kept: a table that fails to come out must not cost the guest's run.
  cp "$work/vm.out" "${TMPDIR:-/tmp}/fscost-bench-vm.out"
  python3 - "$work/vm.out" "$VM_CPUS" "$files" "$wall" "$VM_FREQ" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
cpus, files, wall, freq = sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
kernel = re.search(r"^kernel (\S+)", text, re.M)
online = re.search(r"^online CPUs: (\d+)", text, re.M).group(1)
ops = re.findall(r"^op (\S+) issued (\d+) counted (\d+)", text, re.M)
drops = re.search(r"^drops (\d+) (.*)$", text, re.M)
drain = re.search(r"^drain_ms (\S+)", text, re.M).group(1)
samples = re.search(r"^samples (\d+)", text, re.M).group(1)
meta_cpus = re.search(r"^cpus (\d+)", text, re.M).group(1)
print(f"Kernel {kernel.group(1) if kernel else '?'} (Debian's stock image), XFS as a module, default map sizes.")
print()
began = re.search(r"^recording from (\S+)", text, re.M).group(1)
ended = re.search(r"^recorded until (\S+)", text, re.M).group(1)
print(f"Recorded {began}–{ended} by the guest's clock, cpu-clock at {freq} Hz.")
print()
print("| vCPUs online | threads × files | operation | done (workload) | counted (fscost) | equal | drops | drain | samples |")
print("|---|---|---|---|---|---|---|---|---|")
for op, done, counted in ops:
    print(f"| {online} (profile: {meta_cpus}) | {cpus} × {files} | {op} | {done} | {counted} | "
          f"{'yes' if done == counted else '**no**'} | {drops.group(1)} {drops.group(2) if drops.group(1) != '0' else ''} | "
          f"{drain} ms | {samples} |")
print()
print(f"Host wall clock for the whole guest run (boot, module load, onlining, mkfs, record, report): "
      f"{wall} s, emulated (TCG) on the host's CPUs: not a performance figure.")
PY
  echo
  echo "### A 5+5 compare in the guest (2 vCPUs)"
  echo
  local cfiles=$VM_COMPARE_FILES
  [ "$SMOKE" = 1 ] && cfiles=200
  rc=0
  (cd "$ROOT_DIR" && "$ROOT_DIR/tests/vm/run" --mem 3072 --timeout 3000 -- \
     env FSCOST="$FSCOST" FILES="$cfiles" bash -c "$(vm_compare_guest)") >"$work/vmc.out" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "vm: the guest compare failed (exit $rc):" >&2
    tail -n 40 "$work/vmc.out" >&2
    exit 1
  fi
  grep -E '^(kernel|compare runs|mismatch)' "$work/vmc.out" | sed 's/^/    /'
  echo
  echo "Its first screen (\`summary.txt\`), \`--workload create --files $cfiles --runs 5\`, rmapbt=0 against rmapbt=1:"
  echo
  echo '```'
  sed -n '/^first screen:$/,$p' "$work/vmc.out" | sed 1d
  echo '```'
  echo
  echo "command: \`bench/run vm --vm-cpus $VM_CPUS --vm-files $VM_FILES --vm-compare-files $VM_COMPARE_FILES\`"
  echo
}
