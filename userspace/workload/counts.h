// Per-thread counts of the syscalls the workload issued, by operation.
#pragma once

#include <cstdint>

namespace fscost::workload {

// The names are fscost's operation names (and the JSON keys fsops printed).
enum Op : int {
  Create,
  Fsync,
  Link,
  Rename,
  Unlink,
  Mkdir,
  Rmdir,
  Symlink,
  Write,
  Close,
  Open,
  kOps
};

inline constexpr const char* kOpNames[kOps] = {"create", "fsync", "link",  "rename",
                                               "unlink", "mkdir", "rmdir", "symlink",
                                               "write",  "close", "open"};

// One per thread, cache-line aligned so counting does not false-share.
struct alignas(64) Counts {
  std::uint64_t n[kOps] = {};

  void add(const Counts& o) {
    for (int i = 0; i < kOps; i++) n[i] += o.n[i];
  }
  std::uint64_t total() const {
    std::uint64_t t = 0;
    for (int i = 0; i < kOps; i++) t += n[i];
    return t;
  }
};

}  // namespace fscost::workload
