// SPDX-License-Identifier: GPL-2.0
/*
 * Two empty tp_btf programs on sys_enter and sys_exit, for bench/run bpf:
 * what any BPF on the syscall tracepoints costs every syscall (the
 * tracepoints' slow path and dispatch, which run_time_ns does not count),
 * the floor under fscost's own sys_enter/sys_exit.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sys_enter")
int BPF_PROG(empty_sys_enter)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(empty_sys_exit)
{
	return 0;
}
