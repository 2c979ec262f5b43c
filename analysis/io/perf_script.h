// Importing `perf script` text into a Profile, so stacks that `perf record
// -g` collected can be reported, diffed and rendered like an fscost
// recording (docs/FORMATS.md).
//
// perf samples carry no syscall number or flags, so the operation is read
// from the kernel stack: the syscall wrapper frame (__x64_sys_openat, ...)
// and a few VFS helpers. What cannot be told apart is attributed to the
// nearest operation (create -> open, fdatasync via do_fsync -> fsync).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/operations.h"
#include "model/profile.h"
#include "model/result.h"

namespace fscost {

struct PerfScriptOptions {
  // Import only samples of this event ("cpu-clock" also matches
  // "cpu-clock:pppH"). Empty: the file must hold samples of one event only.
  std::string event;
};

// Parses perf script's default output: per sample a header line
//   "comm [pid/]tid [cpu] secs.usecs: [period] event: [ip sym+off (dso)]"
// then, with callchains, one "\t addr sym+off (dso)" line per frame, leaf
// first, and a blank line. "# key : value" lines (perf script --header)
// fill hostname, kernel release and CPU count.
//
// Each sample becomes a StackSample as `fscost record` would have stored it:
//   tid 0 (idle)                   -> counted in samples_total only;
//   a "kthread" frame, no user frames -> Kthread, name = comm;
//   leaf in user space             -> User, name = comm, user frames;
//   leaf in the kernel, in a syscall -> Op (op_from_kernel_stack), kernel frames;
//   leaf in the kernel, otherwise  -> Kernel, name = comm, kernel frames.
// Frames are outermost first with "+0x.." offsets stripped; an unknown
// symbol becomes "[dso basename]", or "[unknown]" when the dso is unknown
// too. A frame is in the kernel when its address has the top bit set (64-bit
// kernels) or its dso is [kernel.kallsyms]. meta.target is "perf-script",
// meta.command `origin`, meta.freq_hz derived from a cpu-clock/task-clock
// period, meta.duration_ns from the first and last timestamps.
//
// Errors name `origin` and the 1-based line. Never throws.
Result<Profile> import_perf_script(std::string_view text, const std::string& origin,
                                   const PerfScriptOptions& opt = {});

// The operation a kernel stack (outermost first) is inside, or nullopt when
// it shows no syscall entry (entry_SYSCALL_64, do_syscall_64, el0_svc, a
// sys_ wrapper). The outermost sys_ wrapper frame decides (__x64_sys_unlinkat
// -> unlink, or rmdir when do_rmdir is on the stack); without one, the
// outermost known helper (do_sys_openat2 -> open, do_unlinkat -> unlink, ...);
// a syscall that matches neither is Op::Other.
std::optional<Op> op_from_kernel_stack(const std::vector<std::string>& frames);

}  // namespace fscost
