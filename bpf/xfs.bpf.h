/* SPDX-License-Identifier: GPL-2.0 */
/* XFS events per operation, and bytes written per block device. */
#ifndef FSCOST_XFS_BPF_H
#define FSCOST_XFS_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FSCOST_MAX_OPS);	/* 0: outside any operation */
	__type(key, __u32);
	__type(value, struct fscost_xfs_counts);
} xfs_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);		/* kernel dev_t: major << 20 | minor */
	__type(value, __u64);
} dev_write_bytes SEC(".maps");

static __always_inline void count_xfs(__u32 ev, bool btf)
{
	__u32 op = FSCOST_OP_NONE;
	struct fscost_xfs_counts *c;
	struct fscost_task *t;

	if (!enabled)
		return;
	t = current_state(btf);
	if (t)
		op = t->op;
	else if (!current_is_kthread(btf) && !is_tracked(bpf_get_current_pid_tgid() >> 32))
		return;	/* untracked user task */
	c = bpf_map_lookup_elem(&xfs_counts, &op);
	if (c && ev < FSCOST_XFS_EVENTS)
		c->n[ev]++;
	if (ev == FSCOST_XFS_TRANS_ALLOC && t && op != FSCOST_OP_NONE)
		t->trans++;
}

/* One program per flavour per row of FSCOST_XFS_EVENT_TABLE, named
 * <tracepoint>_btf / _raw as userspace's hook table expects; userspace
 * autoloads the flavour it probed, and skips tracepoints this kernel lacks. */
#define XFS_EVENT(id, tp, group)                    \
	SEC("tp_btf/" #tp)                          \
	int BPF_PROG(tp##_btf)                      \
	{                                           \
		count_xfs(FSCOST_XFS_##id, true);   \
		return 0;                           \
	}                                           \
	SEC("raw_tp/" #tp)                          \
	int BPF_PROG(tp##_raw)                      \
	{                                           \
		count_xfs(FSCOST_XFS_##id, false);  \
		return 0;                           \
	}

FSCOST_XFS_EVENT_TABLE(XFS_EVENT)
#undef XFS_EVENT

/* Block requests are few next to syscalls: the plain tracepoint is fine. */
SEC("tracepoint/block/block_rq_issue")
int block_rq_issue(struct trace_event_raw_block_rq *ctx)
{
	__u32 dev = ctx->dev;
	__u64 bytes = (__u64)ctx->nr_sector * 512, *v, zero = 0;
	bool write = false;
	char rwbs[8];

	if (!enabled)
		return 0;
	/* copied: the verifier refuses variable offsets into ctx */
	if (bpf_probe_read_kernel(rwbs, sizeof(rwbs), ctx->rwbs))
		return 0;
	for (int i = 0; i < 8; i++) {
		if (rwbs[i] == 'W')
			write = true;
		if (!rwbs[i])
			break;
	}
	if (!write || !bytes)
		return 0;
	v = lookup_or_init(&dev_write_bytes, &dev, &zero);
	if (v)
		__sync_fetch_and_add(v, bytes);	/* 256 devices: a full map is not expected */
	return 0;
}

#endif /* FSCOST_XFS_BPF_H */
