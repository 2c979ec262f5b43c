#!/bin/bash
# Case 2 timing: interleaved A,B, fresh fs each; rusage of fs_mark(+sync) and system-wide sys ticks
. "$(dirname $0)/lib.sh"
REPS=${REPS:-4}; OUT=${EVIDENCE:-/work/peers/evidence}/data/case2_time.tsv
echo -e "rep\tcfg\tfiles\treal_s\tuser_s\tsys_s\tsys_us_per_file\tsyswide_sys_us_per_file\tfsmark_files_per_s" > $OUT
stat_sys() { awk '/^cpu /{print $4+$7+$8}' /proc/stat; }
for r in $(seq 1 $REPS); do for cfg in A B; do
  eval M=\$C2$cfg; ev_setup "$M"; mkdir $EV_MNT/d
  s0=$(stat_sys)
  /usr/bin/time -o /tmp/ev.time -f "%e %U %S" $(dirname $0)/case2_work.sh
  s1=$(stat_sys)
  n=$(find $EV_MNT/d -type f | wc -l); read re us sy < /tmp/ev.time
  fps=$(awk '$2 ~ /^[0-9]+$/ && NF==5 {print $4}' ${EVIDENCE:-/work/peers/evidence}/data/fsmark.last)
  echo -e "$r\t$cfg\t$n\t$re\t$us\t$sy\t$(echo "scale=3; $sy*1000000/$n" | bc)\t$(echo "scale=3; ($s1-$s0)*10000/$n" | bc)\t$fps" | tee -a $OUT
  ev_cleanup
done; done
