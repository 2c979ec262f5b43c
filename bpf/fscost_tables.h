/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tables the BPF side and C++ both read, each written once as an X-macro
 * list: bpf/fscost.h expands them into the enums the BPF programs use,
 * userspace/collector and analysis/model into their name tables. Row order
 * is the enum value. Macros only (no types, no includes), so analysis/ can
 * include this without libbpf or vmlinux.h.
 */
#ifndef FSCOST_TABLES_H
#define FSCOST_TABLES_H

/* For C++: (0 FSCOST_..._TABLE(FSCOST_ROW_COUNT)) is a table's row count. */
#define FSCOST_ROW_COUNT(...) +1

/*
 * Filesystem events counted per operation, X(ID, system, tracepoint, probe
 * group, object): the enum is FSCOST_FSEV_<ID>, the BPF programs
 * <tracepoint>_btf and <tracepoint>_raw attach to <system>:<tracepoint>, and
 * the tracepoint is also the counter's name in profiles (docs/PROFILE.md).
 * The group is userspace's ProbeGroup: FsBuf events fire ~30 times per
 * create, so they are off by default. The object is the tracepoint's first
 * argument (FSCOST_XOBJ_<obj>), from which the BPF side reads the
 * superblock's dev_t to count the test filesystem's only. One block per
 * filesystem; a kernel without one (or without a tracepoint) skips its rows.
 */
#define FSCOST_FS_EVENT_TABLE(X)					\
	/* XFS: transactions, log space and forces, buffers, inode cache */	\
	X(TRANS_ALLOC, xfs, xfs_trans_alloc, FsEvents, TRANS)		\
	X(TRANS_COMMIT, xfs, xfs_trans_commit, FsEvents, TRANS)		\
	X(TRANS_CANCEL, xfs, xfs_trans_cancel, FsEvents, TRANS)		\
	X(LOG_RESERVE, xfs, xfs_log_reserve, FsEvents, LOG)		\
	X(LOG_REGRANT, xfs, xfs_log_regrant, FsEvents, LOG)		\
	X(LOG_GRANT_SLEEP, xfs, xfs_log_grant_sleep, FsEvents, LOG)	\
	X(LOG_FORCE, xfs, xfs_log_force, FsEvents, MOUNT)		\
	X(BUF_READ, xfs, xfs_buf_read, FsBuf, BUF)			\
	X(BUF_GET, xfs, xfs_buf_get, FsBuf, BUF)			\
	X(BUF_LOCK, xfs, xfs_buf_lock, FsBuf, BUF)			\
	X(ILOCK, xfs, xfs_ilock, FsBuf, INODE)				\
	X(IGET_MISS, xfs, xfs_iget_miss, FsEvents, INODE)		\
	/* ext4 and its journal: handles (one per journalled change),	\
	 * commits and checkpoints, inodes allocated and dirtied */	\
	X(JBD2_HANDLE_START, jbd2, jbd2_handle_start, FsEvents, DEV)	\
	X(JBD2_START_COMMIT, jbd2, jbd2_start_commit, FsEvents, JOURNAL) \
	X(JBD2_END_COMMIT, jbd2, jbd2_end_commit, FsEvents, JOURNAL)	\
	X(JBD2_CHECKPOINT, jbd2, jbd2_checkpoint, FsEvents, JOURNAL)	\
	X(EXT4_ALLOCATE_INODE, ext4, ext4_allocate_inode, FsEvents, VFS_INODE) \
	X(EXT4_MARK_INODE_DIRTY, ext4, ext4_mark_inode_dirty, FsEvents, VFS_INODE) \
	/* btrfs: transaction commits, tree locks taken (every one, not	\
	 * only the contended), COWed blocks, delayed refs */		\
	X(BTRFS_TRANSACTION_COMMIT, btrfs, btrfs_transaction_commit, FsEvents, BTRFS_FS_INFO) \
	X(BTRFS_TREE_LOCK, btrfs, btrfs_tree_lock, FsEvents, BTRFS_EB)	\
	X(BTRFS_TREE_READ_LOCK, btrfs, btrfs_tree_read_lock, FsEvents, BTRFS_EB) \
	X(BTRFS_COW_BLOCK, btrfs, btrfs_cow_block, FsEvents, BTRFS_ROOT) \
	X(BTRFS_INODE_NEW, btrfs, btrfs_inode_new, FsEvents, VFS_INODE)	\
	X(BTRFS_ADD_DELAYED_REF_HEAD, btrfs, add_delayed_ref_head, FsEvents, BTRFS_FS_INFO) \
	X(BTRFS_RUN_DELAYED_REF_HEAD, btrfs, run_delayed_ref_head, FsEvents, BTRFS_FS_INFO)

/*
 * Why a task inside an operation went off CPU, X(ID, C++ BlockReason name):
 * FSCOST_BLOCK_<ID> on the BPF side (sched.bpf.h block_reason()),
 * fscost::BlockReason in analysis/model/wait_class.h.
 */
#define FSCOST_BLOCK_REASON_TABLE(X)					\
	X(SLEEP, Sleep)		/* blocked, not in iowait, no contended lock */	\
	X(IOWAIT, IoWait)	/* blocked with in_iowait set (io_schedule) */	\
	X(LOCK, Lock)		/* between contention_begin and _end */		\
	X(RUNQUEUE, Runqueue)	/* still runnable: preempted, or woken */

/*
 * What a write to the test device carried, X(ID, profile name): the block
 * layer's REQ_META ('M' in rwbs) makes it metadata, the XFS log's sector
 * range (given by userspace) the log, anything else is data.
 */
#define FSCOST_IO_CLASS_TABLE(X)	\
	X(DATA, "data")			\
	X(META, "metadata")		\
	X(LOG, "log")

/*
 * The drop counters in the BPF .bss `drops` array, X(ID, profile name, what
 * was lost, hint): FSCOST_DROP_<ID> indexes the array; the strings are
 * analysis/model/drops.cpp's, printed with every report (docs/PROFILE.md).
 */
#define FSCOST_DROP_TABLE(X)							\
	X(STACK_FULL, "stack_map_full",						\
	  "kernel stacks lost: the stack map was full",				\
	  "raise --stack-storage-size")						\
	X(STACK_OTHER, "stack_other_errors",					\
	  "kernel stacks lost: bpf_get_stack failed, or a stack vanished before it was read", \
	  "see `fscost features`")						\
	X(STACK_UPDATE_FAILED, "stack_update_failed",				\
	  "stacks lost: storing a new stack failed other than by a full map "	\
	  "(its bucket lock refused a re-entrant or timed-out update, or "	\
	  "stack takes nested more than four deep on one CPU)",		\
	  "none needed when small: a program of ours (lock contention, "	\
	  "or the sampler) ran inside another's update of the map")		\
	X(STACK_HASH_COLLISION, "stack_hash_collision",				\
	  "stacks lost: another stack was stored under the same 64-bit content " \
	  "hash (told apart by a second hash kept with each stack)",		\
	  "none needed when small (random stacks collide ~n^2/2^65); "		\
	  "a steady count means the hash suits these stacks badly: report it")	\
	X(SAMPLE_MAP_FULL, "sample_map_full",					\
	  "samples lost: the (operation, stack) aggregation map was full",	\
	  "raise --max-stacks")							\
	X(TASK_MAP_FULL, "task_map_full",					\
	  "operations lost: no per-thread state could be stored "		\
	  "(the raw_tp flavour's tid hash was full, or task storage found no memory)", \
	  "raise --max-threads (raw_tp flavour; task storage has no size limit)") \
	X(TRACKED_MAP_FULL, "tracked_map_full",					\
	  "processes not followed: the tracked-process map was full",		\
	  "raise --max-procs")							\
	X(OFFCPU_MAP_FULL, "offcpu_map_full",					\
	  "off-CPU intervals lost: the (operation, off-CPU stack, waker) map was full", \
	  "raise --max-offcpu")							\
	X(LOCK_MAP_FULL, "lock_map_full",					\
	  "lock contentions lost: the (operation, lock, stack) map was full",	\
	  "raise --max-locks")							\
	X(BACKGROUND_MAP_FULL, "background_map_full",				\
	  "XFS events of kernel threads lost: the (thread, work function) map was full", \
	  "raise --max-background")						\
	X(DEV_WRITE_FULL, "dev_write_full",					\
	  "block writes not counted in the written bytes: the (device, write "	\
	  "class) map was full",						\
	  "raise --max-devices")						\
	X(BACKGROUND_LOST, "background_state_lost",				\
	  "kernel-thread off-CPU intervals or lock waits not timed: no per-thread " \
	  "state could be stored for the thread (task storage found no memory, or " \
	  "was busy in a preempted program of ours)",				\
	  "none needed when small next to the kernel threads' figures")	\
	X(HOLDER_MAP_FULL, "holder_map_full",					\
	  "lock holders not identified: the map of blocked tracked threads, or of " \
	  "(waiter, lock, holder) waits, was full",				\
	  "raise --max-threads or --max-locks")					\
	X(LOCK_NESTING, "lock_nesting",						\
	  "lock contentions not timed: a third contention began while a task "	\
	  "already waited on two (an interrupt contending inside a contention)", \
	  "none needed when small next to the contention counts; "		\
	  "the BPF side tracks two nested waits per task")			\
	X(FUNC_CALL_FULL, "function_call_map_full",				\
	  "--time-functions calls counted but not timed: the map of calls in "	\
	  "progress (thread, function) was full",				\
	  "raise --max-threads")						\
	X(LOCK_IN_TRACER, "lock_in_tracer",					\
	  "lock contentions not timed: they were inside fscost's own insert into " \
	  "one of its maps on that CPU (a lock program inserting there could "	\
	  "take the map's freelist lock its interrupted insert holds: a deadlock)", \
	  "none needed: the wait was the tracer's own, not the workload's")	\
	X(MAP_UPDATE_FAILED, "map_update_failed",				\
	  "entries lost in an aggregation or per-thread map: an insert failed "	\
	  "other than by a full map (its bucket lock refused a re-entrant or "	\
	  "timed-out update)",							\
	  "none needed when small: a program of ours (lock contention, or the " \
	  "sampler) ran inside another's update of the map")

#endif /* FSCOST_TABLES_H */
