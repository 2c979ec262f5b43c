// SPDX-License-Identifier: GPL-2.0
/*
 * Feature probes: one trivial program per attach flavour.
 * userspace/collector/kernel_features.cpp loads (and attaches) them one at a
 * time with set_autoload, so one failure says exactly which flavour this
 * kernel refuses.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* Needs tracefs (libbpf reads the event id there) and perf_event_open. */
SEC("tracepoint/raw_syscalls/sys_enter")
int probe_tracepoint(void *ctx)
{
	return 0;
}

SEC("raw_tp/sched_switch")
int probe_raw_tp(struct bpf_raw_tracepoint_args *ctx)
{
	return 0;
}

/* Needs kernel BTF for the tracepoint's typed arguments. */
SEC("tp_btf/sched_switch")
int BPF_PROG(probe_tp_btf, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return 0;
}

/* Trampolines; vfs_unlink exists in every kernel fscost cares about. */
SEC("fentry/vfs_unlink")
int BPF_PROG(probe_fentry)
{
	return 0;
}

SEC("kprobe/vfs_unlink")
int BPF_KPROBE(probe_kprobe)
{
	return 0;
}

SEC("perf_event")
int probe_perf_event(struct bpf_perf_event_data *ctx)
{
	return 0;
}
