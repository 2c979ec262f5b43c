// Which operation a kernel stack from perf is inside (io/perf_script.h),
// and whether a stack is on the syscall entry/exit path (syscall_frames.h):
// one table of the kernel's syscall frames for both.
//
// fscost record reads the syscall number and flags at sys_enter
// (userspace/collector/syscall_table.cpp); a perf sample has only its stack, so the
// same table is keyed here by the kernel functions that implement each
// syscall. Flags are invisible: openat(O_CREAT) stays "open".
#include <array>
#include <span>
#include <string_view>

#include "io/perf_script.h"
#include "io/syscall_frames.h"

namespace fscost {

namespace {

// Syscall wrappers are named <arch prefix><syscall> (SYSCALL_DEFINEx in
// arch/*/include/asm/syscall_wrapper.h).
constexpr auto kWrapperPrefixes = std::to_array<std::string_view>({
    "__x64_sys_",
    "__ia32_compat_sys_",
    "__ia32_sys_",
    "__arm64_compat_sys_",
    "__arm64_sys_",
    "__riscv_compat_sys_",
    "__riscv_sys_",
    "__s390x_sys_",
    "__s390_sys_",
});
// Generic names (no arch wrapper, or kernels before 4.17): trusted only above
// a syscall entry frame, since e.g. fbdev's sys_imageblit is no syscall.
constexpr auto kGenericPrefixes =
    std::to_array<std::string_view>({"__se_sys_", "__do_sys_", "sys_"});

// Frames that exist only on the syscall entry (and exit) path;
// el0t_64_sync_handler is missing on purpose (it also handles user page
// faults).
constexpr auto kEntryFrames = std::to_array<std::string_view>({
    "entry_SYSCALL_64",
    "entry_SYSCALL_64_after_hwframe",
    "entry_SYSCALL_64_safe_stack",
    "do_syscall_64",
    "entry_SYSENTER_compat",
    "entry_SYSENTER_compat_after_hwframe",
    "entry_INT80_compat",
    "do_fast_syscall_32",
    "do_int80_syscall_32",
    "el0_svc",
    "el0_svc_compat",
    "do_el0_svc",
    "do_el0_svc_compat",
    "el0_svc_common",
});
// Where the entry path calls the syscall's body: x64_sys_call and
// ia32_sys_call (6.9+; the sys_call_table before), arm64's invoke_syscall.
constexpr auto kDispatchers = std::to_array<std::string_view>({
    "x64_sys_call",
    "x32_sys_call",
    "ia32_sys_call",
    "invoke_syscall",
});

bool is_any(std::string_view f, std::span<const std::string_view> names) {
  for (auto n : names)
    if (f == n) return true;
  return false;
}

struct SyscallOp {
  std::string_view syscall;
  Op op;
  // When this frame is on the stack the syscall took the other branch
  // (unlinkat(AT_REMOVEDIR) calls do_rmdir).
  std::string_view alt_frame = {};
  Op alt = Op::None;
};

// The syscalls of userspace/collector/syscall_table.cpp, by the name in the wrapper
// (newfstatat/newstat are x86's names for the stat family).
constexpr auto kSyscalls = std::to_array<SyscallOp>({
    {"open", Op::Open},           {"openat", Op::Open},
    {"openat2", Op::Open},        {"creat", Op::Create},
    {"mkdir", Op::Mkdir},         {"mkdirat", Op::Mkdir},
    {"unlink", Op::Unlink},       {"unlinkat", Op::Unlink, "do_rmdir", Op::Rmdir},
    {"rmdir", Op::Rmdir},         {"rename", Op::Rename},
    {"renameat", Op::Rename},     {"renameat2", Op::Rename},
    {"link", Op::Link},           {"linkat", Op::Link},
    {"symlink", Op::Symlink},     {"symlinkat", Op::Symlink},
    {"read", Op::Read},           {"pread64", Op::Read},
    {"readv", Op::Read},          {"preadv", Op::Read},
    {"preadv2", Op::Read},        {"write", Op::Write},
    {"pwrite64", Op::Write},      {"writev", Op::Write},
    {"pwritev", Op::Write},       {"pwritev2", Op::Write},
    {"fsync", Op::Fsync},         {"fdatasync", Op::Fdatasync},
    {"truncate", Op::Truncate},   {"ftruncate", Op::Truncate},
    {"fallocate", Op::Fallocate}, {"stat", Op::Stat},
    {"lstat", Op::Stat},          {"fstat", Op::Stat},
    {"newstat", Op::Stat},        {"newlstat", Op::Stat},
    {"newfstat", Op::Stat},       {"newfstatat", Op::Stat},
    {"statx", Op::Stat},          {"getdents", Op::Getdents},
    {"getdents64", Op::Getdents}, {"close", Op::Close},
    {"setxattr", Op::Setxattr},   {"lsetxattr", Op::Setxattr},
    {"fsetxattr", Op::Setxattr},  {"getxattr", Op::Getxattr},
    {"lgetxattr", Op::Getxattr},  {"fgetxattr", Op::Getxattr},
});

// Helpers one syscall family calls, for stacks without a wrapper frame (the
// compiler may inline wrappers into x64_sys_call's switch, added in 6.9 by
// commit 1e3ad78334a6, or the unwinder may skip one). do_fsync serves fsync
// and fdatasync alike.
struct HelperOp {
  std::string_view frame;
  Op op;
};

constexpr auto kHelpers = std::to_array<HelperOp>({
    {"do_sys_openat2", Op::Open},
    {"do_sys_open", Op::Open},
    {"do_mkdirat", Op::Mkdir},
    {"do_rmdir", Op::Rmdir},
    {"do_unlinkat", Op::Unlink},
    {"do_renameat2", Op::Rename},
    {"do_linkat", Op::Link},
    {"do_symlinkat", Op::Symlink},
    {"ksys_read", Op::Read},
    {"ksys_pread64", Op::Read},
    {"do_readv", Op::Read},
    {"do_preadv", Op::Read},
    {"ksys_write", Op::Write},
    {"ksys_pwrite64", Op::Write},
    {"do_writev", Op::Write},
    {"do_pwritev", Op::Write},
    {"do_fsync", Op::Fsync},
    {"do_sys_truncate", Op::Truncate},
    {"do_sys_ftruncate", Op::Truncate},
    {"ksys_fallocate", Op::Fallocate},
    {"vfs_fstatat", Op::Stat},
    {"do_statx", Op::Stat},
    {"vfs_fstat", Op::Stat},
    {"iterate_dir", Op::Getdents},
    {"close_fd", Op::Close},
    {"path_setxattr", Op::Setxattr},
    {"path_getxattr", Op::Getxattr},
});

bool contains(const std::vector<std::string>& frames, std::string_view name) {
  for (const auto& f : frames)
    if (f == name) return true;
  return false;
}

// The syscall a wrapper frame names ("__x64_sys_openat" -> "openat"), or "".
std::string_view wrapped_syscall(std::string_view frame, bool in_syscall) {
  auto strip = [frame](std::string_view prefix) {
    return frame.starts_with(prefix) && frame.size() > prefix.size();
  };
  for (auto prefix : kWrapperPrefixes)
    if (strip(prefix)) return frame.substr(prefix.size());
  if (in_syscall)
    for (auto prefix : kGenericPrefixes)
      if (strip(prefix)) return frame.substr(prefix.size());
  return {};
}

std::optional<Op> op_of_syscall(std::string_view name, const std::vector<std::string>& frames) {
  for (const auto& s : kSyscalls) {
    if (s.syscall != name) continue;
    if (!s.alt_frame.empty() && contains(frames, s.alt_frame)) return s.alt;
    return s.op;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Op> op_from_kernel_stack(const std::vector<std::string>& frames) {
  bool in_syscall = false;
  for (const auto& f : frames) {
    if (auto name = wrapped_syscall(f, in_syscall); !name.empty())
      return op_of_syscall(name, frames).value_or(Op::Other);
    in_syscall = in_syscall || is_any(f, kEntryFrames) || is_any(f, kDispatchers);
  }
  if (!in_syscall) return std::nullopt;
  for (const auto& f : frames)
    for (const auto& h : kHelpers)
      if (f == h.frame) return h.op;
  return Op::Other;
}

bool is_syscall_path(const Stack& frames) {
  bool entry = false;
  for (const Frame& f : frames) {
    if (is_any(f.str(), kDispatchers) || !wrapped_syscall(f.str(), true).empty()) return false;
    entry = entry || is_any(f.str(), kEntryFrames);
  }
  return entry;
}

}  // namespace fscost
