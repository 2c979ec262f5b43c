#include "collector/syscall_table.h"

#include <fcntl.h>
#include <sys/syscall.h>

#include <array>

namespace fscost {
namespace {

static_assert(static_cast<std::uint32_t>(Op::Other) == FSCOST_OP_OTHER);
static_assert(static_cast<std::uint32_t>(Op::None) == FSCOST_OP_NONE);
static_assert(static_cast<std::uint32_t>(Op::Count_) <= FSCOST_MAX_OPS);

// AT_REMOVEDIR from <fcntl.h>; O_CREAT likewise. Legacy syscalls (open,
// creat, mkdir, ...) exist only on some architectures, hence the #ifdefs.
#define RULE(sys, op) SyscallRule{SYS_##sys, #sys, Op::op}
#define FLAG_RULE(sys, op, alt, mask, arg) \
  SyscallRule{SYS_##sys, #sys, Op::op, Op::alt, mask, arg}

const auto kRules = std::to_array<SyscallRule>({
#ifdef SYS_open
    FLAG_RULE(open, Open, Create, O_CREAT, 1),
#endif
    FLAG_RULE(openat, Open, Create, O_CREAT, 2),
    SyscallRule{SYS_openat2, "openat2", Op::Open, Op::Create, O_CREAT, 2, true},
#ifdef SYS_creat
    RULE(creat, Create),
#endif
#ifdef SYS_mkdir
    RULE(mkdir, Mkdir),
#endif
    RULE(mkdirat, Mkdir),
#ifdef SYS_unlink
    RULE(unlink, Unlink),
#endif
    FLAG_RULE(unlinkat, Unlink, Rmdir, AT_REMOVEDIR, 2),
#ifdef SYS_rmdir
    RULE(rmdir, Rmdir),
#endif
#ifdef SYS_rename
    RULE(rename, Rename),
#endif
#ifdef SYS_renameat
    RULE(renameat, Rename),
#endif
    RULE(renameat2, Rename),
#ifdef SYS_link
    RULE(link, Link),
#endif
    RULE(linkat, Link),
#ifdef SYS_symlink
    RULE(symlink, Symlink),
#endif
    RULE(symlinkat, Symlink),
    RULE(read, Read), RULE(pread64, Read), RULE(readv, Read), RULE(preadv, Read),
    RULE(preadv2, Read),
    RULE(write, Write), RULE(pwrite64, Write), RULE(writev, Write), RULE(pwritev, Write),
    RULE(pwritev2, Write),
    RULE(fsync, Fsync), RULE(fdatasync, Fdatasync),
    RULE(truncate, Truncate), RULE(ftruncate, Truncate),
    RULE(fallocate, Fallocate),
#ifdef SYS_stat
    RULE(stat, Stat), RULE(lstat, Stat),
#endif
#ifdef SYS_newfstatat
    RULE(newfstatat, Stat),
#endif
    RULE(fstat, Stat), RULE(statx, Stat),
#ifdef SYS_getdents
    RULE(getdents, Getdents),
#endif
    RULE(getdents64, Getdents),
    RULE(close, Close),
    RULE(setxattr, Setxattr), RULE(lsetxattr, Setxattr), RULE(fsetxattr, Setxattr),
    RULE(getxattr, Getxattr), RULE(lgetxattr, Getxattr), RULE(fgetxattr, Getxattr),
    RULE(syncfs, Sync), RULE(sync, Sync),
});

#undef RULE
#undef FLAG_RULE

}  // namespace

std::span<const SyscallRule> syscall_rules() { return kRules; }

std::vector<fscost_syscall_rule> bpf_syscall_rules() {
  std::vector<fscost_syscall_rule> out(FSCOST_MAX_SYSCALLS);
  for (const auto& r : kRules) {
    if (r.nr < 0 || r.nr >= FSCOST_MAX_SYSCALLS) continue;
    out[r.nr] = fscost_syscall_rule{
        .op = static_cast<std::uint32_t>(r.op),
        .alt_op = static_cast<std::uint32_t>(r.alt),
        .flag_mask = r.flag_mask,
        .flag_arg = r.flag_arg,
        .flag_deref = r.flag_deref ? 1u : 0u,
    };
  }
  return out;
}

}  // namespace fscost
