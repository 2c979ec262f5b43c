// A full filesystem is named (diff/full_fs.cpp): runs whose creates slept in
// XFS's ENOSPC retry — xfs_flush_inodes, inlined into xfs_create on the
// kernels measured, so the stack shows xfs_create → __flush_work — and runs
// that ended with less than 20% free.
#include <gtest/gtest.h>

#include "diff/diff.h"
#include "diff_fixture.h"

namespace fscost::test {
namespace {

const Warning* warning(const Diff& d, WarningKind kind, const std::string& about) {
  for (const auto& w : d.warnings)
    if (w.kind == kind && w.message.starts_with(about)) return &w;
  return nullptr;
}

// The blocked stack the README demo's creates showed at 1 GiB (CASES.md §2.0).
void add_flush_sleep(Profile& p, std::uint64_t ns) {
  p.offcpu.push_back({SampleKind::Op, "create", "sleep",
                      frames_of(kCreatePath, {"__flush_work", "wait_for_completion",
                                              "schedule_timeout", "schedule", "__schedule"}),
                      {}, "kworker/1:2", 1, ns});
}

TEST(DiffFullFs, InlinedFlushInodesUnderCreateIsEnospc) {
  RunSet a = make_runs(base_spec(), 3, 100, "A"), b = make_runs(base_spec(), 3, 200, "B");
  add_flush_sleep(b.runs[0], 400'000'000);
  add_flush_sleep(b.runs[2], 200'000'000);
  Diff d = diff_runs(a, b);
  EXPECT_EQ(warning(d, WarningKind::Enospc, "A:"), nullptr);
  const Warning* w = warning(d, WarningKind::Enospc, "B:");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("2 of 3 runs"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("xfs_flush_inodes"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("300 ms off CPU there per run"), std::string::npos) << w->message;
}

TEST(DiffFullFs, NamedRetryFramesAndSamplesCountToo) {
  RunSet a = make_runs(base_spec(), 3, 100, "A"), b = make_runs(base_spec(), 3, 200, "B");
  a.runs[1].samples.push_back(
      {SampleKind::Op, "write",
       frames_of({"entry_SYSCALL_64", "do_syscall_64", "ksys_write", "vfs_write",
                  "xfs_file_write_iter", "xfs_file_buffered_write"},
                 {"xfs_blockgc_free_space", "xfs_blockgc_flush_all", "flush_delayed_work"}),
       3});
  Diff d = diff_runs(a, b);
  const Warning* w = warning(d, WarningKind::Enospc, "A:");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("write entered XFS's ENOSPC retry (xfs_blockgc_free_space)"),
            std::string::npos)
      << w->message;
  EXPECT_EQ(warning(d, WarningKind::Enospc, "B:"), nullptr);
}

// A flush of a whole workqueue (the log force's CIL push) is no ENOSPC.
TEST(DiffFullFs, LogForceFlushIsNotEnospc) {
  RunSet a = make_runs(base_spec(), 3, 100, "A"), b = make_runs(base_spec(), 3, 200, "B");
  b.runs[0].offcpu.push_back({SampleKind::Op, "create", "log-force",
                              frames_of(kCreatePath, {"xfs_trans_commit", "__xfs_trans_commit",
                                                      "xfs_log_force_seq", "xlog_cil_force_seq",
                                                      "xlog_cil_push_now", "__flush_workqueue",
                                                      "wait_for_completion"}),
                              {}, "", 100, 5'000'000});
  Diff d = diff_runs(a, b);
  EXPECT_EQ(warning(d, WarningKind::Enospc, "B:"), nullptr);
}

TEST(DiffFullFs, LessThanAFifthFreeAtTheEndIsLowSpace) {
  RunSet a = make_runs(base_spec(), 3, 100, "A"), b = make_runs(base_spec(), 3, 200, "B");
  for (auto& p : b.runs) p.setup = {{"fs_size_bytes", "1000000000"}, {"fs_free_bytes_at_end", "500000000"}};
  b.runs[1].setup["fs_free_bytes_at_end"] = "100000000";
  Diff d = diff_runs(a, b);
  const Warning* w = warning(d, WarningKind::LowSpace, "B:");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("1 of 3 runs ended with less than 20%"), std::string::npos)
      << w->message;
  EXPECT_NE(w->message.find("least 10%"), std::string::npos) << w->message;
  EXPECT_EQ(warning(d, WarningKind::LowSpace, "A:"), nullptr);
}

}  // namespace
}  // namespace fscost::test
