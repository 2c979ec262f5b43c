#!/bin/bash
# Case 2: timeline (250 ms buckets) of fs_mark creates vs writeback/rmap activity, to see WHEN the extra kworker work runs
. "$(dirname $0)/lib.sh"
D=${EVIDENCE:-/work/peers/evidence}/data/timeline2; mkdir -p $D
for cfg in A B; do
  eval M=\$C2$cfg; ev_setup "$M"; mkdir $EV_MNT/d
  DEV=$(( (0x$(stat -c %t $EV_LOOP) << 20) | 0x$(stat -c %T $EV_LOOP) ))
  bpftrace -e "
   tracepoint:xfs:xfs_create /args->dev == $DEV/ { @create = count(); }
   tracepoint:xfs:xfs_rmap_map /args->dev == $DEV/ { @rmap_map = count(); }
   tracepoint:xfs:xfs_rmap_convert /args->dev == $DEV/ { @rmap_convert = count(); }
   tracepoint:writeback:writeback_start { @wb_start[args->reason] = count(); }
   tracepoint:xfs:xfs_log_grant_sleep /args->dev == $DEV/ { @log_grant_sleep = count(); }
   tracepoint:sched:sched_process_exit /comm == \"fs_mark\" || comm == \"sync\"/ { printf(\"%d ms: exit %s\\n\", elapsed/1000000, comm); }
   interval:ms:250 { printf(\"%d ms:\", elapsed/1000000); print(@create); print(@rmap_map); print(@rmap_convert); print(@log_grant_sleep); print(@wb_start); clear(@create); clear(@rmap_map); clear(@rmap_convert); clear(@wb_start); clear(@log_grant_sleep); }" > $D/$cfg.txt 2>&1 & BP=$!
  sleep 3; $(dirname $0)/case2_work.sh; sleep 0.5; kill -INT $BP; wait $BP
  ev_cleanup
done
