// SPDX-License-Identifier: GPL-2.0
/*
 * fscost kernel side, aggregated in the kernel:
 *  - syscalls.bpf.h: per-operation exact count, latency, on/off-CPU time
 *  - sched.bpf.h:    sched_switch accounting, off-CPU stacks and wakers, forks
 *  - locks.bpf.h:    lock contention, spin vs sleep
 *  - xfs.bpf.h:      XFS events per operation, block bytes written
 *  - samples.bpf.h:  cpu-clock samples with kernel stacks
 *
 * Each hook has one handler and thin SEC() wrappers per attach flavour
 * (tp_btf, raw_tp); userspace autoloads the flavour it probed and the
 * probe groups the user asked for.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "fscost.h"

#include "common.bpf.h"
#include "syscalls.bpf.h"
#include "sched.bpf.h"
#include "locks.bpf.h"
#include "xfs.bpf.h"
#include "samples.bpf.h"

char LICENSE[] SEC("license") = "GPL";
