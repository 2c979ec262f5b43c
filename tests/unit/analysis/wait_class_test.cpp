// Wait classes: the reason from sched_switch, refined by the blocked stack.
#include "model/wait_class.h"

#include <gtest/gtest.h>

#include "fixture.h"
#include "fscost_tables.h"

namespace fscost {
namespace {

using test::stack;

const auto kPlain = stack({"__x64_sys_openat", "xfs_create", "schedule"});
const auto kReserve = stack({"xfs_trans_alloc", "xfs_log_reserve", "xlog_grant_head_check",
                             "xlog_grant_head_wait", "schedule"});
const auto kForce =
    stack({"xfs_file_fsync", "xfs_log_force_seq", "xlog_wait_on_iclog", "schedule"});

// BlockReason is FSCOST_BLOCK_REASON_TABLE, the table bpf/fscost.h makes
// enum fscost_block_reason from: row i has value i on both sides.
constexpr bool reasons_in_table_order() {
  std::uint32_t row = 0;
  bool ok = true;
#define ROW(id, name) ok = ok && static_cast<std::uint32_t>(BlockReason::name) == row++;
  FSCOST_BLOCK_REASON_TABLE(ROW)
#undef ROW
  return ok && row == kBlockReasons;
}
static_assert(reasons_in_table_order());

// Every reason the BPF side emits gets a class: its own, given a plain stack.
TEST(WaitClass, EveryTableReasonHasAClass) {
  std::vector<std::string> classes;
#define ROW(id, name) classes.push_back(classify_wait(BlockReason::name, kPlain));
  FSCOST_BLOCK_REASON_TABLE(ROW)
#undef ROW
  EXPECT_EQ(classes, (std::vector<std::string>{"sleep", "io", "lock", "runqueue"}));
  for (const auto& c : classes) EXPECT_TRUE(is_wait_class(c)) << c;
  EXPECT_EQ(classify_wait(static_cast<BlockReason>(kBlockReasons), kPlain), "sleep");
}

TEST(WaitClass, RunqueueAndLockIgnoreTheStack) {
  EXPECT_EQ(classify_wait(BlockReason::Runqueue, kForce), "runqueue");
  EXPECT_EQ(classify_wait(BlockReason::Lock, kReserve), "lock");
  EXPECT_EQ(classify_wait(BlockReason::Lock, {}), "lock");
}

TEST(WaitClass, LogReserveFrames) {
  EXPECT_EQ(classify_wait(BlockReason::Sleep, kReserve), "log-reserve");
  EXPECT_EQ(classify_wait(BlockReason::IoWait, kReserve), "log-reserve");
  EXPECT_EQ(classify_wait(BlockReason::Sleep, stack({"xlog_grant_head_check", "schedule"})),
            "log-reserve");
}

TEST(WaitClass, EveryLogForceFrame) {
  for (const char* f : {"xfs_log_force", "xfs_log_force_seq", "xlog_wait_on_iclog", "xlog_wait",
                        "xlog_cil_force_seq", "xfs_log_force_inode"}) {
    EXPECT_EQ(classify_wait(BlockReason::Sleep, stack({"xfs_file_fsync", f, "schedule"})),
              "log-force")
        << f;
    EXPECT_EQ(classify_wait(BlockReason::IoWait, stack({f, "io_schedule"})), "log-force") << f;
  }
}

TEST(WaitClass, ReserveWinsOverForce) {
  auto both = stack({"xfs_log_force", "xlog_grant_head_wait", "schedule"});
  EXPECT_EQ(classify_wait(BlockReason::Sleep, both), "log-reserve");
}

TEST(WaitClass, IoAndSleep) {
  EXPECT_EQ(classify_wait(BlockReason::IoWait, kPlain), "io");
  EXPECT_EQ(classify_wait(BlockReason::Sleep, kPlain), "sleep");
  EXPECT_EQ(classify_wait(BlockReason::Sleep, {}), "sleep");
  EXPECT_EQ(classify_wait(static_cast<BlockReason>(7), kPlain), "sleep");
}

TEST(WaitClass, CloneSuffixesMatchButNamesMustBeExact) {
  EXPECT_EQ(classify_wait(BlockReason::Sleep, stack({"xlog_wait_on_iclog.isra.0"})), "log-force");
  EXPECT_EQ(classify_wait(BlockReason::Sleep, stack({"xlog_grant_head_wait.constprop.0"})),
            "log-reserve");
  // Prefixes of the listed names are other functions.
  EXPECT_EQ(classify_wait(BlockReason::Sleep, stack({"xlog_wait_iodone"})), "sleep");
  EXPECT_EQ(classify_wait(BlockReason::Sleep, stack({"xfs_log_force_done"})), "sleep");
}

TEST(WaitClass, KnownClasses) {
  for (auto c : kWaitClasses) EXPECT_TRUE(is_wait_class(c)) << c;
  EXPECT_FALSE(is_wait_class("Lock"));
  EXPECT_FALSE(is_wait_class(""));
  EXPECT_EQ(kWaitClasses.size(), 6u);
}

}  // namespace
}  // namespace fscost
