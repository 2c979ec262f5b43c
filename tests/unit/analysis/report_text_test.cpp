// The text report: golden file, plus the lines a reader relies on.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fixture.h"
#include "report/report.h"

namespace fscost {
namespace {

using test::sample_profile;

using test::has_line;

TEST(ReportText, MatchesGoldenFile) {
  test::expect_golden("sample-report.txt", render_text(sample_profile(), {}));
}

TEST(ReportText, OpRowsSortedByOnCpuTime) {
  std::string t = render_text(sample_profile(), {});
  EXPECT_TRUE(
      has_line(t, "operation       count   errors      ops/s  on-CPU µs/op  wall µs/op   % sys"))
      << t;
  EXPECT_TRUE(
      has_line(t, "create           1000        2      500.0         500.0       600.0   62.5%"))
      << t;
  EXPECT_TRUE(
      has_line(t, "fsync               0        0        0.0             -           -    0.0%"))
      << t;
  EXPECT_LT(t.find("\ncreate "), t.find("\nunlink "));
  EXPECT_LT(t.find("\nunlink "), t.find("\nother "));
  EXPECT_LT(t.find("\nother "), t.find("\nfsync "));
}

TEST(ReportText, ConsistencyAndRusage) {
  std::string t = render_text(sample_profile(), {});
  EXPECT_TRUE(has_line(t, "rusage: user 0.100 s, sys 0.800 s, wall 2.100 s")) << t;
  EXPECT_TRUE(has_line(t, "per-op on-CPU sum 0.700 s = 87.5% of rusage sys 0.800 s")) << t;

  EXPECT_EQ(t.find("syscall entry/exit path"), std::string::npos) << t;  // none sampled

  Profile p = sample_profile();
  p.samples.push_back({SampleKind::Kernel, "fsops", test::stack({"syscall_exit_work"}), 40});
  t = render_text(p, {});
  const double ns = 40 * 1e9 / p.meta.freq_hz;
  EXPECT_TRUE(has_line(t, fmt::format("  + syscall entry/exit path outside the per-op timestamps "
                                      "(fscost's probes run there), 40 samples ≈ {:.3f} s; "
                                      "with it, {:.1f}% of rusage sys",
                                      ns / 1e9, 100 * (700e6 + ns) / 800e6)))
      << t;

  p = sample_profile();
  p.rusage = {};
  t = render_text(p, {});
  EXPECT_TRUE(has_line(t, "rusage: not available")) << t;
  EXPECT_TRUE(has_line(t, "per-op on-CPU sum 0.700 s (rusage sys not available)")) << t;
  EXPECT_TRUE(
      has_line(t, "create           1000        2      500.0         500.0       600.0       -"))
      << t;
}

TEST(ReportText, TopStacksLeafFirst) {
  ReportOptions opt;
  opt.top_stacks = 1;
  std::string t = render_text(sample_profile(), opt);
  EXPECT_NE(t.find("create: 500 samples\n"
                   "  300 samples (60.0%)\n"
                   "      xfs_create\n"
                   "      xfs_generic_create\n"
                   "      path_openat\n"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("150 samples"), std::string::npos) << "only the top stack: " << t;
}

TEST(ReportText, BackgroundBuckets) {
  std::string t = render_text(sample_profile(), {});
  EXPECT_TRUE(has_line(t, "  user mode of the target              80")) << t;
  EXPECT_TRUE(has_line(t, "  kernel outside syscalls              20")) << t;
  EXPECT_TRUE(has_line(t, "    kworker/u8:1                       30")) << t;
  EXPECT_LT(t.find("kworker/u8:1"), t.find("xfsaild/loop0"));
}

TEST(ReportText, DropsWithHint) {
  std::string t = render_text(sample_profile(), {});
  EXPECT_TRUE(has_line(t, "drops:")) << t;
  EXPECT_TRUE(has_line(t, "    hint: raise --stack-storage-size")) << t;
  EXPECT_EQ(t.find("sample_map_full:"), std::string::npos) << "zero counters are not listed";
}

TEST(ReportText, NoDropsListsWhatWasChecked) {
  Profile p = sample_profile();
  p.drops["stack_map_full"] = 0;
  EXPECT_TRUE(has_line(render_text(p, {}),
                       "drops: none (checked: prog_missed, sample_map_full, stack_map_full, "
                       "stack_other_errors, task_map_full, tracked_map_full)"));
  p.drops.clear();
  EXPECT_TRUE(has_line(render_text(p, {}), "drops: none (the profile lists no drop counters)"));
}

TEST(ReportText, OpFilter) {
  ReportOptions opt;
  opt.op = "unlink";
  std::string t = render_text(sample_profile(), opt);
  EXPECT_NE(t.find("\nunlink "), std::string::npos) << t;
  EXPECT_EQ(t.find("\ncreate "), std::string::npos) << t;
  EXPECT_EQ(t.find("xfs_create"), std::string::npos) << t;
  EXPECT_TRUE(has_line(t, "unlink: 100 samples")) << t;
  // The consistency check always covers the whole profile.
  EXPECT_TRUE(has_line(t, "per-op on-CPU sum 0.700 s = 87.5% of rusage sys 0.800 s")) << t;
}

TEST(ReportText, KnownOpWithoutData) {
  ReportOptions opt;
  opt.op = "rmdir";
  ASSERT_TRUE(validate_report_options(sample_profile(), opt));
  std::string t = render_text(sample_profile(), opt);
  EXPECT_TRUE(has_line(t, "operation 'rmdir': no operations or samples in this profile")) << t;
}

TEST(ReportOptions, UnknownOpIsAnError) {
  ReportOptions opt;
  opt.op = "creat";
  auto r = validate_report_options(sample_profile(), opt);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "unknown operation 'creat'");
  EXPECT_EQ(r.error().hint,
            "valid operations: create, open, mkdir, unlink, rmdir, rename, link, symlink, read, "
            "write, fsync, fdatasync, truncate, fallocate, stat, getdents, close, setxattr, "
            "getxattr, sync, other");
  opt.op = "none";
  EXPECT_FALSE(validate_report_options(sample_profile(), opt));
  opt.op.reset();
  EXPECT_TRUE(validate_report_options(sample_profile(), opt));
}

}  // namespace
}  // namespace fscost
