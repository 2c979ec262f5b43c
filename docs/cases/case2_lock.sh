#!/bin/bash
# Case 2: what lock:contention_begin sees during the workload (flags SPIN=1 READ=2 WRITE=4 RT=8 PERCPU=16 MUTEX=32)
. "$(dirname $0)/lib.sh"
D=${EVIDENCE:-/work/peers/evidence}/data/lock2; mkdir -p $D; REPS=${REPS:-2}
for r in $(seq 1 $REPS); do for cfg in A B; do
  eval M=\$C2$cfg; ev_setup "$M"; mkdir $EV_MNT/d
  bpftrace -e '
   tracepoint:lock:contention_begin { @cnt[args->flags, comm] = count();
       @flags[args->flags] = count(); @st[args->flags, kstack(8)] = count(); @t0[tid] = nsecs; @fl[tid] = args->flags; }
   tracepoint:lock:contention_end /@t0[tid]/ { @wait_us[@fl[tid]] = sum((nsecs - @t0[tid]) / 1000); delete(@t0[tid]); delete(@fl[tid]); }
   END { clear(@t0); clear(@fl); }' > $D/$cfg$r.bt 2>&1 & BP=$!
  sleep 3; $(dirname $0)/case2_work.sh; sleep 0.2; kill -INT $BP; wait $BP
  echo "$cfg$r done"; ev_cleanup
done; done
