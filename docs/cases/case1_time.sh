#!/bin/bash
# Case 1 timing: interleaved A,B; fresh fs each run; fsstress creat-only, 2 procs x N ops
. "$(dirname $0)/lib.sh"
N=${N:-50000}; REPS=${REPS:-5}; OUT=${OUT:-${EVIDENCE:-/work/peers/evidence}/data/case1_time.tsv}
echo -e "rep\tcfg\tcreates\treal_s\tuser_s\tsys_s\tsys_us_per_create\tsyswide_sys_us_per_create" > $OUT
stat_sys() { awk '/^cpu /{print $4+$7+$8}' /proc/stat; }   # system+irq+softirq ticks (USER_HZ)
for r in $(seq 1 $REPS); do for cfg in A B; do
  eval M=\$C1$cfg; ev_setup "$M"; mkdir $EV_MNT/d
  s0=$(stat_sys)
  /usr/bin/time -o /tmp/ev.time -f "%e %U %S" $FSS -z -f creat=1 -n $N -p 2 -d $EV_MNT/d -s $r >/dev/null
  s1=$(stat_sys)
  n=$(find $EV_MNT/d -type f | wc -l)
  read re us sy < /tmp/ev.time
  echo -e "$r\t$cfg\t$n\t$re\t$us\t$sy\t$(echo "scale=3; $sy*1000000/$n" | bc)\t$(echo "scale=3; ($s1-$s0)*10000/$n" | bc)" | tee -a $OUT
  ev_cleanup
done; done
