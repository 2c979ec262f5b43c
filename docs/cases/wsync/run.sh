#!/bin/bash
# Case 2: default mount (A) vs -o wsync (B); create, 1 thread, shared dir; bpftrace off-CPU by kstack
source "$(dirname "$0")/../lib.sh"
N=${N:-3000}; T=${T:-1}
cd ${EVIDENCE:-/work/peers/evidence}/cases3/case2
for rep in 1 2 3; do for cfg in A B; do
  EV_SIZE=512M ev_setup "/sbin/mkfs.xfs -f" || exit 1
  if [ $cfg = B ]; then umount /mnt/ev; mount -o wsync $EV_LOOP /mnt/ev; fi
  grep /mnt/ev /proc/mounts > $cfg$rep.mount
  mkdir -p /mnt/ev/w
  bpftrace -q -f json offcpu.bt -c "/work/peers/fscost-snap/fscost-workload /mnt/ev/w --workload create --files $N --threads $T" > $cfg$rep.bt.json 2>$cfg$rep.bt.err
  echo "$cfg$rep $(grep -o '"elapsed_s":[0-9.]*' $cfg$rep.bt.json) $(cut -d' ' -f4 $cfg$rep.mount)"
  ev_cleanup
done; done
