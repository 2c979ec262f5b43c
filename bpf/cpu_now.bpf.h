/* SPDX-License-Identifier: GPL-2.0 */
/* The per-CPU slot saying what runs on each CPU. Its own header because two
 * BPF objects use the one map: fscost.bpf.c writes it, functions.bpf.c reads
 * the current operation from it (userspace hands it the map's fd). */
#ifndef FSCOST_CPU_NOW_BPF_H
#define FSCOST_CPU_NOW_BPF_H

/* What runs on each CPU: the task, whether it has state, and while it runs
 * the fields of its operation, which are its state's (fscost_task) while it
 * is off CPU. sched_switch (always attached) fills the slot from next's
 * state and stores it back into prev's; sys_enter, sys_exit and the XFS
 * events then read and write the slot alone, with no task storage call
 * (a fifth of sys_enter's cpu-clock samples were in that call, and most of
 * the rest waited on cold lines, the state's among them). */
struct fscost_cpu_now {
	__u64 task;		/* bpf_get_current_task(); 0 before this CPU's first switch */
	__u32 op;
	__u16 has_state;
	__u16 gen;		/* states_gen when written */
	__u32 trans;		/* xfs_trans_alloc in the operation */
	__u32 run;		/* run_gen when filled: another recording's fields are stale */
	__u64 start_ns;		/* the operation's fields, as in fscost_task */
	__u64 oncpu_since_ns;
	__u64 oncpu_ns;
	__u64 offcpu_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fscost_cpu_now);
} cpu_now SEC(".maps");

static __always_inline struct fscost_cpu_now *cpu_now_slot(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&cpu_now, &zero);
}

#endif /* FSCOST_CPU_NOW_BPF_H */
