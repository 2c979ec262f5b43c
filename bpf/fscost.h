/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared between bpf/fscost.bpf.c and userspace/: plain structs of
 * fixed-width fields with explicit padding. userspace static_asserts sizes.
 */
#ifndef FSCOST_BPF_H
#define FSCOST_BPF_H

#define FSCOST_MAX_OPS 32          /* >= fscost::Op::Count_ */
#define FSCOST_OP_NONE 0
#define FSCOST_OP_OTHER 20         /* == fscost::Op::Other */
#define FSCOST_LAT_BUCKETS 40      /* == fscost::kLatencyBuckets */
#define FSCOST_MAX_SYSCALLS 512    /* syscall numbers >= this count as "other" */
#define FSCOST_NAME_LEN 32         /* kthread comm or workqueue name */
#define FSCOST_STACK_DEPTH 127     /* PERF_MAX_STACK_DEPTH */

/* How a syscall maps to an operation: `op`, or `alt_op` when the flag word
 * (args[flag_arg], or the u64 it points to when flag_deref, as for openat2's
 * struct open_how) has any bit of flag_mask set. */
struct fscost_syscall_rule {
	__u32 op;
	__u32 alt_op;
	__u64 flag_mask;
	__u32 flag_arg;
	__u32 flag_deref;
};

/* Exact per-operation figures, one per op in a per-CPU array. */
struct fscost_op_stats {
	__u64 count;
	__u64 errors;
	__u64 wall_ns;
	__u64 oncpu_ns;
	__u64 offcpu_ns;
	__u64 trans_min;	/* xfs_trans_alloc per operation, this CPU */
	__u64 trans_max;
	__u64 lat[FSCOST_LAT_BUCKETS];
};

/* XFS events counted per operation (index 0: outside any operation). The
 * names and tracepoints are in userspace/xfs_events.cpp, in this order. */
enum fscost_xfs_event {
	FSCOST_XFS_TRANS_ALLOC = 0,
	FSCOST_XFS_TRANS_COMMIT,
	FSCOST_XFS_TRANS_CANCEL,
	FSCOST_XFS_LOG_RESERVE,
	FSCOST_XFS_LOG_REGRANT,
	FSCOST_XFS_LOG_GRANT_SLEEP,
	FSCOST_XFS_LOG_FORCE,
	FSCOST_XFS_BUF_READ,
	FSCOST_XFS_BUF_GET,
	FSCOST_XFS_BUF_LOCK,
	FSCOST_XFS_ILOCK,
	FSCOST_XFS_IGET_MISS,
	FSCOST_XFS_EVENTS,
};

struct fscost_xfs_counts {
	__u64 n[FSCOST_XFS_EVENTS];
};

/* Why a task inside an operation went off CPU (== analysis BlockReason). */
enum fscost_block_reason {
	FSCOST_BLOCK_SLEEP = 0,
	FSCOST_BLOCK_IOWAIT = 1,
	FSCOST_BLOCK_LOCK = 2,
	FSCOST_BLOCK_RUNQUEUE = 3,
};

struct fscost_offcpu_key {
	__u32 op;
	__u32 reason;
	__u64 stack;		/* blocked stack, in `stacks` */
	__u64 waker_stack;	/* 0: not woken by a traced wakeup */
	char waker[16];
};

struct fscost_offcpu_val {
	__u64 count;
	__u64 total_ns;
};

struct fscost_lock_key {
	__u32 kind;		/* enum fscost_sample_kind */
	__u32 op;
	__u64 addr;
	__u64 stack;		/* at contention_begin */
	char name[FSCOST_NAME_LEN];	/* kthread bucket */
};

struct fscost_lock_val {
	__u64 count;
	__u64 total_ns;
	__u64 max_ns;
	__u64 spin_ns;
	__u64 sleep_ns;
	__u64 flags;		/* contention_begin flags, OR-ed */
};

enum fscost_sample_kind {
	FSCOST_SK_OP = 0,
	FSCOST_SK_USER = 1,
	FSCOST_SK_KERNEL = 2,
	FSCOST_SK_KTHREAD = 3,
};

/* cpu-clock samples are aggregated in the kernel by this key. */
struct fscost_sample_key {
	__u32 kind;
	__u32 op;
	/* key in `stacks`: the kernel stack, or for FSCOST_SK_USER the user
	 * stack (with --user-stacks); 0: none, or lost */
	__u64 stack;
	__u32 tgid;		/* FSCOST_SK_USER with --user-stacks; else 0 */
	__u32 pad;
	char name[FSCOST_NAME_LEN];	/* kthread bucket; zeroed otherwise */
};

/* A kernel stack, leaf first. Stored under a 64-bit hash of its content, so
 * that, unlike BPF_MAP_TYPE_STACK_TRACE, distinct stacks never evict or
 * collide with each other in practice (p ~ n^2 / 2^65). */
struct fscost_stack {
	__u32 depth;
	__u32 pad;
	__u64 ips[FSCOST_STACK_DEPTH];
};

/* One contended lock a task is waiting for. */
struct fscost_lock_wait {
	__u64 addr;
	__u64 begin_ns;
	__u64 stack;
	__u64 offcpu_ns;	/* slept so far in this wait */
	__u64 out_since_ns;	/* switched out during the wait; 0: on CPU */
	__u32 flags;
	__u32 pad;
};

/* Per-thread state, keyed by tid. */
struct fscost_task {
	__u32 op;		/* FSCOST_OP_NONE outside a syscall */
	__u32 trans;		/* xfs_trans_alloc in the current operation */
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
	struct fscost_lock_wait locks[2];
};

/* Indexes of the drop counters in the .bss `drops` array. */
enum fscost_drop {
	FSCOST_DROP_STACK_FULL = 0,
	FSCOST_DROP_STACK_OTHER,
	FSCOST_DROP_SAMPLE_MAP_FULL,
	FSCOST_DROP_TASK_MAP_FULL,
	FSCOST_DROP_TRACKED_MAP_FULL,
	FSCOST_DROP_OFFCPU_MAP_FULL,
	FSCOST_DROP_LOCK_MAP_FULL,
	FSCOST_DROP_LOCK_NESTING,	/* a third nested contention: not tracked */
	FSCOST_DROP__COUNT,
};

#endif /* FSCOST_BPF_H */
