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
	__u64 lat[FSCOST_LAT_BUCKETS];
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
	__u64 kstack;		/* key in `stacks`; 0: no kernel stack (user mode, or lost) */
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

/* Per-thread state, keyed by tid. */
struct fscost_task {
	__u32 op;		/* FSCOST_OP_NONE outside a syscall */
	__u32 pad;
	__u64 start_ns;		/* syscall entry */
	__u64 oncpu_since_ns;	/* entry or last switch-in */
	__u64 oncpu_ns;		/* on-CPU time so far inside the syscall */
};

/* Indexes of the drop counters in the .bss `drops` array. */
enum fscost_drop {
	FSCOST_DROP_STACK_FULL = 0,
	FSCOST_DROP_STACK_OTHER,
	FSCOST_DROP_SAMPLE_MAP_FULL,
	FSCOST_DROP_TASK_MAP_FULL,
	FSCOST_DROP_TRACKED_MAP_FULL,
	FSCOST_DROP__COUNT,
};

#endif /* FSCOST_BPF_H */
