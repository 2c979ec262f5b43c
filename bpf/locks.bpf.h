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
	t = lock_task(btf);
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
	v = lookup_or_init(&lock_stats, &key, &init);
	if (!v) {
		count_drop(FSCOST_DROP_LOCK_MAP_FULL);
		return;
	}
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->total_ns, total);
	__sync_fetch_and_add(&v->sleep_ns, sleep);
	__sync_fetch_and_add(&v->spin_ns, total - sleep);
	__sync_fetch_and_or(&v->flags, w->flags);
	if (total > v->max_ns)
		v->max_ns = total;	/* racy max: good enough for a maximum */
}

static __always_inline void handle_contention_end(void *ctx, void *lock, bool btf)
{
	struct fscost_task *t = current_state(btf);
	__u32 d;

	if (!t || !t->lock_depth)
		return;
	d = t->lock_depth - 1;
	if (d >= 2)
		return;
	/* Unmatched end (begin before enable, or a lost nesting level). */
	if (t->locks[d].addr != (__u64)lock)
		return;
	t->lock_depth = d;
	if (enabled) {
		__u64 now = bpf_ktime_get_ns();

		/* still in the lock's slow path: the same call site as at begin */
		t->locks[d].stack = kernel_stack(ctx);
		record_wait(t, &t->locks[d], now, btf);
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
