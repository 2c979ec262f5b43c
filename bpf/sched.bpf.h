/* SPDX-License-Identifier: GPL-2.0 */
/* Scheduler hooks: exact on-CPU time, off-CPU intervals with their blocked
 * and waker stacks, process-tree following. */
#ifndef FSCOST_SCHED_BPF_H
#define FSCOST_SCHED_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);	/* --max-offcpu */
	__type(key, struct fscost_offcpu_key);
	__type(value, struct fscost_offcpu_val);
} offcpu SEC(".maps");

/* Tracked tasks off CPU inside an operation, by tid: what a lock waiter reads
 * of the lock's holder (locks.bpf.h), which it cannot reach through task
 * storage from an untrusted task pointer. Written only with locks wanted. */
struct fscost_blocked {
	__u32 op;
	__u32 reason;
	__u64 stack;
	__u64 since_ns;		/* switched out */
	__u64 until_ns;		/* switched back in; 0 while it is off CPU */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);	/* --max-threads */
	__type(key, __u32);		/* tid */
	__type(value, struct fscost_blocked);
} blocked SEC(".maps");

/* task_struct::state became __state in v5.14 (commit 2f064a59a11f). */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

#define TASK_DEAD 0x00000080	/* include/linux/sched.h */

static __always_inline __u32 task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

static __always_inline __u32 block_reason(struct fscost_task *t, struct task_struct *prev,
					  bool preempt)
{
	if (preempt || task_state(prev) == 0 /* TASK_RUNNING */)
		return FSCOST_BLOCK_RUNQUEUE;
	if (t->lock_depth)
		return FSCOST_BLOCK_LOCK;
	if (BPF_CORE_READ_BITFIELD_PROBED(prev, in_iowait))
		return FSCOST_BLOCK_IOWAIT;
	return FSCOST_BLOCK_SLEEP;
}

static __always_inline void add_offcpu(struct fscost_task *t, __u32 reason, __u64 waker_stack,
				       bool with_waker, __u64 ns)
{
	struct fscost_offcpu_key key = {
		.op = t->op,
		.reason = reason,
		.stack = t->off_stack,
		.waker_stack = waker_stack,
	};

	if (with_waker) {
		__builtin_memcpy(key.waker, t->waker, sizeof(key.waker));
		key.waker_func = t->waker_func;
		key.waker_last_func = t->waker_last_func;
		__builtin_memcpy(key.waker_wq, t->waker_wq, sizeof(key.waker_wq));
	}
	if (t->op == FSCOST_OP_NONE) {
		__builtin_memcpy(key.name, t->bg_name, sizeof(key.name));
		key.func = t->bg_func;
	}
	add_interval(&offcpu, &key, FSCOST_DROP_OFFCPU_MAP_FULL, ns);
}

/* Back on CPU: charge the interval. A woken sleeper's interval is split at
 * the wakeup: blocked before it, run-queue wait after. */
static __always_inline void end_offcpu(struct fscost_task *t, __u64 now)
{
	__u64 woken = t->woken_ns;

	t->offcpu_ns += now - t->off_since_ns;
	if (t->off_reason != FSCOST_BLOCK_RUNQUEUE && woken > t->off_since_ns && woken <= now) {
		add_offcpu(t, t->off_reason, t->waker_stack, true, woken - t->off_since_ns);
		add_offcpu(t, FSCOST_BLOCK_RUNQUEUE, 0, false, now - woken);
	} else {
		add_offcpu(t, t->off_reason, 0, false, now - t->off_since_ns);
	}
	t->off_since_ns = 0;
}

/* A holder that was running when the wait began is looked at again: when
 * the waiter goes to sleep (since 0: the holder is off CPU now), and when
 * the wait ends (since = the wait's begin: the holder blocked during it, its
 * latest block). A holder that went to sleep meanwhile (xfs_create's ENOSPC
 * flush, which may begin after its waiters slept) is where the wait went. */
static __always_inline void holder_blocked(struct fscost_lock_wait *w, __u64 since)
{
	struct fscost_blocked *b;
	__u32 tid = w->holder_tid;

	if (w->holder_kind != FSCOST_HOLDER_TASK || !tid)
		return;
	b = bpf_map_lookup_elem(&blocked, &tid);
	if (!b || (since ? b->since_ns < since : b->until_ns != 0))
		return;
	w->holder_kind = FSCOST_HOLDER_BLOCKED;
	w->holder_op = b->op;
	w->holder_reason = b->reason;
	w->holder_stack = b->stack;
}

static __always_inline void begin_offcpu(void *ctx, struct fscost_task *t,
					 struct task_struct *prev, bool preempt, __u64 now)
{
	t->off_since_ns = now;
	t->off_reason = block_reason(t, prev, preempt);
	/* current is still prev here: this is the stack it blocked in. A
	 * preempted kworker's is not worth a stack walk (~1 µs, paid by the
	 * very threads measured): its bucket and work function say enough. */
	t->off_stack = t->op == FSCOST_OP_NONE && t->off_reason == FSCOST_BLOCK_RUNQUEUE
			       ? 0 : kernel_stack(ctx);
	t->woken_ns = 0;
	t->waker_stack = 0;
	t->waker_func = 0;
	t->waker_last_func = 0;
	__builtin_memset(t->waker_wq, 0, sizeof(t->waker_wq));
}

/* `work`: prev is a kworker inside a work item, whose off-CPU time is
 * background work's (a kworker between items is idle, not waiting). */
static __always_inline void switch_out(void *ctx, struct fscost_task *t,
				       struct task_struct *prev, bool preempt, __u64 now,
				       __u32 work_flags)
{
	if (t->lock_depth) {
		__u32 d = t->lock_depth - 1;

		if (d < 2) {
			t->locks[d].out_since_ns = now;
			holder_blocked(&t->locks[d], 0);
		}
	}
	if (t->op == FSCOST_OP_NONE) {
		if (work_flags) {
			kthread_name(work_flags, t->bg_name);
			t->bg_func = current_work_func(work_flags);
			begin_offcpu(ctx, t, prev, preempt, now);
		}
		return;
	}
	t->oncpu_ns += now - t->oncpu_since_ns;
	if (!want_offcpu)
		return;
	begin_offcpu(ctx, t, prev, preempt, now);
	if (want_locks) {
		struct fscost_blocked b = { .op = t->op, .reason = t->off_reason, .stack = t->off_stack,
					    .since_ns = now };
		__u32 tid = BPF_CORE_READ(prev, pid);
		long err = bpf_map_update_elem(&blocked, &tid, &b, BPF_ANY);

		if (err)
			count_insert_error(err, FSCOST_DROP_HOLDER_MAP_FULL);
	}
}

static __always_inline void switch_in(struct fscost_task *t, struct task_struct *next, __u64 now)
{
	if (t->lock_depth) {
		__u32 d = t->lock_depth - 1;

		if (d < 2 && t->locks[d].out_since_ns) {
			t->locks[d].offcpu_ns += now - t->locks[d].out_since_ns;
			t->locks[d].out_since_ns = 0;
		}
	}
	if (t->op != FSCOST_OP_NONE) {
		t->oncpu_since_ns = now;
		if (want_locks && t->off_since_ns) {
			/* kept, with its end, for waiters whose wait it fell in;
			 * deleted at exit */
			__u32 tid = BPF_CORE_READ(next, pid);
			struct fscost_blocked *b = bpf_map_lookup_elem(&blocked, &tid);

			if (b)
				b->until_ns = now;
		}
	}
	if (t->off_since_ns)
		end_offcpu(t, now);	/* an op's, or a kworker's inside a work item */
}

/* current_flags() of a kworker that is running a work item; 0 otherwise
 * or when background off-CPU time is not recorded. current is prev. */
static __always_inline __u32 work_in_progress(bool btf)
{
	__u32 flags;

	if (!want_offcpu || !enabled)
		return 0;
	flags = current_flags(btf);
	if (!(flags & PF_WQ_WORKER) || !current_work_func(flags))
		return 0;
	return flags;
}

/* Task storage is freed with the task anyway; deleting at exit keeps the
 * two flavours alike and returns the memory before the task is reaped. */
static __always_inline void handle_exit(struct task_struct *task, bool btf)
{
	__u32 tid = BPF_CORE_READ(task, pid);

	if (want_locks)
		bpf_map_delete_elem(&blocked, &tid);
	if (btf) {
		bpf_task_storage_delete(&task_store, task);
		return;
	}
	delete_elem(&tasks, &tid);
}

/* Every context switch on the machine comes here: untracked tasks cost a
 * lookup each and nothing else. */
static __always_inline void handle_switch(void *ctx, bool preempt, struct task_struct *prev,
					  struct task_struct *next, bool btf)
{
	struct fscost_cpu_now *c = cpu_now_slot();
	struct fscost_task *t = state_of(prev, btf);
	/* a task inside an op is no kworker: skip the worker reads for it (t->op
	 * may be behind the slot's here, but only for tasks that are no kworkers) */
	__u32 work = !t || t->op == FSCOST_OP_NONE ? work_in_progress(btf) : 0;
	__u64 now = 0;

	if (!t && work)
		t = current_state_create(btf, FSCOST_DROP_BACKGROUND_LOST);
	if (t) {
		now = bpf_ktime_get_ns();
		/* the slot is about to describe next: prev's operation goes home */
		store_cpu_now(c, (__u64)prev, t);
		switch_out(ctx, t, prev, preempt, now, work);
		/* raw_tp keeps state in a hash: a thread that contends on a lock
		 * or touches XFS after sched_process_exit (exit_files,
		 * exit_notify) gets a fresh entry, which its final switch-out
		 * frees. Task storage goes with the task. */
		if (!btf && task_state(prev) == TASK_DEAD)
			handle_exit(prev, false);
	}
	t = state_of(next, btf);
	if (t) {
		if (!now)
			now = bpf_ktime_get_ns();
		switch_in(t, next, now);
	}
	fill_cpu_now(c, (__u64)next, t);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	handle_switch(ctx, preempt, prev, next, true);
	return 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(switch_raw, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	handle_switch(ctx, preempt, prev, next, false);
	return 0;
}

/* Who made a blocked operation runnable: the waker's stack and comm, and a
 * kworker's work functions (the current one and the one before it). */
static __always_inline void handle_waking(void *ctx, struct task_struct *p, bool btf)
{
	struct fscost_task *t = state_of(p, btf);
	struct worker *w;
	__u32 flags;

	if (!t || !t->off_since_ns || t->woken_ns)
		return;
	t->woken_ns = bpf_ktime_get_ns();
	/* A kworker's waker is named, not walked: kworkers wake each other by
	 * the thousand in a lock convoy. */
	t->waker_stack = t->op == FSCOST_OP_NONE ? 0 : kernel_stack(ctx);
	bpf_get_current_comm(t->waker, sizeof(t->waker));
	flags = current_flags(btf);
	w = task_worker(current_task(), flags);
	if (w) {
		t->waker_func = task_bucket(current_task(), flags, t->waker_wq);
		if (bpf_core_field_exists(w->last_func))
			t->waker_last_func = (__u64)BPF_CORE_READ(w, last_func);
	}
}

SEC("tp_btf/sched_waking")
int BPF_PROG(waking_btf, struct task_struct *p)
{
	handle_waking(ctx, p, true);
	return 0;
}

SEC("raw_tp/sched_waking")
int BPF_PROG(waking_raw, struct task_struct *p)
{
	handle_waking(ctx, p, false);
	return 0;
}

/* Follow the target's process tree: a new process of a tracked tgid is
 * tracked too, and every new thread of a tracked process gets its state now
 * (states_complete: a thread without state is untracked). */
static __always_inline void handle_fork(struct task_struct *parent, struct task_struct *child,
					bool btf)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	struct fscost_task zero;
	__u32 tid;
	__u8 one = 1;
	long err;

	if (trace_all)
		return;
	if (!bpf_map_lookup_elem(&tracked, &ptgid))
		return;
	if (ptgid != ctgid && (err = bpf_map_update_elem(&tracked, &ctgid, &one, BPF_ANY))) {
		count_insert_error(err, FSCOST_DROP_TRACKED_MAP_FULL);
		return;
	}
	if (btf) {
		if (!fresh_state(bpf_task_storage_get(&task_store, child, NULL,
						      BPF_LOCAL_STORAGE_GET_F_CREATE)))
			states_complete = false;
		return;
	}
	tid = BPF_CORE_READ(child, pid);
	__builtin_memset(&zero, 0, sizeof(zero));
	zero.gen = run_gen;
	/* BPF_ANY: the child has not run yet, so an entry under its tid is a
	 * dead thread's (it would read as "no state": untracked, silently).
	 * Any failure, not only a full map, leaves the child stateless:
	 * sys_enter must then look it up and create its state. */
	if (insert_elem(&tasks, &tid, &zero, BPF_ANY))
		states_complete = false;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(fork_btf, struct task_struct *parent, struct task_struct *child)
{
	handle_fork(parent, child, true);
	return 0;
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(fork_raw, struct task_struct *parent, struct task_struct *child)
{
	handle_fork(parent, child, false);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(exit_btf, struct task_struct *task)
{
	handle_exit(task, true);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(exit_raw, struct task_struct *task)
{
	handle_exit(task, false);
	return 0;
}

#endif /* FSCOST_SCHED_BPF_H */
