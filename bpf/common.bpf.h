/* SPDX-License-Identifier: GPL-2.0 */
/* State and helpers every fscost BPF handler shares. */
#ifndef FSCOST_COMMON_BPF_H
#define FSCOST_COMMON_BPF_H

#define PF_KTHREAD 0x00200000	/* include/linux/sched.h */
#define PF_WQ_WORKER 0x00000020
#define E2BIG 7
#define EEXIST 17

/* Configuration, set by userspace before load. */
const volatile bool trace_all = false;	/* -a: every user task */
const volatile __u32 self_tgid = 0;	/* never trace fscost itself */
const volatile bool want_offcpu = false;
const volatile bool want_wakers = false;
const volatile bool want_locks = false;
const volatile bool want_user_stacks = false;
/* Per-thread state in task storage (the tp_btf flavour) rather than the
 * `tasks` hash (raw_tp); read by the one program without flavours. */
const volatile bool use_task_storage = false;

/* Set by userspace per recording, not per load: `fscost compare` records all
 * its runs with one load (Collector::reset between them).
 * .bss is laid out in this order: the hooks run per operation read only the
 * first group (to log_end_sector), one cache line that nothing writes after
 * the first events; the counters every CPU increments come after it. */

/* Start/stop without reloading. */
bool enabled = false;

/* True while every thread of every tracked process has state: userspace
 * seeds the targets' threads (Collector::track) and sched_process_fork gives
 * their children theirs. A thread without state is then untracked, which
 * sys_enter decides from cpu_now alone, with no task storage call and no
 * `tracked` lookup. userspace bumps states_gen after each seeding: a slot
 * written before it may say "no state" of a thread seeded since. */
bool states_complete = false;
__u16 states_gen = 0;

/* The recording's number: per-thread state of an earlier one (a kernel
 * worker's outlives it) is stale, and reads as none (see fresh_state). */
__u32 run_gen = 0;

/* The test filesystem (record --fs): its kernel dev_t, 0 for none; XFS events
 * of other superblocks are not counted. Its internal log's 512-byte sectors
 * [log_first_sector, log_end_sector) on that device. */
__u32 target_dev = 0;

/* Where a task's user pt_regs lie in its kernel stack (task->stack + this),
 * learned at the first sys_enter: it is one constant (THREAD_SIZE less the
 * pt_regs and padding), and a lock holder's syscall is read from there. */
__u64 regs_offset = 0;

/* The test filesystem's xfs_mount, once an event has shown it: later events
 * compare one pointer instead of reading mp->m_super->s_dev again. */
__u64 target_mp = 0;

__u64 log_first_sector = 0;
__u64 log_end_sector = 0;

/* Every drop, by enum fscost_drop; read and reported by userspace. */
__u64 drops[FSCOST_DROP__COUNT] = {};
__u64 samples_total = 0;
__u64 fs_events_other_fs = 0;	/* filesystem events on filesystems other than target_dev */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);	/* --max-procs */
	__type(key, __u32);		/* tgid */
	__type(value, __u8);
} tracked SEC(".maps");

/* One contended lock a task is waiting for. */
struct fscost_lock_wait {
	__u64 addr;
	__u64 begin_ns;
	__u64 stack;
	__u64 offcpu_ns;	/* slept so far in this wait */
	__u64 out_since_ns;	/* switched out during the wait; 0: on CPU */
	__u32 flags;
	__u32 holder_kind;	/* enum fscost_holder_kind, at the wait's first begin */
	__u32 holder_op;
	__u32 holder_reason;
	__u32 holder_tid;	/* to look again when the waiter goes to sleep */
	__u32 pad;
	__u64 holder_stack;
	__u64 holder_func;
	char holder_name[FSCOST_NAME_LEN];
};

/* Per-thread state (task_store or `tasks`, below). BPF-only: userspace
 * never reads it, so it is not in fscost.h. */
struct fscost_task {
	__u32 gen;		/* run_gen when created; first (FSCOST_TASK_GEN_OFFSET) */
	__u32 op;		/* FSCOST_OP_NONE outside a syscall */
	__u32 trans;		/* xfs_trans_alloc in the current operation */
	__u32 pad0;
	__u64 start_ns;		/* syscall entry */
	__u64 oncpu_since_ns;	/* entry or last switch-in */
	__u64 oncpu_ns;		/* on-CPU time so far inside the syscall */
	__u64 offcpu_ns;	/* off-CPU time so far inside the syscall */
	/* the current off-CPU interval inside an operation */
	__u64 off_since_ns;	/* 0: on CPU */
	__u64 off_stack;
	__u64 woken_ns;
	__u64 waker_stack;
	__u32 off_reason;
	__u32 lock_depth;	/* waits in `locks` (a mutex wait may nest a spinlock wait) */
	char waker[16];
	__u64 waker_func;	/* a kworker waker's work function, and its last one */
	__u64 waker_last_func;
	char waker_wq[FSCOST_NAME_LEN];	/* and its workqueue */
	char bg_name[FSCOST_NAME_LEN];	/* a kworker's bucket, for its off-CPU interval */
	__u64 bg_func;			/* and the work function it was running */
	struct fscost_lock_wait locks[2];
};

#include "cpu_now.bpf.h"

/* Whether the slot holds `task`'s operation fields: filled from its state
 * in this recording. Then they are the slot's, whatever `gen` says, until
 * the task is switched out. */
static __always_inline bool slot_holds(struct fscost_cpu_now *c, __u64 task)
{
	return c && c->task == task && c->has_state && c->run == run_gen;
}

/* The slot describes `task`, whose state is t (NULL: none), and takes its
 * operation's fields from it. */
static __always_inline void fill_cpu_now(struct fscost_cpu_now *c, __u64 task,
					 struct fscost_task *t)
{
	if (!c)
		return;
	c->task = task;
	c->has_state = t != NULL;
	c->gen = states_gen;
	c->run = run_gen;
	c->op = t ? t->op : FSCOST_OP_NONE;
	c->trans = t ? t->trans : 0;
	if (!t)
		return;
	c->start_ns = t->start_ns;
	c->oncpu_since_ns = t->oncpu_since_ns;
	c->oncpu_ns = t->oncpu_ns;
	c->offcpu_ns = t->offcpu_ns;
}

/* The operation's fields back into `task`'s state t, if the slot holds them. */
static __always_inline void store_cpu_now(struct fscost_cpu_now *c, __u64 task,
					  struct fscost_task *t)
{
	if (!t || !slot_holds(c, task))
		return;
	t->op = c->op;
	t->trans = c->trans;
	t->start_ns = c->start_ns;
	t->oncpu_since_ns = c->oncpu_since_ns;
	t->oncpu_ns = c->oncpu_ns;
	t->offcpu_ns = c->offcpu_ns;
}

/* Whether the slot describes `task` as of the latest seeding. */
static __always_inline bool cpu_now_is(struct fscost_cpu_now *c, __u64 task)
{
	return c && c->task == task && c->gen == states_gen;
}

/* t, the current task's state, with the operation the slot holds for it:
 * for programs that read t->op while the task runs (locks, samples). */
static __always_inline struct fscost_task *with_running_op(struct fscost_task *t)
{
	struct fscost_cpu_now *c = cpu_now_slot();

	if (t && slot_holds(c, bpf_get_current_task()))
		t->op = c->op;
	return t;
}

/* Per-thread state, in one of two maps by attach flavour. tp_btf programs
 * get typed task pointers, so they use task storage: reached from the
 * task_struct without hashing, and freed with the task. The raw_tp fallback
 * (kernels where tracing programs cannot use task storage, before 5.12)
 * keys a hash by tid.
 * userspace shrinks the map it does not use to one entry. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct fscost_task);
} task_store SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);	/* --max-threads */
	__type(key, __u32);		/* tid */
	__type(value, struct fscost_task);
} tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);	/* --stack-storage-size */
	__type(key, __u64);		/* content hash */
	__type(value, struct fscost_stack);
} stacks SEC(".maps");

/* Scratch space: a stack is too large for the BPF stack. One slot per
 * nesting level: a program taking a stack can be interrupted by another
 * that takes one too (an interrupt's sample or wakeup inside a lock
 * contention's program), and a single shared slot then held the other's
 * frames when it was hashed or stored: 1-2 stack_hash_collision in one of
 * four 2000-file create runs, none in 12 with the slots. Task, softirq,
 * hardirq, NMI: four levels. */
#define FSCOST_STACK_NEST 4

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FSCOST_STACK_NEST);
	__type(key, __u32);
	__type(value, struct fscost_stack);
} stack_scratch SEC(".maps");

/* How many store_stack calls are running on this CPU: the slot to use. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} stack_nest SEC(".maps");

/* How many inserts or deletes of ours are running on this CPU. Both take
 * a preallocated hash's per-CPU freelist lock; contention on it fires
 * lock:contention_begin and _end on this CPU inside the update, and a lock
 * program inserting into the same map there would take the lock again,
 * queued behind or held by the very program it interrupted: with 6.1's
 * plain raw_spin_lock() in kernel/bpf/percpu_freelist.c, a deadlock. The
 * lock programs read this and stay out. Only writes to maps the lock
 * programs also insert into need the mark (stacks, tasks, and what
 * lookup_or_init fills); `blocked` and `tracked`, written per context
 * switch and fork, go unmarked. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} map_writing SEC(".maps");

/* Plain increments: a program interrupting this one restores the count
 * before this one resumes. */
static __always_inline __u32 *writing_begin(void)
{
	__u32 zero = 0, *busy = bpf_map_lookup_elem(&map_writing, &zero);

	if (busy)
		*busy += 1;
	return busy;
}

static __always_inline void writing_end(__u32 *busy)
{
	if (busy)
		*busy -= 1;
}

/* bpf_map_update_elem and bpf_map_delete_elem, marked for the lock programs. */
static __always_inline long insert_elem(void *map, const void *key, const void *value,
					__u64 flags)
{
	__u32 *busy = writing_begin();
	long err = bpf_map_update_elem(map, key, value, flags);

	writing_end(busy);
	return err;
}

static __always_inline long delete_elem(void *map, const void *key)
{
	__u32 *busy = writing_begin();
	long err = bpf_map_delete_elem(map, key);

	writing_end(busy);
	return err;
}

static __always_inline bool inside_our_map_write(void)
{
	__u32 zero = 0, *busy = bpf_map_lookup_elem(&map_writing, &zero);

	return busy && *busy;
}

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

/* `btf` is a per-program constant: true in tp_btf programs (typed task
 * pointers, task storage), false in raw_tp ones. */
static __always_inline __u32 current_flags(bool btf)
{
	struct task_struct *task;

	if (btf)
		return bpf_get_current_task_btf()->flags;	/* a plain load */
	task = (struct task_struct *)bpf_get_current_task();
	return BPF_CORE_READ(task, flags);
}

static __always_inline bool current_is_kthread(bool btf)
{
	return current_flags(btf) & PF_KTHREAD;
}

/* A map helper's error as the errno it is. Before Linux 6.4 the map ops
 * returned int, which reaches the program zero-extended: 6.1's full hash
 * map gives 4294967289, not -E2BIG (Debian 12's stock kernel, seen with
 * tests/vm/run; every full-map drop there was counted as
 * map_update_failed). The low 32 bits are the errno on every kernel. */
static __always_inline int helper_errno(long ret)
{
	return (int)ret;
}

/* A refused insert: `full` when the map was full (-E2BIG), else
 * map_update_failed (the bucket lock refused a re-entrant or timed-out
 * update), so the drop names the right knob. */
static __always_inline void count_insert_error(long err, enum fscost_drop full)
{
	count_drop(helper_errno(err) == -E2BIG ? full : FSCOST_DROP_MAP_UPDATE_FAILED);
}

/* The value under key, inserted from init first if absent (another CPU may
 * insert it meanwhile: that is fine). NULL when it cannot be, counted. */
static __always_inline void *lookup_or_init(void *map, const void *key, const void *init,
					    enum fscost_drop full)
{
	void *v = bpf_map_lookup_elem(map, key);
	long err;

	if (v)
		return v;
	err = insert_elem(map, key, init, BPF_NOEXIST);
	v = bpf_map_lookup_elem(map, key);
	if (!v)
		count_insert_error(err, full);
	return v;
}

/* One more interval of `ns` under `key` in a (key → fscost_offcpu_val) map;
 * a full map counts as `drop`. */
static __always_inline void add_interval(void *map, const void *key, enum fscost_drop drop,
					 __u64 ns)
{
	struct fscost_offcpu_val *v, init = {};

	v = lookup_or_init(map, key, &init, drop);
	if (!v)
		return;
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->total_ns, ns);
}

_Static_assert(__builtin_offsetof(struct fscost_task, gen) == FSCOST_TASK_GEN_OFFSET,
	       "userspace seeds fscost_task.gen at FSCOST_TASK_GEN_OFFSET");

/* State left by an earlier recording is no state: a lookup does not see it. */
static __always_inline struct fscost_task *current_gen(struct fscost_task *t)
{
	return t && t->gen == run_gen ? t : NULL;
}

/* A created (or found) entry, zeroed anew if an earlier recording left it. */
static __always_inline struct fscost_task *fresh_state(struct fscost_task *t)
{
	if (t && t->gen != run_gen) {
		__builtin_memset(t, 0, sizeof(*t));
		t->gen = run_gen;
	}
	return t;
}

/* The state of task p, or NULL: the idle task and untracked tasks have none. */
static __always_inline struct fscost_task *state_of(struct task_struct *p, bool btf)
{
	__u32 tid;

	if (btf)
		return current_gen(bpf_task_storage_get(&task_store, p, NULL, 0));
	tid = BPF_CORE_READ(p, pid);
	return tid ? current_gen(bpf_map_lookup_elem(&tasks, &tid)) : NULL;
}

static __always_inline struct fscost_task *current_state(bool btf)
{
	__u32 tid;

	if (btf)
		return current_gen(bpf_task_storage_get(&task_store, bpf_get_current_task_btf(),
							NULL, 0));
	tid = (__u32)bpf_get_current_pid_tgid();
	return current_gen(bpf_map_lookup_elem(&tasks, &tid));
}

/* The current task's state, created zeroed on first use; NULL (and
 * counted as `drop`) when it cannot be: hash full, or task storage found no
 * memory or was busy (another program of ours preempted mid-update). */
static __always_inline struct fscost_task *current_state_create(bool btf, enum fscost_drop drop)
{
	struct fscost_task *t, zero;
	__u32 tid;

	if (btf) {
		t = bpf_task_storage_get(&task_store, bpf_get_current_task_btf(), NULL,
					 BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!t)
			count_drop(drop);
	} else {
		tid = (__u32)bpf_get_current_pid_tgid();
		__builtin_memset(&zero, 0, sizeof(zero));
		zero.gen = run_gen;
		t = lookup_or_init(&tasks, &tid, &zero, drop);
	}
	return fresh_state(t);
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

/* h, when the stack stored under it is st (same depth and second hash);
 * else 0: a different stack owns the hash, and st is lost, counted, rather
 * than merged into it. Two loads, no frame compare, on every stored stack. */
static __always_inline __u64 stored_as(const struct fscost_stack *stored,
				       const struct fscost_stack *st, __u64 h)
{
	if (stored->depth == st->depth && stored->check == st->check)
		return h;
	count_drop(FSCOST_DROP_STACK_HASH_COLLISION);
	return 0;
}

/* store_stack in scratch slot `level`. */
static __always_inline __u64 store_stack_at(void *ctx, __u64 flags, __u32 level)
{
	struct fscost_stack *st = bpf_map_lookup_elem(&stack_scratch, &level), *stored;
	long len, err;
	__u64 h;

	if (!st) {
		count_drop(FSCOST_DROP_STACK_UPDATE_FAILED);	/* nested too deep */
		return 0;
	}
	len = bpf_get_stack(ctx, st->ips, sizeof(st->ips), flags);
	if (len <= 0) {
		count_drop(FSCOST_DROP_STACK_OTHER);
		return 0;
	}
	st->depth = len / sizeof(__u64);
	h = fscost_stack_hash(st);
	stored = bpf_map_lookup_elem(&stacks, &h);
	if (stored)
		return stored_as(stored, st, h);
	err = insert_elem(&stacks, &h, st, BPF_NOEXIST);
	if (!err)
		return h;
	/* -EEXIST: another CPU stored this hash meanwhile (this stack, or one
	 * colliding with it); read it again to tell which. */
	stored = helper_errno(err) == -EEXIST ? bpf_map_lookup_elem(&stacks, &h) : NULL;
	if (stored)
		return stored_as(stored, st, h);
	count_drop(helper_errno(err) == -E2BIG ? FSCOST_DROP_STACK_FULL
					       : FSCOST_DROP_STACK_UPDATE_FAILED);
	return 0;
}

/* The current stack (kernel, or user with BPF_F_USER_STACK), stored once
 * under its content hash; 0 if it could not be taken or stored (counted). */
static __always_inline __u64 store_stack(void *ctx, __u64 flags)
{
	__u32 zero = 0, *nest = bpf_map_lookup_elem(&stack_nest, &zero);
	__u64 h;

	if (!nest)
		return 0;
	/* Plain increments: an interrupting program restores the count
	 * before this one resumes, and tracepoint programs are not preempted. */
	*nest += 1;
	h = store_stack_at(ctx, flags, *nest - 1);
	*nest -= 1;
	return h;
}

static __always_inline __u64 kernel_stack(void *ctx)
{
	return store_stack(ctx, 0);
}

/* The workqueue worker a kernel thread is, or NULL. `flags` are its
 * task_struct flags, which every caller has already read. */
static __always_inline struct worker *task_worker(struct task_struct *task, __u32 flags)
{
	if (!(flags & PF_WQ_WORKER) || !bpf_core_field_exists(task->worker_private))
		return NULL;
	/* worker_private holds the struct kthread (to_kthread() in
	 * kernel/kthread.c); a workqueue worker is its data. */
	struct kthread *k = BPF_CORE_READ(task, worker_private);

	return BPF_CORE_READ(k, data);
}

/* Background bucket of a kernel thread: the workqueue a kworker is executing
 * for, else the thread's comm; and the work function it runs (0 between
 * work items, or for a thread that is no worker). */
static __always_inline __u64 task_bucket(struct task_struct *task, __u32 flags, char *name)
{
	struct worker *w = task_worker(task, flags);
	struct pool_workqueue *pwq = w ? BPF_CORE_READ(w, current_pwq) : NULL;

	if (pwq) {
		struct workqueue_struct *wq = BPF_CORE_READ(pwq, wq);

		/* > 1: more than the terminating NUL */
		if (bpf_probe_read_kernel_str(name, FSCOST_NAME_LEN, wq->name) > 1)
			return (__u64)BPF_CORE_READ(w, current_func);
	}
	bpf_probe_read_kernel_str(name, FSCOST_NAME_LEN, task->comm);
	return 0;
}

static __always_inline struct task_struct *current_task(void)
{
	return (struct task_struct *)bpf_get_current_task();
}

/* The work function the current worker runs; 0 between work items. */
static __always_inline __u64 current_work_func(__u32 flags)
{
	struct worker *w = task_worker(current_task(), flags);

	return w ? (__u64)BPF_CORE_READ(w, current_func) : 0;
}

static __always_inline void kthread_name(__u32 flags, char *name)
{
	task_bucket(current_task(), flags, name);
}

#endif /* FSCOST_COMMON_BPF_H */
