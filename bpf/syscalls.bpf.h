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

static __always_inline void handle_sys_enter(struct pt_regs *regs, long id, bool btf)
{
	struct fscost_cpu_now *c;
	struct fscost_task *t;
	__u64 now, task;
	bool by_state;

	if (!enabled)
		return;
	/* Every syscall on the machine comes here. With every tracked thread
	 * given state (states_complete), an untracked one is told by the
	 * per-CPU slot alone (bench/run bpf: the untracked row). */
	by_state = states_complete && !trace_all;
	task = bpf_get_current_task();
	c = cpu_now_slot();
	if (by_state && cpu_now_is(c, task) && !c->has_state)
		return;
	t = current_state(btf);
	if (!t) {
		if (by_state || !is_tracked(bpf_get_current_pid_tgid() >> 32))
			return;
		t = current_state_create(btf, FSCOST_DROP_TASK_MAP_FULL);
		if (!t)
			return;
	}
	if (!regs_offset)
		learn_regs_offset(regs);
	now = bpf_ktime_get_ns();
	t->op = classify(regs, id, btf);
	t->trans = 0;
	t->start_ns = now;
	t->oncpu_since_ns = now;
	t->oncpu_ns = 0;
	t->offcpu_ns = 0;
	t->off_since_ns = 0;
	fill_cpu_now(c, task, t);
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
	struct fscost_task *t;
	__u64 now, wall, task;
	__u32 op;

	/* As in sys_enter: an untracked thread (every other syscall on the
	 * machine) is told by the per-CPU slot, before any task storage call;
	 * so is a tracked one the slot shows outside any operation. */
	task = bpf_get_current_task();
	c = cpu_now_slot();
	if (cpu_now_is(c, task) && (c->has_state ? c->op == FSCOST_OP_NONE
						   : states_complete && !trace_all))
		return;
	t = current_state(btf);
	if (!t || t->op == FSCOST_OP_NONE)
		return;
	op = t->op;
	t->op = FSCOST_OP_NONE;
	t->trans += take_cpu_trans(c, task);
	fill_cpu_now(c, task, t);
	if (!enabled)
		return;
	s = bpf_map_lookup_elem(&op_stats, &op);
	if (!s)
		return;
	now = bpf_ktime_get_ns();
	wall = now - t->start_ns;
	s->count++;
	s->errors += ret < 0;
	s->wall_ns += wall;
	s->oncpu_ns += t->oncpu_ns + (now - t->oncpu_since_ns);
	s->offcpu_ns += t->offcpu_ns;
	s->lat[log2_bucket(wall)]++;
	update_trans_range(s, t->trans);
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
