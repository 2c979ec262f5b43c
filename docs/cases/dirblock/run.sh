#!/bin/bash
# Case 1: -n size=4096 (A) vs -n size=65536 (B); 1 thread, shared dir, N creates; perf cpu-clock -g
source "$(dirname "$0")/../lib.sh"
N=${N:-40000}; F=${F:-4999}; FC=/work/peers/FlameGraph
cd ${EVIDENCE:-/work/peers/evidence}/cases3/case1
for rep in 1 2 3; do for cfg in A B; do
  [ $cfg = A ] && opt="-n size=4096" || opt="-n size=65536"
  EV_SIZE=512M ev_setup "/sbin/mkfs.xfs -f $opt" || exit 1
  mkdir -p /mnt/ev/w
  perf record -q -F $F -g -o $cfg$rep.data -- /work/peers/fscost-snap/fscost-workload /mnt/ev/w --workload create --files $N --threads 1 > $cfg$rep.json 2>/dev/null
  perf script -i $cfg$rep.data 2>/dev/null | $FC/stackcollapse-perf.pl > $cfg$rep.folded
  rm -f $cfg$rep.data
  echo "$cfg$rep $(grep -o '"elapsed_s":[0-9.]*' $cfg$rep.json) samples=$(awk '{s+=$NF}END{print s}' $cfg$rep.folded)"
  ev_cleanup
done; done
