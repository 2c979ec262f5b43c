// The syscall entry/exit path in a kernel stack (io/syscall_frames.cpp,
// which also reads a perf stack's operation from the same frame tables).
#pragma once

#include "model/frame.h"

namespace fscost {

// True for a stack (outermost first) on a syscall's entry or exit path: a
// syscall entry frame (entry_SYSCALL_64, do_syscall_64, el0_svc, ...) but
// no dispatcher (x64_sys_call, invoke_syscall) or syscall body (__x64_sys_*,
// __arm64_sys_*, __do_sys_*, ...) above it. Time there is inside a syscall
// but before sys_enter fires or after sys_exit did.
bool is_syscall_path(const Stack& frames);

}  // namespace fscost
