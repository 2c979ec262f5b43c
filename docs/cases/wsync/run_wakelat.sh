#!/bin/bash
source "$(dirname "$0")/../lib.sh"
cd ${EVIDENCE:-/work/peers/evidence}/cases3/case2
for rep in 1 2 3; do for cfg in A B; do
  EV_SIZE=512M ev_setup "/sbin/mkfs.xfs -f" || exit 1
  [ $cfg = B ] && { umount /mnt/ev; mount -o wsync $EV_LOOP /mnt/ev; }
  mkdir -p /mnt/ev/w
  bpftrace -q wakelat.bt -c "/work/peers/fscost-snap/fscost-workload /mnt/ev/w --workload create --files 3000 --threads 1" > wl.$cfg$rep.txt 2>/dev/null
  echo "== $cfg$rep"; grep -E '^@(sleep|rq)' wl.$cfg$rep.txt
  ev_cleanup
done; done
