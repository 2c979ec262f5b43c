#!/bin/bash
# usage: perf_runs.sh CASE(1|2) REPS  -- interleaved A,B; fresh fs; system-wide cpu-clock profile
. "$(dirname $0)/lib.sh"
CASE=$1; REPS=${2:-3}; D=${EVIDENCE:-/work/peers/evidence}/data/perf$CASE; mkdir -p $D
FG=/work/peers/FlameGraph
: > $D/runs.tsv
for r in $(seq 1 $REPS); do for cfg in A B; do
  eval M=\$C$CASE$cfg; ev_setup "$M"; mkdir $EV_MNT/d
  if [ $CASE = 1 ]; then W="$FSS -z -f creat=1 -n ${N:-50000} -p 2 -d $EV_MNT/d -s $r"
  else W="${W2:?}"; fi
  perf record -q -e cpu-clock -c 200000 -g -a -o $D/$cfg$r.data -- /usr/bin/time -o /tmp/ev.time -f "%e %U %S" $W >/dev/null 2>&1
  n=$(find $EV_MNT/d -type f | wc -l)
  echo -e "$r\t$cfg\t$n\t$(cat /tmp/ev.time)" | tee -a $D/runs.tsv
  ev_cleanup
  perf script -i $D/$cfg$r.data 2>/dev/null | $FG/stackcollapse-perf.pl 2>/dev/null \
     | sed -E 's/^kworker[^;]*/kworker/; s/^swapper[^;]*/swapper/' > $D/$cfg$r.folded
  rm -f $D/$cfg$r.data
done; done
