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

// The operation a syscall with this flag word is counted as; the same
// decision the BPF side makes (bpf/fscost.bpf.c classify()).
Op classify(long nr, std::uint64_t flag_word);

// The table as the BPF array map wants it: index = syscall number; entries
// not in the table have op FSCOST_OP_NONE and count as "other".
std::vector<fscost_syscall_rule> bpf_syscall_rules();

}  // namespace fscost
