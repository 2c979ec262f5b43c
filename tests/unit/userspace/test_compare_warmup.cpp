// The rule that decides how many runs a compare discards (compare/warmup.h).
#include <gtest/gtest.h>

#include <vector>

#include "compare/warmup.h"

namespace fscost {
namespace {

TEST(CompareWarmup, AFirstRunAboveTheOthersByMoreThanTheirSpreadIsAWarmup) {
  // The issue-15 shape: a 9.2 s first run against 0.5 s ones.
  EXPECT_TRUE(first_run_was_warmup(9.2, std::vector<double>{0.50, 0.55, 0.48, 0.52}));
  // Later runs 0.48–0.60 (spread 0.12): above 0.72 is a warm-up, at 0.70 not.
  std::vector<double> later{0.50, 0.55, 0.48, 0.60};
  EXPECT_TRUE(first_run_was_warmup(0.73, later));
  EXPECT_FALSE(first_run_was_warmup(0.70, later));
  // A first run among or below the others never is.
  EXPECT_FALSE(first_run_was_warmup(0.55, later));
  EXPECT_FALSE(first_run_was_warmup(0.10, later));
}

TEST(CompareWarmup, RunsThatAgreeCloselyNeedATenthOfTheirMedian) {
  // Spread 0.002 s: the floor is a tenth of the median (0.1 s), so a first
  // run 5% or 10% slower still counts as measured, one 25% slower does not.
  std::vector<double> later{1.000, 1.001, 1.002};
  EXPECT_FALSE(first_run_was_warmup(1.05, later));
  EXPECT_FALSE(first_run_was_warmup(1.10, later));
  EXPECT_TRUE(first_run_was_warmup(1.25, later));
}

TEST(CompareWarmup, TwoLaterRunsAtLeast) {
  EXPECT_FALSE(first_run_was_warmup(100, std::vector<double>{}));
  EXPECT_FALSE(first_run_was_warmup(100, std::vector<double>{1}));
  EXPECT_TRUE(first_run_was_warmup(100, std::vector<double>{1, 1}));
}

TEST(CompareWarmup, TheReasonGivesTheRunAndTheOthersRange) {
  EXPECT_EQ(late_warmup_reason(1.92, std::vector<double>{0.60, 0.51, 0.55}),
            "1.92 s against 0.51–0.60 s of its later runs");
}

TEST(CompareWarmup, TheShortRunIsATenthOfTheBuiltinWorkload) {
  WorkloadSpec w;
  w.files = 20000;
  EXPECT_EQ(short_warmup_workload(w)->files, 2000u);
  w.files = 500;  // not below kShortWarmupMinFiles, nor above the run itself
  EXPECT_EQ(short_warmup_workload(w)->files, kShortWarmupMinFiles);
  w.files = 30;
  EXPECT_EQ(short_warmup_workload(w)->files, 30u);
  w.cmd = {"fs_mark", "-d", "{dir}"};
  EXPECT_FALSE(short_warmup_workload(w).has_value()) << "a command runs whole";
}

}  // namespace
}  // namespace fscost
