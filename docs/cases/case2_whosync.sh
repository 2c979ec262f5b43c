#!/bin/bash
# Case 2: who queues the SYNC-reason writeback that runs in the middle of fs_mark?
. "$(dirname $0)/lib.sh"
eval M=\$C2${1:-B}; ev_setup "$M"; mkdir $EV_MNT/d
bpftrace -e 'tracepoint:writeback:writeback_queue { printf("%d ms queue reason=%d comm=%s pid=%d sb_dev=%d bdi=%s\n%s\n", elapsed/1000000, args->reason, comm, pid, args->sb_dev, args->name, kstack(8)); }
 tracepoint:sched:sched_process_exec /comm == "fs_mark"/ { printf("%d ms exec fs_mark\n", elapsed/1000000); }
 tracepoint:sched:sched_process_exit /comm == "fs_mark"/ { printf("%d ms exit fs_mark\n", elapsed/1000000); }' > ${EVIDENCE:-/work/peers/evidence}/data/whosync.txt 2>&1 & BP=$!
sleep 3; $(dirname $0)/case2_work.sh; sleep 0.3; kill -INT $BP; wait $BP; ev_cleanup
