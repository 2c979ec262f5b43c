/* SPDX-License-Identifier: GPL-2.0 */
/* Filesystem events (XFS, ext4/jbd2, btrfs) per operation and per
 * kernel-thread work, and bytes written per block device. */
#ifndef FSCOST_XFS_BPF_H
#define FSCOST_XFS_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FSCOST_MAX_OPS);	/* 0: outside any operation */
	__type(key, __u32);
	__type(value, struct fscost_fs_event_counts);
} fs_event_counts SEC(".maps");

/* Kernel threads' filesystem events, by (bucket, work function). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);	/* --max-background */
	__type(key, struct fscost_bg_key);
	__type(value, struct fscost_fs_event_counts);
} bg_fs_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);	/* --max-devices */
	__type(key, struct fscost_dev_key);
	__type(value, __u64);
} dev_write_bytes SEC(".maps");

/* The xfs_mount an event is about, from its first argument. `obj` is a
 * per-program constant, so the switch folds away. tp_btf arguments are typed
 * (PTR_TO_BTF_ID): plain loads, which the JIT guards, instead of a
 * bpf_probe_read_kernel call each (bench/run bpf, paired with the previous
 * build: xfs_buf_get 63 → 55 ns per run, xfs_buf_read 62 → 58). */
static __always_inline struct xfs_mount *xfs_event_mount(__u32 obj, void *arg, bool btf)
{
	if (btf) {
		switch (obj) {
		case FSCOST_XOBJ_TRANS: return ((struct xfs_trans *)arg)->t_mountp;
		case FSCOST_XOBJ_LOG: return ((struct xlog *)arg)->l_mp;
		case FSCOST_XOBJ_BUF: return ((struct xfs_buf *)arg)->b_mount;
		case FSCOST_XOBJ_INODE: return ((struct xfs_inode *)arg)->i_mount;
		}
		return arg;
	}
	switch (obj) {
	case FSCOST_XOBJ_TRANS: return BPF_CORE_READ((struct xfs_trans *)arg, t_mountp);
	case FSCOST_XOBJ_LOG: return BPF_CORE_READ((struct xlog *)arg, l_mp);
	case FSCOST_XOBJ_BUF: return BPF_CORE_READ((struct xfs_buf *)arg, b_mount);
	case FSCOST_XOBJ_INODE: return BPF_CORE_READ((struct xfs_inode *)arg, i_mount);
	}
	return arg;	/* FSCOST_XOBJ_MOUNT */
}

/* The superblock dev_t of a non-XFS event's filesystem. For jbd2,
 * j_fs_dev is the filesystem's own device (the internal journal's too),
 * whose bd_dev is sb->s_dev; btrfs' superblock has an anonymous dev_t,
 * which userspace reads from mountinfo: stat() of a btrfs mount gives its
 * subvolume's (userspace/system/fs_device.h). */
static __always_inline __u32 event_dev(__u32 obj, void *arg, bool btf)
{
	struct btrfs_fs_info *fi;

	switch (obj) {
	case FSCOST_XOBJ_DEV:
		return (__u32)(__u64)arg;
	case FSCOST_XOBJ_JOURNAL:
		return btf ? ((journal_t *)arg)->j_fs_dev->bd_dev
			   : BPF_CORE_READ((journal_t *)arg, j_fs_dev, bd_dev);
	case FSCOST_XOBJ_VFS_INODE:
		return btf ? ((struct inode *)arg)->i_sb->s_dev
			   : BPF_CORE_READ((struct inode *)arg, i_sb, s_dev);
	case FSCOST_XOBJ_BTRFS_FS_INFO:
		fi = arg;
		break;
	case FSCOST_XOBJ_BTRFS_EB:
		fi = btf ? ((struct extent_buffer *)arg)->fs_info
			 : BPF_CORE_READ((struct extent_buffer *)arg, fs_info);
		break;
	case FSCOST_XOBJ_BTRFS_ROOT:
		fi = btf ? ((struct btrfs_root *)arg)->fs_info
			 : BPF_CORE_READ((struct btrfs_root *)arg, fs_info);
		break;
	default:
		return 0;
	}
	return btf ? fi->sb->s_dev : BPF_CORE_READ(fi, sb, s_dev);
}

static __always_inline bool is_xfs_object(__u32 obj)
{
	return obj <= FSCOST_XOBJ_INODE;
}

static __always_inline bool on_target_fs(__u32 obj, void *arg, bool btf)
{
	struct xfs_mount *mp;

	if (!target_dev)
		return true;
	if (!is_xfs_object(obj))
		return event_dev(obj, arg, btf) == target_dev;
	mp = xfs_event_mount(obj, arg, btf);
	if ((__u64)mp == target_mp)
		return true;
	if ((btf ? mp->m_super->s_dev : BPF_CORE_READ(mp, m_super, s_dev)) != target_dev)
		return false;
	target_mp = (__u64)mp;	/* one filesystem per dev_t while it is mounted */
	return true;
}

static __always_inline void count_background_fs_event(__u32 ev, __u32 flags)
{
	struct fscost_bg_key key = {};
	struct fscost_fs_event_counts *c, zero = {};

	kthread_name(flags, key.name);
	key.func = current_work_func(flags);
	c = lookup_or_init(&bg_fs_events, &key, &zero, FSCOST_DROP_BACKGROUND_MAP_FULL);
	if (!c)
		return;
	if (ev < FSCOST_FS_EVENTS)
		__sync_fetch_and_add(&c->n[ev], 1);
}

static __always_inline void count_fs_event(__u32 ev, __u32 obj, void *arg, bool btf)
{
	__u32 op = FSCOST_OP_NONE, flags, has_state;
	struct fscost_cpu_now *now = cpu_now_slot();
	__u64 task = bpf_get_current_task();
	struct fscost_fs_event_counts *c;
	struct fscost_task *t = NULL;

	if (!enabled)
		return;
	if (!on_target_fs(obj, arg, btf)) {
		__sync_fetch_and_add(&fs_events_other_fs, 1);
		return;
	}
	/* the slot, several events per operation, instead of a task storage call each */
	if (slot_holds(now, task)) {
		op = now->op;
		has_state = 1;
	} else if (cpu_now_is(now, task)) {
		has_state = 0;	/* no state as of the latest seeding */
	} else {
		now = NULL;
		t = current_state(btf);
		if (t)
			op = t->op;
		has_state = t != NULL;
	}
	if (op == FSCOST_OP_NONE) {
		flags = current_flags(btf);
		if (flags & PF_KTHREAD) {
			count_background_fs_event(ev, flags);
			return;
		}
		if (!has_state && !is_tracked(bpf_get_current_pid_tgid() >> 32))
			return;	/* untracked user task */
	}
	c = bpf_map_lookup_elem(&fs_event_counts, &op);
	if (c && ev < FSCOST_FS_EVENTS)
		c->n[ev]++;
	if (ev == FSCOST_FSEV_TRANS_ALLOC && op != FSCOST_OP_NONE) {
		if (now)
			now->trans++;
		else if (t)
			t->trans++;
	}
}

/* One program per flavour per row of FSCOST_FS_EVENT_TABLE, named
 * <tracepoint>_btf / _raw as userspace's hook table expects; userspace
 * autoloads the flavour it probed, and skips tracepoints this kernel lacks.
 * Both flavours see the tracepoint's arguments in ctx[]. */
#define FS_EVENT(id, sys, tp, group, obj)                                            \
	SEC("tp_btf/" #tp)                                                         \
	int BPF_PROG(tp##_btf)                                                     \
	{                                                                          \
		count_fs_event(FSCOST_FSEV_##id, FSCOST_XOBJ_##obj, (void *)ctx[0], true);  \
		return 0;                                                          \
	}                                                                          \
	SEC("raw_tp/" #tp)                                                         \
	int BPF_PROG(tp##_raw)                                                     \
	{                                                                          \
		count_fs_event(FSCOST_FSEV_##id, FSCOST_XOBJ_##obj, (void *)ctx[0], false); \
		return 0;                                                          \
	}

FSCOST_FS_EVENT_TABLE(FS_EVENT)
#undef FS_EVENT

/* Bytes written to each block device, split into data, metadata and the
 * test filesystem's log. What block_rq_issue's trace record would say
 * (dev, sector, nr_sector, rwbs), read from the request itself: a plain
 * "tracepoint/" program costs ~90 ms of RCU grace period each time one is
 * detached (strace of `fscost record`: one close(2) per detach), which every
 * record and every compare run paid twice, once in the feature probe. */
static __always_inline void handle_block_rq_issue(struct request *rq)
{
	/* kernel/trace/blktrace.c blk_fill_rwbs(): 'W' is REQ_OP_WRITE only,
	 * 'M' is REQ_META; include/trace/events/block.h: the disk's dev_t,
	 * blk_rq_pos() and blk_rq_bytes() */
	__u32 opf = BPF_CORE_READ(rq, cmd_flags);
	__u32 op_write = bpf_core_enum_value(enum req_op, REQ_OP_WRITE);
	__u32 meta_bit = bpf_core_enum_value(enum req_flag_bits, __REQ_META);
	struct gendisk *disk = BPF_CORE_READ(rq, q, disk);
	struct fscost_dev_key key = { .io_class = FSCOST_IO_DATA };
	__u64 bytes, sector, *v, zero = 0;

	if (!enabled || (opf & 0xff /* REQ_OP_MASK */) != op_write || !disk)
		return;
	bytes = BPF_CORE_READ(rq, __data_len);
	if (!bytes)
		return;
	sector = BPF_CORE_READ(rq, __sector);
	key.dev = ((__u32)BPF_CORE_READ(disk, major) << 20) | (__u32)BPF_CORE_READ(disk, first_minor);
	/* XFS log writes are REQ_META too: the range tells them apart */
	if (key.dev == target_dev && sector >= log_first_sector && sector < log_end_sector)
		key.io_class = FSCOST_IO_LOG;
	else if (opf & (1u << meta_bit))
		key.io_class = FSCOST_IO_META;
	v = lookup_or_init(&dev_write_bytes, &key, &zero, FSCOST_DROP_DEV_WRITE_FULL);
	if (v)
		__sync_fetch_and_add(v, bytes);
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(block_rq_issue_btf, struct request *rq)
{
	handle_block_rq_issue(rq);
	return 0;
}

SEC("raw_tp/block_rq_issue")
int BPF_PROG(block_rq_issue_raw, struct request *rq)
{
	handle_block_rq_issue(rq);
	return 0;
}

#endif /* FSCOST_XFS_BPF_H */
