// The syscall rules exactly as the collector writes them into the BPF
// `syscall_rules` array, which bpf/syscalls.bpf.h classify() applies:
// op, or alt_op when the flag word (args[flag_arg], or the u64 it points to
// when flag_deref) has a bit of flag_mask; no entry or op NONE → other.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>

#include <memory>
#include <set>

#include "collector/syscall_table.h"
#include "fscost_bpf.skel.h"

namespace fscost {
namespace {

constexpr std::uint32_t id(Op op) { return static_cast<std::uint32_t>(op); }

const fscost_syscall_rule& rule(long nr) {
  static const auto rules = bpf_syscall_rules();
  return rules.at(static_cast<std::size_t>(nr));
}

// op, or alt when args[arg] (or the u64 it points to, deref) has a bit of mask.
void expect_flag_rule(long nr, Op op, Op alt, std::uint64_t mask, std::uint32_t arg,
                      std::uint32_t deref) {
  const auto& r = rule(nr);
  EXPECT_EQ(r.op, id(op)) << nr;
  EXPECT_EQ(r.alt_op, id(alt)) << nr;
  EXPECT_EQ(r.flag_mask, mask) << nr;
  EXPECT_EQ(r.flag_arg, arg) << nr;
  EXPECT_EQ(r.flag_deref, deref) << nr;
}

TEST(SyscallTable, OpenatWithOCreatIsCreate) {
  expect_flag_rule(SYS_openat, Op::Open, Op::Create, O_CREAT, 2, 0);  // openat(dirfd, path, flags, mode)
}

TEST(SyscallTable, Openat2ReadsTheFlagsThroughOpenHow) {
  // openat2(dirfd, path, how, size); how->flags is its first u64
  expect_flag_rule(SYS_openat2, Op::Open, Op::Create, O_CREAT, 2, 1);
}

TEST(SyscallTable, UnlinkatWithRemovedirIsRmdir) {
  expect_flag_rule(SYS_unlinkat, Op::Unlink, Op::Rmdir, AT_REMOVEDIR, 2, 0);  // unlinkat(dirfd, path, flags)
}

TEST(SyscallTable, PlainRulesHaveNoFlag) {
  for (long nr : {long{SYS_mkdirat}, long{SYS_fsync}, long{SYS_renameat2}}) {
    EXPECT_NE(rule(nr).op, id(Op::None)) << nr;
    EXPECT_EQ(rule(nr).flag_mask, 0u) << nr;
  }
  EXPECT_EQ(rule(SYS_mkdirat).op, id(Op::Mkdir));
  // The end-of-run writeback phase (fscost-workload --syncfs).
  EXPECT_EQ(rule(SYS_syncfs).op, id(Op::Sync));
  EXPECT_EQ(rule(SYS_sync).op, id(Op::Sync));
}

TEST(SyscallTable, SyscallsOutsideTheTableAreOther) {
  // op NONE: classify() counts the syscall as other.
  EXPECT_EQ(rule(SYS_getpid).op, FSCOST_OP_NONE);
  EXPECT_EQ(rule(SYS_mmap).op, FSCOST_OP_NONE);
}

// Numbers >= FSCOST_MAX_SYSCALLS have no entry in the array map, so the
// lookup fails and they count as other; no rule may be lost that way.
TEST(SyscallTable, NumbersPastTheArrayAreOther) {
  EXPECT_EQ(bpf_syscall_rules().size(), std::size_t{FSCOST_MAX_SYSCALLS});
  std::unique_ptr<fscost_bpf, void (*)(fscost_bpf*)> skel(fscost_bpf__open(), fscost_bpf__destroy);
  ASSERT_TRUE(skel) << "cannot open the BPF object";
  EXPECT_EQ(bpf_map__max_entries(skel->maps.syscall_rules), std::uint32_t{FSCOST_MAX_SYSCALLS});
  for (const auto& r : syscall_rules()) {
    EXPECT_GE(r.nr, 0) << r.name;
    EXPECT_LT(r.nr, FSCOST_MAX_SYSCALLS) << r.name << " would count as other";
  }
}

TEST(SyscallTable, EveryRuleIsInTheMapOnce) {
  std::set<long> seen;
  const auto map = bpf_syscall_rules();
  for (const auto& r : syscall_rules()) {
    EXPECT_TRUE(seen.insert(r.nr).second) << r.name << " listed twice";
    EXPECT_EQ(map[r.nr].op, id(r.op)) << r.name;
    EXPECT_EQ(map[r.nr].alt_op, id(r.alt)) << r.name;
    EXPECT_NE(r.op, Op::None) << r.name;
    EXPECT_NE(r.op, Op::Other) << r.name;
    // A flag rule names the op it turns into; alt_op NONE would drop the syscall.
    if (r.flag_mask) {
      EXPECT_NE(r.alt, Op::None) << r.name;
    }
    EXPECT_LT(r.flag_arg, 5u) << r.name;  // syscall_arg() reads args 0-4
  }
}

}  // namespace
}  // namespace fscost
