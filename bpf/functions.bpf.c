// SPDX-License-Identifier: GPL-2.0
/*
 * record --time-functions: the calls of named kernel functions and the time
 * inside them, per operation, with fentry/fexit trampolines.
 *
 * Its own object, loaded after fscost.bpf.c: a kernel that refuses tracing
 * programs (this project's 6.18 build returns EPERM) then loses only this,
 * and the recording goes on without it. The current operation comes from
 * fscost.bpf.c's cpu_now slot, whose fd userspace hands over before load
 * (bpf_map__reuse_fd), so a call is charged exactly as the XFS events are.
 *
 * One object per function: userspace opens it once per name and sets both
 * programs' target (bpf_program__set_attach_target, vmlinux or module BTF),
 * so that the kernel refusing one function (x86 trampolines before 6.6 take
 * at most 6 arguments: xfs_create on 6.1) leaves the others timed.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "fscost.h"
#include "cpu_now.bpf.h"

#define E2BIG 7

char LICENSE[] SEC("license") = "GPL";

bool enabled = false;
/* Summed into the main object's drops by userspace (same indexes). */
__u64 drops[FSCOST_DROP__COUNT] = {};

/* A call in progress: when its outermost entry began, under which op, and
 * how deep the function has recursed into itself since. */
struct func_call {
	__u64 start_ns;
	__u32 op;
	__u32 depth;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);	/* --max-threads */
	__type(key, __u32);		/* tid */
	__type(value, struct func_call);
} func_calls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FSCOST_MAX_OPS);
	__type(key, __u32);
	__type(value, struct fscost_func_stats);
} func_stats SEC(".maps");

/* The operation the current task is in, as fscost.bpf.c's slot says; 0
 * outside one. The slot is right whenever its task is current (sys_enter,
 * sys_exit and sched_switch keep it so). */
static __always_inline __u32 current_op(void)
{
	struct fscost_cpu_now *c = cpu_now_slot();

	if (!c || c->task != bpf_get_current_task() || c->op >= FSCOST_MAX_OPS)
		return FSCOST_OP_NONE;
	return c->op;
}

SEC("fentry")
int BPF_PROG(func_entry)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fscost_func_stats *s;
	struct func_call *call, fresh = {};
	long err;

	if (!enabled)
		return 0;
	call = bpf_map_lookup_elem(&func_calls, &tid);
	if (call) {
		/* recursion: counted, timed by the outermost call */
		call->depth++;
		s = bpf_map_lookup_elem(&func_stats, &call->op);
		if (s)
			s->count++;
		return 0;
	}
	fresh.op = current_op();
	s = bpf_map_lookup_elem(&func_stats, &fresh.op);
	if (s)
		s->count++;
	fresh.depth = 1;
	fresh.start_ns = bpf_ktime_get_ns();
	err = bpf_map_update_elem(&func_calls, &tid, &fresh, BPF_NOEXIST);
	/* (int): before Linux 6.4 the error reaches us zero-extended */
	if (err)
		__sync_fetch_and_add(&drops[(int)err == -E2BIG ? FSCOST_DROP_FUNC_CALL_FULL
							   : FSCOST_DROP_MAP_UPDATE_FAILED], 1);
	return 0;
}

/* Not gated on `enabled`: a call counted at entry is timed at its return,
 * also when the recording stopped in between. A return with no entry (the
 * call began before the recording) is not counted. */
SEC("fexit")
int BPF_PROG(func_exit)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fscost_func_stats *s;
	struct func_call *call;
	__u64 ns;

	call = bpf_map_lookup_elem(&func_calls, &tid);
	if (!call)
		return 0;
	if (--call->depth > 0)
		return 0;
	ns = bpf_ktime_get_ns() - call->start_ns;
	s = bpf_map_lookup_elem(&func_stats, &call->op);
	bpf_map_delete_elem(&func_calls, &tid);
	if (!s)
		return 0;
	s->timed++;
	s->total_ns += ns;
	if (ns > s->max_ns)
		s->max_ns = ns;
	return 0;
}
