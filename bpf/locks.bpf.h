/* SPDX-License-Identifier: GPL-2.0 */
/* Lock contention from lock:contention_begin/end, split into the part spent
 * spinning (on CPU) and sleeping (off CPU). */
#ifndef FSCOST_LOCKS_BPF_H
#define FSCOST_LOCKS_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);	/* --max-locks */
	__type(key, struct fscost_lock_key);
	__type(value, struct fscost_lock_val);
} lock_stats SEC(".maps");

/* Waits of operations on sleeping locks, by who held the lock. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);	/* --max-locks */
	__type(key, struct fscost_holder_key);
	__type(value, struct fscost_offcpu_val);
} lock_holders SEC(".maps");

#define LCB_F_SPIN 0x01		/* include/trace/events/lock.h */
#define LCB_F_READ 0x02
#define LCB_F_WRITE 0x04
#define LCB_F_MUTEX 0x20
#define OWNER_FLAGS 0x07L	/* mutex MUTEX_FLAGS, rwsem RWSEM_OWNER_FLAGS_MASK */
#define RWSEM_READER_OWNED 0x01L

/* The operation a tracked task not blocked in one is running: its
 * syscall, from the pt_regs at the top of its kernel stack (x86's orig_ax);
 * 0 when untracked, or not known here. */
static __always_inline __u32 running_op(struct task_struct *h)
{
#if defined(__TARGET_ARCH_x86)
	struct fscost_syscall_rule *rule;
	struct pt_regs *regs;
	__u32 nr;

	if (!regs_offset || !is_tracked(BPF_CORE_READ(h, tgid)))
		return FSCOST_OP_NONE;
	regs = (struct pt_regs *)((__u64)BPF_CORE_READ(h, stack) + regs_offset);
	nr = (__u32)BPF_CORE_READ(regs, orig_ax);
	rule = bpf_map_lookup_elem(&syscall_rules, &nr);
	if (!rule || rule->op == FSCOST_OP_NONE)
		return FSCOST_OP_OTHER;
	/* openat's O_CREAT makes it a create; openat2's flags are in user
	 * memory of another task, out of reach: its plain op */
	if (rule->flag_mask && !rule->flag_deref &&
	    (syscall_arg(regs, rule->flag_arg, false) & rule->flag_mask))
		return rule->alt_op;
	return rule->op;
#else
	return FSCOST_OP_NONE;
#endif
}

/* The holder of a mutex or rwsem as its owner field names it, when the wait
 * begins: a tracked task blocked inside an operation (from `blocked`), a
 * kernel thread by bucket and work function, another task by comm. */
static __always_inline void capture_holder(struct fscost_lock_wait *w, void *lock, __u32 flags)
{
	struct fscost_blocked *b;
	struct task_struct *h;
	__u32 tid, hflags;
	long owner;

	w->holder_kind = FSCOST_HOLDER_NONE;
	if (flags & LCB_F_MUTEX) {
		owner = BPF_CORE_READ((struct mutex *)lock, owner.counter);
	} else if (flags & (LCB_F_READ | LCB_F_WRITE)) {
		owner = BPF_CORE_READ((struct rw_semaphore *)lock, owner.counter);
		if (owner & RWSEM_READER_OWNED) {
			w->holder_kind = FSCOST_HOLDER_READERS;
			return;
		}
	} else {
		return;	/* a spinlock or semaphore records no owner */
	}
	h = (struct task_struct *)(owner & ~OWNER_FLAGS);
	if (!h)
		return;
	tid = BPF_CORE_READ(h, pid);
	w->holder_tid = tid;
	b = bpf_map_lookup_elem(&blocked, &tid);
	if (b && !b->until_ns) {
		w->holder_kind = FSCOST_HOLDER_BLOCKED;
		w->holder_op = b->op;
		w->holder_reason = b->reason;
		w->holder_stack = b->stack;
		return;
	}
	hflags = BPF_CORE_READ(h, flags);
	if (hflags & PF_KTHREAD) {
		w->holder_kind = FSCOST_HOLDER_KTHREAD;
		w->holder_func = task_bucket(h, hflags, w->holder_name);
	} else {
		w->holder_kind = FSCOST_HOLDER_TASK;
		bpf_probe_read_kernel_str(w->holder_name, sizeof(w->holder_name), h->comm);
		w->holder_op = running_op(h);
	}
}

static __always_inline void record_holder(struct fscost_task *t, struct fscost_lock_wait *w,
					  __u64 total)
{
	struct fscost_holder_key key = {
		.waiter_op = t->op,
		.holder_kind = w->holder_kind,
		.addr = w->addr,
		.waiter_stack = w->stack,
		.holder_stack = w->holder_stack,
		.holder_func = w->holder_func,
		.holder_op = w->holder_op,
		.holder_reason = w->holder_reason,
		.flags = w->flags,
	};

	__builtin_memcpy(key.holder_name, w->holder_name, sizeof(key.holder_name));
	add_interval(&lock_holders, &key, FSCOST_DROP_HOLDER_MAP_FULL, total);
}

/* Tracked tasks and kernel threads; other tasks are not recorded. */
static __always_inline struct fscost_task *lock_task(bool btf)
{
	__u64 pid_tgid;
	struct fscost_task *t = current_state(btf);

	if (t)
		return t;
	pid_tgid = bpf_get_current_pid_tgid();
	if (!(__u32)pid_tgid)
		return NULL;	/* idle */
	if (current_is_kthread(btf))
		return current_state_create(btf, FSCOST_DROP_BACKGROUND_LOST);
	if (!is_tracked(pid_tgid >> 32))
		return NULL;
	return current_state_create(btf, FSCOST_DROP_TASK_MAP_FULL);
}

static __always_inline void handle_contention_begin(void *ctx, void *lock, __u32 flags,
						    bool btf)
{
	struct fscost_task *t;
	struct fscost_lock_wait *w;
	__u32 d;

	if (!enabled)
		return;
	if (inside_our_map_write()) {
		count_drop(FSCOST_DROP_LOCK_IN_TRACER);
		return;
	}
	t = with_running_op(lock_task(btf));
	if (!t)
		return;
	d = t->lock_depth;
	/* A mutex or rwsem emits begin again when it stops spinning and
	 * sleeps, before its one end (commit dc1f7893a70f): same wait. */
	if (d && d <= 2 && t->locks[d - 1].addr == (__u64)lock) {
		t->locks[d - 1].flags |= flags;
		return;
	}
	if (d >= 2) {
		count_drop(FSCOST_DROP_LOCK_NESTING);
		return;
	}
	w = &t->locks[d];
	w->addr = (__u64)lock;
	w->flags = flags;
	w->offcpu_ns = 0;
	w->out_since_ns = 0;
	w->stack = 0;	/* taken at contention_end: a stack walk here would lengthen the wait */
	w->holder_kind = FSCOST_HOLDER_NONE;
	w->holder_op = 0;
	w->holder_reason = 0;
	w->holder_tid = 0;
	w->holder_stack = 0;
	w->holder_func = 0;
	__builtin_memset(w->holder_name, 0, sizeof(w->holder_name));
	if (t->op != FSCOST_OP_NONE)
		capture_holder(w, lock, flags);
	w->begin_ns = bpf_ktime_get_ns();
	t->lock_depth = d + 1;
}

static __always_inline void record_wait(struct fscost_task *t, struct fscost_lock_wait *w,
					__u64 now, bool btf)
{
	struct fscost_lock_key key = {
		.addr = w->addr,
		.stack = w->stack,
	};
	struct fscost_lock_val *v, init = {};
	__u64 total = now - w->begin_ns;
	__u64 sleep = w->offcpu_ns < total ? w->offcpu_ns : total;
	__u32 flags;

	if (t->op != FSCOST_OP_NONE) {
		key.kind = FSCOST_SK_OP;
		key.op = t->op;
	} else if ((flags = current_flags(btf)) & PF_KTHREAD) {
		key.kind = FSCOST_SK_KTHREAD;
		kthread_name(flags, key.name);
	} else {
		key.kind = FSCOST_SK_KERNEL;
	}
	v = lookup_or_init(&lock_stats, &key, &init, FSCOST_DROP_LOCK_MAP_FULL);
	if (!v)
		return;
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->total_ns, total);
	__sync_fetch_and_add(&v->sleep_ns, sleep);
	__sync_fetch_and_add(&v->spin_ns, total - sleep);
	__sync_fetch_and_or(&v->flags, w->flags);
	if (total > v->max_ns)
		v->max_ns = total;	/* racy max: good enough for a maximum */
	if (t->op != FSCOST_OP_NONE && w->holder_kind != FSCOST_HOLDER_NONE)
		record_holder(t, w, total);
}

static __always_inline void handle_contention_end(void *ctx, void *lock, bool btf)
{
	struct fscost_task *t;
	__u32 d;

	/* its begin was skipped (counted there): nothing of ours to pop */
	if (inside_our_map_write())
		return;
	t = with_running_op(current_state(btf));
	if (!t || !t->lock_depth)
		return;
	d = t->lock_depth - 1;
	if (d >= 2)
		return;
	/* Unmatched end (begin before enable, or a lost nesting level). */
	if (t->locks[d].addr != (__u64)lock)
		return;
	/* Copied before the level is popped: an interrupt that contends a
	 * lock once it is popped reuses the slot, and reading its later
	 * begin_ns made `now - begin_ns` wrap to ~2^64 (seen by the pprof
	 * client test as a 2^63 ns wait). */
	struct fscost_lock_wait w = t->locks[d];
	t->lock_depth = d;
	if (enabled) {
		__u64 now = bpf_ktime_get_ns();

		/* still in the lock's slow path: the same call site as at begin */
		w.stack = kernel_stack(ctx);
		holder_blocked(&w, w.begin_ns);
		record_wait(t, &w, now, btf);
	}
}

SEC("tp_btf/contention_begin")
int BPF_PROG(lock_begin_btf, void *lock, unsigned int flags)
{
	handle_contention_begin(ctx, lock, flags, true);
	return 0;
}

SEC("raw_tp/contention_begin")
int BPF_PROG(lock_begin_raw, void *lock, unsigned int flags)
{
	handle_contention_begin(ctx, lock, flags, false);
	return 0;
}

SEC("tp_btf/contention_end")
int BPF_PROG(lock_end_btf, void *lock, int ret)
{
	handle_contention_end(ctx, lock, true);
	return 0;
}

SEC("raw_tp/contention_end")
int BPF_PROG(lock_end_raw, void *lock, int ret)
{
	handle_contention_end(ctx, lock, false);
	return 0;
}

#endif /* FSCOST_LOCKS_BPF_H */
