// Progress formatting and the ETA of a compare.
#include <gtest/gtest.h>

#include <cstdio>

#include "compare/progress.h"

namespace fscost {
namespace {

TEST(CompareProgress, Durations) {
  EXPECT_EQ(format_duration(0), "0s");
  EXPECT_EQ(format_duration(59.4), "59s");
  EXPECT_EQ(format_duration(65), "1m05s");
  EXPECT_EQ(format_duration(3725), "1h02m");
  EXPECT_EQ(format_duration(-3), "0s");
}

TEST(CompareProgress, NoEstimateBeforeAFinishedRun) {
  auto plan = make_plan({1}, 2, RunOrder::Abab, 1);
  std::vector<std::optional<double>> secs(plan.size());
  EXPECT_FALSE(estimate_remaining(plan, secs, 0, 5, 2));
}

TEST(CompareProgress, EstimateScalesToHigherThreadCounts) {
  auto plan = make_plan({1, 2}, 2, RunOrder::Abab, 1);  // 4 runs at t=1, 4 at t=2
  std::vector<std::optional<double>> secs(plan.size());
  secs[0] = secs[1] = 10.0;
  // Run 2 has taken 3 s of its 10; run 3 takes 10; at t=2 twice the work
  // over twice the CPUs takes as long again: 4 × 10.
  EXPECT_DOUBLE_EQ(*estimate_remaining(plan, secs, 2, 3, 2), 7 + 10 + 40);
  // One CPU: twice the work takes twice as long.
  EXPECT_DOUBLE_EQ(*estimate_remaining(plan, secs, 2, 3, 1), 7 + 10 + 80);
  // Once t=2 has its own runs, they count instead.
  secs[2] = secs[3] = 10.0;
  secs[4] = 30.0;
  EXPECT_DOUBLE_EQ(*estimate_remaining(plan, secs, 5, 31, 2), 0 + 30 + 30);
}

TEST(CompareProgress, Lines) {
  PlannedRun r{3, 4, 1, 2};
  EXPECT_EQ(describe_run(r, "rmapbt=1", 3), "t=4 B (rmapbt=1) run 2/3");
  PlannedRun none{0, 0, 0, 1};
  EXPECT_EQ(describe_run(none, "rmapbt=0", 3), "A (rmapbt=0) run 1/3");
  PlannedRun warm{.index = 0, .threads = 0, .config = 1, .rep = 0};
  EXPECT_EQ(describe_run(warm, "rmapbt=1", 3), "B (rmapbt=1) warm-up run");
  std::string line = progress_line(4, 12, describe_run(r, "rmapbt=1", 3), 41, 80, 200);
  EXPECT_EQ(line, "[4/12] t=4 B (rmapbt=1) run 2/3 · 41s · ETA 1m20s");
  EXPECT_EQ(progress_line(1, 2, "x", 0, std::nullopt, 200), "[1/2] x · 0s · ETA ?");
  // Cut by columns, not bytes: "·" is one column.
  std::string cut = progress_line(4, 12, "t=4 B", 41, 80, 16);
  EXPECT_EQ(cut, "[4/12] t=4 B · 4");
}

TEST(CompareProgress, PlainLinesWhenNotATerminal) {
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  ASSERT_NE(f, nullptr);
  {
    Progress p(f, false, make_plan({0}, 1, RunOrder::Abab, 1), {"x", "y"}, 1, 2);
    p.start(0);
    p.tick();
    p.finish(0, 4.0, 1234.4);
    p.start(1);
  }
  std::fclose(f);
  std::string out(buf, len);
  std::free(buf);
  EXPECT_EQ(out,
            "fscost compare: [1/2] A (x) run 1/1 started\n"
            "fscost compare: [1/2] A (x) run 1/1 done in 4.0 s, 1234 ops/s\n"
            "fscost compare: [2/2] B (y) run 1/1 started; ETA 4s\n");
}

}  // namespace
}  // namespace fscost
