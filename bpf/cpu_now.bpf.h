/* SPDX-License-Identifier: GPL-2.0 */
/* The per-CPU slot saying what runs on each CPU. Its own header because two
 * BPF objects use the one map: fscost.bpf.c writes it, functions.bpf.c reads
 * the current operation from it (userspace hands it the map's fd). */
#ifndef FSCOST_CPU_NOW_BPF_H
#define FSCOST_CPU_NOW_BPF_H

/* What runs on each CPU: the task, its operation, and whether it has
 * state. sys_enter and sys_exit keep it for the current task, sched_switch
 * (always attached) for the next one, so it is right whenever `task` is
 * current. XFS events, several per operation, read it with one inlined
 * per-CPU lookup instead of a task storage call each. */
struct fscost_cpu_now {
	__u64 task;		/* bpf_get_current_task(); 0 before this CPU's first switch */
	__u32 op;
	__u16 has_state;
	__u16 gen;		/* states_gen when written */
	/* xfs_trans_alloc of task's operation since the slot was filled, not
	 * yet in its state's `trans`: counted here without a task storage
	 * call, moved there when the task is switched out (handle_switch) and
	 * added at sys_exit. Belongs to `task` whatever `gen` says. */
	__u32 trans;
	__u32 pad;
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
