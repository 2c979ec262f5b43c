#!/bin/bash
# Case 3: -d agcount=4 (A) vs -d agcount=1 (B); create, T threads, dirs D, write W; bpftrace lock contention + off-CPU
source "$(dirname "$0")/../lib.sh"
# xfsprogs refuses agcount<2 unless the fstests escape hatch env is set
export TEST_DIR=/nonexistent TEST_DEV=/nonexistent QA_CHECK_FS=1
N=${N:-10000}; T=${T:-2}; D=${D:-private}; W=${W:-4096}; TAG=${TAG:-t2}
cd ${EVIDENCE:-/work/peers/evidence}/cases3/case3
for rep in 1 2 3; do for cfg in A B; do
  [ $cfg = A ] && opt="-d agcount=4" || opt="-d agcount=1"
  EV_SIZE=512M ev_setup "/sbin/mkfs.xfs -f $opt" || exit 1
  mkdir -p /mnt/ev/w
  wopt=; [ "$W" != 0 ] && wopt="--write $W"
  bpftrace -q -f json locks.bt -c "/work/peers/fscost-snap/fscost-workload /mnt/ev/w --workload create --files $N --threads $T --dirs $D $wopt" > $TAG.$cfg$rep.bt.json 2>$TAG.$cfg$rep.bt.err
  echo "$TAG $cfg$rep $(grep -o '"elapsed_s":[0-9.]*,"ops_per_s":[0-9.]*,"user_s":[0-9.]*,"sys_s":[0-9.]*' $TAG.$cfg$rep.bt.json) df=$(df --output=pcent /mnt/ev | tail -1)"
  ev_cleanup
done; done
