// The filesystem operations fscost attributes cost to. The syscall →
// operation mapping (userspace/collector/syscall_table.cpp) and the BPF side
// use these ids; the profile stores the names, so analysis never depends on
// the ids.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace fscost {

enum class Op : std::uint32_t {
  None = 0,  // not inside a tracked syscall (BPF side only)
  Create, Open, Mkdir, Unlink, Rmdir, Rename, Link, Symlink,
  Read, Write, Fsync, Fdatasync, Truncate, Fallocate, Stat, Getdents,
  Close, Setxattr, Getxattr,
  Sync,      // syncfs, sync: the end-of-run writeback phase (fscost-workload --syncfs)
  Other,     // any other syscall of a tracked task
  Count_,
};

inline constexpr std::array<std::string_view, static_cast<std::size_t>(Op::Count_)> kOpNames = {
    "none",     "create", "open",      "mkdir",    "unlink",    "rmdir",  "rename",
    "link",     "symlink", "read",     "write",    "fsync",     "fdatasync",
    "truncate", "fallocate", "stat",   "getdents", "close",     "setxattr",
    "getxattr", "sync",     "other",
};

constexpr std::string_view op_name(Op op) { return kOpNames[static_cast<std::size_t>(op)]; }

constexpr std::optional<Op> op_from_name(std::string_view name) {
  for (std::size_t i = 1; i < kOpNames.size(); ++i)
    if (kOpNames[i] == name) return static_cast<Op>(i);
  return std::nullopt;
}

}  // namespace fscost
