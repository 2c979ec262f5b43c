#!/usr/bin/env bash
# The main job on a fresh machine: install, build, make a RAM-disk XFS,
# record a small metadata workload under fscost, print the report.
set -euo pipefail
cd "$(dirname "$0")/.."
((EUID == 0)) || { echo "demo: needs root (BPF, loop device, mount); run it as root (sudo scripts/demo.sh)" >&2; exit 1; }

scripts/setup.sh
scripts/build.sh >/dev/null
. scripts/ramdisk.sh

out=${FSCOST_DEMO_OUT:-demo.profile}
ramdisk_init 1G
ramdisk_fresh
echo "demo: XFS on $RD_LOOP (image $RD_IMG) mounted at $RD_MNT"
build/userspace/fscost record -o "$out" -- build/userspace/fscost-workload "$RD_MNT" --files 5000 --threads 2
ramdisk_umount
build/userspace/fscost report "$out"
echo "demo: profile kept in $out (try: build/userspace/fscost report $out --format folded)"
