/* SPDX-License-Identifier: GPL-2.0 */
/* cpu-clock samples with kernel stacks, aggregated by (who, stack). */
#ifndef FSCOST_SAMPLES_BPF_H
#define FSCOST_SAMPLES_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);	/* --max-stacks */
	__type(key, struct fscost_sample_key);
	__type(value, __u64);
} samples SEC(".maps");

static __always_inline void add_sample(struct fscost_sample_key *key)
{
	__u64 *count, zero = 0;

	count = lookup_or_init(&samples, key, &zero, FSCOST_DROP_SAMPLE_MAP_FULL);
	if (count)
		__sync_fetch_and_add(count, 1);
}

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct fscost_sample_key key = {};
	bool in_kernel = (long)PT_REGS_IP(&ctx->regs) < 0;
	__u32 tid = (__u32)id, flags;
	struct fscost_task *t;

	if (!enabled)
		return 0;
	__sync_fetch_and_add(&samples_total, 1);
	if (tid == 0)
		return 0;	/* idle */
	flags = current_flags(use_task_storage);
	if (flags & PF_KTHREAD) {
		key.kind = FSCOST_SK_KTHREAD;
		kthread_name(flags, key.name);
	} else if (is_tracked(id >> 32)) {
		t = with_running_op(current_state(use_task_storage));
		if (!in_kernel) {
			key.kind = FSCOST_SK_USER;
		} else if (t && t->op != FSCOST_OP_NONE) {
			key.kind = FSCOST_SK_OP;
			key.op = t->op;
		} else {
			key.kind = FSCOST_SK_KERNEL;
		}
	} else {
		return 0;
	}
	if (in_kernel) {
		key.stack = kernel_stack(ctx);
	} else if (want_user_stacks) {
		/* frame-pointer walk: full only for -fno-omit-frame-pointer code */
		key.stack = store_stack(ctx, BPF_F_USER_STACK);
		key.tgid = id >> 32;
	}
	add_sample(&key);
	return 0;
}

#endif /* FSCOST_SAMPLES_BPF_H */
