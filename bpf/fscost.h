/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared between bpf/fscost.bpf.c and userspace/: plain structs of
 * fixed-width fields with explicit padding (userspace static_asserts sizes),
 * and the enums of the tables in fscost_tables.h. State only the BPF side
 * reads is in common.bpf.h.
 */
#ifndef FSCOST_BPF_H
#define FSCOST_BPF_H

#include "fscost_tables.h"

#define FSCOST_MAX_OPS 32          /* >= fscost::Op::Count_ */
#define FSCOST_OP_NONE 0
#define FSCOST_OP_OTHER 21         /* == fscost::Op::Other */
#define FSCOST_LAT_BUCKETS 40      /* == fscost::kLatencyBuckets */
#define FSCOST_MAX_SYSCALLS 512    /* syscall numbers >= this count as "other" */
#define FSCOST_NAME_LEN 32         /* kthread comm or workqueue name */
#define FSCOST_STACK_DEPTH 127     /* PERF_MAX_STACK_DEPTH */
/* Per-thread state (struct fscost_task, BPF-only) begins with its recording's
 * run_gen, a __u32: userspace seeds it there (Collector::track). */
#define FSCOST_TASK_GEN_OFFSET 0

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

/* Filesystem events (XFS, ext4/jbd2, btrfs) counted per operation (index
 * 0: outside any operation), in FSCOST_FS_EVENT_TABLE order. */
enum fscost_fs_event {
#define FSCOST_X(id, sys, tp, group, obj) FSCOST_FSEV_##id,
	FSCOST_FS_EVENT_TABLE(FSCOST_X)
#undef FSCOST_X
	FSCOST_FS_EVENTS,
};

struct fscost_fs_event_counts {
	__u64 n[FSCOST_FS_EVENTS];
};

/* What a filesystem tracepoint's first argument is. */
enum fscost_xfs_object {
	FSCOST_XOBJ_TRANS,		/* struct xfs_trans * */
	FSCOST_XOBJ_LOG,		/* struct xlog * */
	FSCOST_XOBJ_MOUNT,		/* struct xfs_mount * */
	FSCOST_XOBJ_BUF,		/* struct xfs_buf * */
	FSCOST_XOBJ_INODE,		/* struct xfs_inode * */
	FSCOST_XOBJ_DEV,		/* the superblock's dev_t itself */
	FSCOST_XOBJ_JOURNAL,		/* journal_t * (jbd2) */
	FSCOST_XOBJ_VFS_INODE,		/* struct inode * */
	FSCOST_XOBJ_BTRFS_FS_INFO,	/* struct btrfs_fs_info * */
	FSCOST_XOBJ_BTRFS_EB,		/* struct extent_buffer * */
	FSCOST_XOBJ_BTRFS_ROOT,		/* struct btrfs_root * */
};

/* A kernel thread's filesystem events are counted by (bucket, work function). */
struct fscost_bg_key {
	char name[FSCOST_NAME_LEN];	/* workqueue, or comm */
	__u64 func;			/* worker->current_func; 0: not running a work item */
};

/* Bytes written per (device, what the write carried). */
enum fscost_io_class {
#define FSCOST_X(id, name) FSCOST_IO_##id,
	FSCOST_IO_CLASS_TABLE(FSCOST_X)
#undef FSCOST_X
	FSCOST_IO_CLASSES,
};

struct fscost_dev_key {
	__u32 dev;		/* kernel dev_t: major << 20 | minor */
	__u32 io_class;		/* enum fscost_io_class */
};

/* Why a task inside an operation went off CPU (FSCOST_BLOCK_REASON_TABLE). */
enum fscost_block_reason {
#define FSCOST_X(id, name) FSCOST_BLOCK_##id,
	FSCOST_BLOCK_REASON_TABLE(FSCOST_X)
#undef FSCOST_X
};

struct fscost_offcpu_key {
	__u32 op;
	__u32 reason;
	__u64 stack;		/* blocked stack, in `stacks` */
	__u64 waker_stack;	/* 0: not woken by a traced wakeup */
	char waker[16];
	char name[FSCOST_NAME_LEN];	/* kthread bucket (op 0); zeroed for an op */
	__u64 func;		/* a kworker's work function (op 0); 0 otherwise */
	/* A kworker waker's work function, and the one it ran before: when
	 * the waker is flush_work's barrier (wq_barrier_func), the work the
	 * sleeper flushed. 0 for other wakers. */
	__u64 waker_func;
	__u64 waker_last_func;
	char waker_wq[FSCOST_NAME_LEN];	/* a kworker waker's workqueue; zeroed otherwise */
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

/* Who held a sleeping lock (rwsem, mutex: the locks whose owner the kernel
 * records) when an operation's wait on it began. */
enum fscost_holder_kind {
	FSCOST_HOLDER_NONE = 0,		/* not recorded (spinlock, semaphore, no owner) */
	FSCOST_HOLDER_BLOCKED = 1,	/* a tracked task off CPU inside an operation */
	FSCOST_HOLDER_TASK = 2,		/* a user task not blocked in a tracked operation */
	FSCOST_HOLDER_KTHREAD = 3,	/* a kernel thread */
	FSCOST_HOLDER_READERS = 4,	/* an rwsem held by readers: no one owner */
};

struct fscost_holder_key {
	__u32 waiter_op;
	__u32 holder_kind;		/* enum fscost_holder_kind */
	__u64 addr;			/* the lock */
	__u64 waiter_stack;		/* at contention_end, as in fscost_lock_key */
	__u64 holder_stack;		/* BLOCKED: where the holder was blocked */
	__u64 holder_func;		/* KTHREAD: the work function it was running */
	__u32 holder_op;		/* BLOCKED: its operation */
	__u32 holder_reason;		/* BLOCKED: enum fscost_block_reason */
	__u32 flags;			/* contention_begin flags of the wait */
	__u32 pad;
	char holder_name[FSCOST_NAME_LEN];	/* TASK: comm; KTHREAD: workqueue or comm */
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
 * that, unlike BPF_MAP_TYPE_STACK_TRACE, distinct stacks never evict each
 * other, and collide rarely (p ~ n^2 / 2^65 for random stacks). A collision
 * is told by `check`, a second hash the store compares instead of the
 * frames: a mismatch is counted (stack_hash_collision), not merged. */
struct fscost_stack {
	__u32 depth;
	__u32 check;		/* fscost_stack_hash()'s second hash */
	__u64 ips[FSCOST_STACK_DEPTH];
};

/* The map key of st's frames: FNV-1a over the words, 0 reserved for "no
 * stack"; and st->check, an independent hash (add, then multiply by the
 * 64-bit golden ratio) that a word-wise FNV collision does not share but
 * with probability 2^-32. One loop for both: the second costs two
 * instructions a frame. Here, not in common.bpf.h, so that C++ computes
 * the same keys (tests craft colliding stacks with it). */
static inline __attribute__((always_inline)) __u64 fscost_stack_hash(struct fscost_stack *st)
{
	__u64 h = 0xcbf29ce484222325ULL, c = 0;

	for (int i = 0; i < FSCOST_STACK_DEPTH; i++) {
		if (i >= (int)st->depth)
			break;
		h = (h ^ st->ips[i]) * 0x100000001b3ULL;
		c = (c + st->ips[i]) * 0x9e3779b97f4a7c15ULL;
	}
	st->check = (__u32)(c >> 32) ^ (__u32)c ^ st->depth;
	return h ? h : 1;
}

/* --time-functions: up to this many named kernel functions, timed with
 * fentry/fexit (functions.bpf.c), one BPF object each. */
#define FSCOST_MAX_FUNCS 8

/* A timed function's calls, per op in a per-CPU array; op 0: outside any
 * tracked operation (kernel threads, untracked tasks). A call counts at
 * entry, under the operation it was entered in, and its time (entry to
 * return of the outermost call, so a recursive call is not timed twice) is
 * added at return. */
struct fscost_func_stats {
	__u64 count;
	__u64 timed;		/* calls whose return was seen and timed */
	__u64 total_ns;
	__u64 max_ns;
};

/* Indexes of the drop counters in the .bss `drops` array (FSCOST_DROP_TABLE). */
enum fscost_drop {
#define FSCOST_X(id, name, what, hint) FSCOST_DROP_##id,
	FSCOST_DROP_TABLE(FSCOST_X)
#undef FSCOST_X
	FSCOST_DROP__COUNT,
};

#endif /* FSCOST_BPF_H */
