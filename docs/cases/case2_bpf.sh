#!/bin/bash
# Case 2: exact per-file event counts (our loop dev only), by comm class
. "$(dirname $0)/lib.sh"
D=${EVIDENCE:-/work/peers/evidence}/data/bpf2; mkdir -p $D; REPS=${REPS:-2}
TPS="xfs_create xfs_rmap_map xfs_rmap_convert xfs_rmap_defer xfs_rmap_unmap xfs_trans_commit xfs_trans_roll xfs_defer_trans_roll xfs_log_grant_sleep xfs_cil_whiteout_mark"
PROBES=$(for t in $TPS; do printf 'tracepoint:xfs:%s,' $t; done); PROBES=${PROBES%,}
for r in $(seq 1 $REPS); do for cfg in A B; do
  eval M=\$C2$cfg; ev_setup "$M"; mkdir $EV_MNT/d
  DEV=$(( (0x$(stat -c %t $EV_LOOP) << 20) | 0x$(stat -c %T $EV_LOOP) ))
  bpftrace -e "$PROBES /args->dev == $DEV/ { @[probe, comm] = count(); }" > $D/$cfg$r.bt 2>&1 & BP=$!
  sleep 3; $(dirname $0)/case2_work.sh; sleep 0.3; kill -INT $BP; wait $BP
  echo "$cfg$r: $(find $EV_MNT/d -type f | wc -l) files"; ev_cleanup
done; done
