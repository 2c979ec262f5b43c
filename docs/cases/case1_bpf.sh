#!/bin/bash
# Case 1: exact event counts per create via xfs tracepoints (interleaved A,B)
. "$(dirname $0)/lib.sh"
N=${N:-50000}; REPS=${REPS:-2}; D=${EVIDENCE:-/work/peers/evidence}/data/bpf1; mkdir -p $D
TPS="xfs_create xfs_trans_alloc xfs_trans_commit xfs_trans_roll xfs_trans_dup xfs_trans_cancel xfs_defer_finish xfs_defer_trans_roll xfs_defer_create_intent xfs_defer_finish_item xfs_defer_relog_intent xfs_attr_sf_addname xfs_attr_sf_add xfs_attr_sf_create xfs_attr_leaf_add xfs_cil_whiteout_mark xfs_log_reserve xfs_log_regrant xfs_log_ticket_regrant xfs_log_ticket_ungrant xfs_rmap_map xfs_rmap_defer"
PROBES=$(for t in $TPS; do printf 'tracepoint:xfs:%s,' $t; done); PROBES=${PROBES%,}
for r in $(seq 1 $REPS); do for cfg in A B; do
  eval M=\$C1$cfg; ev_setup "$M"; mkdir $EV_MNT/d
  DEV=$(( (0x$(stat -c %t $EV_LOOP) << 20) | 0x$(stat -c %T $EV_LOOP) ))   # kernel dev_t of our loop dev
  bpftrace -e "$PROBES /args->dev == $DEV/ { @[probe, comm == \"fsstress\" ? \"fsstress\" : \"other\"] = count(); }
    tracepoint:xfs:xfs_attr_defer_add { @[probe, comm == \"fsstress\" ? \"fsstress\" : \"other(any fs)\"] = count(); }
    tracepoint:xfs:xfs_trans_commit /args->dev == $DEV && comm == \"fsstress\"/ { @commit_stack[kstack(7)] = count(); }
    tracepoint:xfs:xfs_defer_create_intent /args->dev == $DEV/ { @intent_type[str(args->name)] = count(); }" \
    > $D/$cfg$r.bt 2>&1 & BP=$!
  sleep 3   # let bpftrace attach
  $FSS -z -f creat=1 -n $N -p 2 -d $EV_MNT/d -s $r >/dev/null
  sleep 0.5; kill -INT $BP; wait $BP; grep -q ERROR $D/$cfg$r.bt && grep ERROR $D/$cfg$r.bt | grep -v RLIMIT
  n=$(find $EV_MNT/d -type f | wc -l); echo "creates_on_disk $n" >> $D/$cfg$r.bt
  echo "run $cfg$r creates=$n"
  ev_cleanup
done; done
