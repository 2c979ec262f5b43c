// The one table of filesystem operations: which syscalls are which
// operation, and which flag turns one into another (open + O_CREAT = create,
// unlinkat + AT_REMOVEDIR = rmdir). The BPF side applies it per syscall.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "collector/bpf_abi.h"
#include "model/operations.h"

namespace fscost {

struct SyscallRule {
  long nr;
  const char* name;
  Op op;
  Op alt = Op::None;           // taken when the flag word has a bit of flag_mask
  std::uint64_t flag_mask = 0;
  std::uint32_t flag_arg = 0;  // syscall argument holding the flags
  bool flag_deref = false;     // the argument points to the u64 flags (openat2)
};

std::span<const SyscallRule> syscall_rules();

// The table as the BPF array map wants it (bpf/syscalls.bpf.h classify()
// applies it): index = syscall number, FSCOST_MAX_SYSCALLS entries; entries
// not in the table have op FSCOST_OP_NONE and count as "other", as do
// numbers past the end, which the array lookup refuses.
std::vector<fscost_syscall_rule> bpf_syscall_rules();

}  // namespace fscost
