/* SPDX-License-Identifier: GPL-2.0 */
/* Operations: exact count, latency, on/off-CPU time per syscall class. */
#ifndef FSCOST_SYSCALLS_BPF_H
#define FSCOST_SYSCALLS_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FSCOST_MAX_SYSCALLS);
	__type(key, __u32);
	__type(value, struct fscost_syscall_rule);
} syscall_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FSCOST_MAX_OPS);
	__type(key, __u32);
	__type(value, struct fscost_op_stats);
} op_stats SEC(".maps");

/* tp_btf: regs is a typed pointer, read with plain loads; raw_tp: probe reads. */
static __always_inline __u64 syscall_arg(struct pt_regs *regs, __u32 i, bool btf)
{
	if (btf) {
		switch (i) {
		case 0: return PT_REGS_PARM1_SYSCALL(regs);
		case 1: return PT_REGS_PARM2_SYSCALL(regs);
		case 2: return PT_REGS_PARM3_SYSCALL(regs);
		case 3: return PT_REGS_PARM4_SYSCALL(regs);
		default: return PT_REGS_PARM5_SYSCALL(regs);
		}
	}
	switch (i) {
	case 0: return PT_REGS_PARM1_CORE_SYSCALL(regs);
	case 1: return PT_REGS_PARM2_CORE_SYSCALL(regs);
	case 2: return PT_REGS_PARM3_CORE_SYSCALL(regs);
	case 3: return PT_REGS_PARM4_CORE_SYSCALL(regs);
	default: return PT_REGS_PARM5_CORE_SYSCALL(regs);
	}
}

static __always_inline __u32 classify(struct pt_regs *regs, long id, bool btf)
{
	__u32 nr = (__u32)id;
	struct fscost_syscall_rule *rule;
	__u64 flags;

	rule = bpf_map_lookup_elem(&syscall_rules, &nr);
	if (!rule || rule->op == FSCOST_OP_NONE)
		return FSCOST_OP_OTHER;
	if (!rule->flag_mask)
		return rule->op;
	flags = syscall_arg(regs, rule->flag_arg, btf);
	if (rule->flag_deref &&
	    bpf_probe_read_user(&flags, sizeof(flags), (void *)flags))
		return rule->op;
	return (flags & rule->flag_mask) ? rule->alt_op : rule->op;
}

/* A per-CPU slot to turn the (trusted, tp_btf) regs pointer into a number:
 * the verifier forbids arithmetic on it, not storing it (root may). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} regs_scratch SEC(".maps");

static __noinline void learn_regs_offset(struct pt_regs *regs)
{
	__u64 stack = (__u64)BPF_CORE_READ(current_task(), stack);
	__u32 zero = 0;
	__u64 *slot = bpf_map_lookup_elem(&regs_scratch, &zero);

	if (!slot)
		return;
	*(volatile __u64 *)slot = (__u64)regs;
	regs_offset = *(volatile __u64 *)slot - stack;
}

/* The slot, holding the current task's operation fields; NULL for an
 * untracked task. A slot that does not hold them yet is filled from the
 * task's state, which `create` creates for a tracked task without one. */
static __always_inline struct fscost_cpu_now *running_slot(__u64 task, bool btf, bool create)
{
	struct fscost_cpu_now *c = cpu_now_slot();
	struct fscost_task *t;
	bool by_state;

	if (!c || slot_holds(c, task))
		return c;
	/* Every syscall on the machine comes here. With every tracked thread
	 * given state (states_complete: never with trace_all), an untracked
	 * one is told by the slot alone (bench/run bpf: the untracked row). */
	by_state = states_complete && !trace_all;
	if (by_state && cpu_now_is(c, task) && !c->has_state)
		return NULL;
	t = current_state(btf);
	if (!t) {
		if (!create || by_state || !is_tracked(bpf_get_current_pid_tgid() >> 32))
			return NULL;
		t = current_state_create(btf, FSCOST_DROP_TASK_MAP_FULL);
		if (!t)
			return NULL;
	}
	fill_cpu_now(c, task, t);
	return c;
}

static __always_inline void handle_sys_enter(struct pt_regs *regs, long id, bool btf)
{
	struct fscost_cpu_now *c;
	__u64 now;

	if (!enabled)
		return;
	c = running_slot(bpf_get_current_task(), btf, true);
	if (!c)
		return;
	if (!regs_offset)
		learn_regs_offset(regs);
	/* the class before the clock: the rule's load, the likeliest cache
	 * miss here, then overlaps the slot's instead of waiting for the
	 * clock read's serialising rdtsc */
	c->op = classify(regs, id, btf);
	now = bpf_ktime_get_ns();
	c->trans = 0;
	c->start_ns = now;
	c->oncpu_since_ns = now;
	c->oncpu_ns = 0;
	c->offcpu_ns = 0;
}

static __always_inline void update_trans_range(struct fscost_op_stats *s, __u64 trans)
{
	/* s->count already counts this operation */
	if (s->count == 1 || trans < s->trans_min)
		s->trans_min = trans;
	if (trans > s->trans_max)
		s->trans_max = trans;
}

static __always_inline void handle_sys_exit(long ret, bool btf)
{
	struct fscost_op_stats *s;
	struct fscost_cpu_now *c;
	__u64 now, wall;
	__u32 op;

	/* As in sys_enter: an untracked thread is told by the slot, before
	 * any task storage call; so is a tracked one outside any operation. */
	c = running_slot(bpf_get_current_task(), btf, false);
	if (!c || c->op == FSCOST_OP_NONE)
		return;
	op = c->op;
	c->op = FSCOST_OP_NONE;
	if (!enabled)
		return;
	s = bpf_map_lookup_elem(&op_stats, &op);
	if (!s)
		return;
	now = bpf_ktime_get_ns();
	wall = now - c->start_ns;
	s->count++;
	s->errors += ret < 0;
	s->wall_ns += wall;
	s->oncpu_ns += c->oncpu_ns + (now - c->oncpu_since_ns);
	s->offcpu_ns += c->offcpu_ns;
	s->lat[log2_bucket(wall)]++;
	update_trans_range(s, c->trans);
}

/* raw_tp/tp_btf, not the "tracepoint/raw_syscalls" flavour: no trace record
 * is built per syscall, which matters at ~100k syscalls/s per CPU. */
SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter_btf, struct pt_regs *regs, long id)
{
	handle_sys_enter(regs, id, true);
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(sys_enter_raw, struct pt_regs *regs, long id)
{
	handle_sys_enter(regs, id, false);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit_btf, struct pt_regs *regs, long ret)
{
	handle_sys_exit(ret, true);
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(sys_exit_raw, struct pt_regs *regs, long ret)
{
	handle_sys_exit(ret, false);
	return 0;
}

#endif /* FSCOST_SYSCALLS_BPF_H */
