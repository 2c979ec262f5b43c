// SPDX-License-Identifier: GPL-2.0
/*
 * fscost kernel side: per-operation exact CPU time and latency from the
 * syscall and sched_switch tracepoints, plus cpu-clock samples with kernel
 * stacks, all aggregated in the kernel.
 *
 * Attach flavours: the sched handlers have a tp_btf and a raw_tp wrapper;
 * userspace autoloads one of them after probing (userspace/features.cpp).
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "fscost.h"

#define PF_KTHREAD 0x00200000	/* include/linux/sched.h */
#define PF_WQ_WORKER 0x00000020
#define E2BIG 7

/* Configuration, set by userspace before load. */
const volatile bool trace_all = false;	/* -a: every user task */
const volatile __u32 self_tgid = 0;	/* never trace fscost itself */

/* Start/stop without reloading. */
bool enabled = false;

/* Every drop, by enum fscost_drop; read and reported by userspace. */
__u64 drops[FSCOST_DROP__COUNT] = {};
__u64 samples_total = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);	/* --max-procs */
	__type(key, __u32);		/* tgid */
	__type(value, __u8);
} tracked SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);	/* --max-threads */
	__type(key, __u32);		/* tid */
	__type(value, struct fscost_task);
} tasks SEC(".maps");

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

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);	/* --stack-storage-size */
	__type(key, __u64);		/* content hash */
	__type(value, struct fscost_stack);
} stacks SEC(".maps");

/* Scratch space: a stack is too large for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fscost_stack);
} stack_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);	/* --max-stacks */
	__type(key, struct fscost_sample_key);
	__type(value, __u64);
} samples SEC(".maps");

static __always_inline void count_drop(enum fscost_drop d)
{
	__sync_fetch_and_add(&drops[d], 1);
}

static __always_inline bool is_tracked(__u32 tgid)
{
	if (tgid == 0 || tgid == self_tgid)
		return false;
	if (trace_all)
		return true;
	return bpf_map_lookup_elem(&tracked, &tgid) != NULL;
}

static __always_inline __u32 log2_bucket(__u64 v)
{
	__u32 r = 0;

	/* Unrolled binary search; bounded for the verifier. */
	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) { r += 1; }
	return r < FSCOST_LAT_BUCKETS ? r : FSCOST_LAT_BUCKETS - 1;
}

static __always_inline __u64 syscall_arg(struct pt_regs *regs, __u32 i)
{
	switch (i) {
	case 0: return PT_REGS_PARM1_CORE_SYSCALL(regs);
	case 1: return PT_REGS_PARM2_CORE_SYSCALL(regs);
	case 2: return PT_REGS_PARM3_CORE_SYSCALL(regs);
	case 3: return PT_REGS_PARM4_CORE_SYSCALL(regs);
	default: return PT_REGS_PARM5_CORE_SYSCALL(regs);
	}
}

static __always_inline __u32 classify(struct pt_regs *regs, long id)
{
	__u32 nr = (__u32)id;
	struct fscost_syscall_rule *rule;
	__u64 flags;

	rule = bpf_map_lookup_elem(&syscall_rules, &nr);
	if (!rule || rule->op == FSCOST_OP_NONE)
		return FSCOST_OP_OTHER;
	if (!rule->flag_mask)
		return rule->op;
	flags = syscall_arg(regs, rule->flag_arg);
	if (rule->flag_deref &&
	    bpf_probe_read_user(&flags, sizeof(flags), (void *)flags))
		return rule->op;
	return (flags & rule->flag_mask) ? rule->alt_op : rule->op;
}

static __always_inline void handle_sys_enter(struct pt_regs *regs, long id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct fscost_task *t, zero = {};
	__u64 now;

	if (!enabled)
		return;
	/* A thread with state is tracked: one lookup on the hot path. */
	t = bpf_map_lookup_elem(&tasks, &tid);
	if (!t) {
		if (!is_tracked(pid_tgid >> 32))
			return;
		bpf_map_update_elem(&tasks, &tid, &zero, BPF_NOEXIST);
		t = bpf_map_lookup_elem(&tasks, &tid);
		if (!t) {
			count_drop(FSCOST_DROP_TASK_MAP_FULL);
			return;
		}
	}
	now = bpf_ktime_get_ns();
	t->op = classify(regs, id);
	t->start_ns = now;
	t->oncpu_since_ns = now;
	t->oncpu_ns = 0;
}

static __always_inline void handle_sys_exit(long ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fscost_op_stats *s;
	struct fscost_task *t;
	__u64 now, wall;
	__u32 op;

	t = bpf_map_lookup_elem(&tasks, &tid);
	if (!t || t->op == FSCOST_OP_NONE)
		return;
	op = t->op;
	t->op = FSCOST_OP_NONE;
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
	s->lat[log2_bucket(wall)]++;
}

/* raw_tp/tp_btf, not the "tracepoint/raw_syscalls" flavour: no trace record
 * is built per syscall, which matters at ~100k syscalls/s per CPU. */
SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter_btf, struct pt_regs *regs, long id)
{
	handle_sys_enter(regs, id);
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(sys_enter_raw, struct pt_regs *regs, long id)
{
	handle_sys_enter(regs, id);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit_btf, struct pt_regs *regs, long ret)
{
	handle_sys_exit(ret);
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(sys_exit_raw, struct pt_regs *regs, long ret)
{
	handle_sys_exit(ret);
	return 0;
}

/* Exact on-CPU time: close the running interval of the task switched out,
 * open one for the task switched in. */
static __always_inline void handle_switch(struct task_struct *prev, struct task_struct *next)
{
	__u32 prev_tid = BPF_CORE_READ(prev, pid);
	__u32 next_tid = BPF_CORE_READ(next, pid);
	struct fscost_task *t;
	__u64 now = bpf_ktime_get_ns();

	if (prev_tid) {
		t = bpf_map_lookup_elem(&tasks, &prev_tid);
		if (t && t->op != FSCOST_OP_NONE)
			t->oncpu_ns += now - t->oncpu_since_ns;
	}
	if (next_tid) {
		t = bpf_map_lookup_elem(&tasks, &next_tid);
		if (t && t->op != FSCOST_OP_NONE)
			t->oncpu_since_ns = now;
	}
}

SEC("tp_btf/sched_switch")
int BPF_PROG(switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	handle_switch(prev, next);
	return 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(switch_raw, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	handle_switch(prev, next);
	return 0;
}

/* Follow the target's process tree: a new process of a tracked tgid is
 * tracked too (threads share the tgid and need nothing). */
static __always_inline void handle_fork(struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (trace_all || ptgid == ctgid)
		return;
	if (!bpf_map_lookup_elem(&tracked, &ptgid))
		return;
	if (bpf_map_update_elem(&tracked, &ctgid, &one, BPF_ANY))
		count_drop(FSCOST_DROP_TRACKED_MAP_FULL);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(fork_btf, struct task_struct *parent, struct task_struct *child)
{
	handle_fork(parent, child);
	return 0;
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(fork_raw, struct task_struct *parent, struct task_struct *child)
{
	handle_fork(parent, child);
	return 0;
}

static __always_inline void handle_exit(struct task_struct *task)
{
	__u32 tid = BPF_CORE_READ(task, pid);

	bpf_map_delete_elem(&tasks, &tid);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(exit_btf, struct task_struct *task)
{
	handle_exit(task);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(exit_raw, struct task_struct *task)
{
	handle_exit(task);
	return 0;
}

/* Background bucket of a kernel thread: the workqueue a kworker is
 * executing for, else the thread's comm. */
static __always_inline void kthread_name(struct task_struct *task, __u32 flags, char *name)
{
	if ((flags & PF_WQ_WORKER) && bpf_core_field_exists(task->worker_private)) {
		struct worker *w = BPF_CORE_READ(task, worker_private);
		struct pool_workqueue *pwq = BPF_CORE_READ(w, current_pwq);

		if (pwq) {
			struct workqueue_struct *wq = BPF_CORE_READ(pwq, wq);

			if (bpf_probe_read_kernel_str(name, FSCOST_NAME_LEN, wq->name) > 0)
				return;
		}
	}
	bpf_get_current_comm(name, FSCOST_NAME_LEN);
}

/* FNV-1a over the frames; 0 is reserved for "no stack". */
static __always_inline __u64 hash_stack(const struct fscost_stack *st)
{
	__u64 h = 0xcbf29ce484222325ULL;

	for (int i = 0; i < FSCOST_STACK_DEPTH; i++) {
		if (i >= st->depth)
			break;
		h = (h ^ st->ips[i]) * 0x100000001b3ULL;
	}
	return h ? h : 1;
}

static __always_inline __u64 kernel_stack(struct bpf_perf_event_data *ctx)
{
	__u32 zero = 0;
	struct fscost_stack *st = bpf_map_lookup_elem(&stack_scratch, &zero);
	long len;
	__u64 h;

	if (!st)
		return 0;
	len = bpf_get_stack(ctx, st->ips, sizeof(st->ips), 0);
	if (len <= 0) {
		count_drop(FSCOST_DROP_STACK_OTHER);
		return 0;
	}
	st->depth = len / sizeof(__u64);
	h = hash_stack(st);
	if (bpf_map_lookup_elem(&stacks, &h))
		return h;
	/* -EEXIST: another CPU stored the same stack meanwhile. */
	if (bpf_map_update_elem(&stacks, &h, st, BPF_NOEXIST) == -E2BIG) {
		count_drop(FSCOST_DROP_STACK_FULL);
		return 0;
	}
	return h;
}

static __always_inline void add_sample(struct fscost_sample_key *key)
{
	__u64 *count, one = 1;

	count = bpf_map_lookup_elem(&samples, key);
	if (count) {
		__sync_fetch_and_add(count, 1);
		return;
	}
	if (!bpf_map_update_elem(&samples, key, &one, BPF_NOEXIST))
		return;
	/* Lost a race with another CPU inserting the same key, or full. */
	count = bpf_map_lookup_elem(&samples, key);
	if (count)
		__sync_fetch_and_add(count, 1);
	else
		count_drop(FSCOST_DROP_SAMPLE_MAP_FULL);
}

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fscost_sample_key key = {};
	bool in_kernel = (long)PT_REGS_IP(&ctx->regs) < 0;
	__u32 tid = (__u32)id, flags;
	struct fscost_task *t;

	if (!enabled)
		return 0;
	__sync_fetch_and_add(&samples_total, 1);
	if (tid == 0)
		return 0;	/* idle */
	flags = BPF_CORE_READ(task, flags);
	if (flags & PF_KTHREAD) {
		key.kind = FSCOST_SK_KTHREAD;
		kthread_name(task, flags, key.name);
	} else if (is_tracked(id >> 32)) {
		t = bpf_map_lookup_elem(&tasks, &tid);
		if (!in_kernel) {
			key.kind = FSCOST_SK_USER;
		} else if (t && t->op != FSCOST_OP_NONE) {
			key.kind = FSCOST_SK_OP;
			key.op = t->op;
		} else {
			key.kind = FSCOST_SK_KERNEL;
		}
	} else {
		return 0;
	}
	key.kstack = in_kernel ? kernel_stack(ctx) : 0;
	add_sample(&key);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
