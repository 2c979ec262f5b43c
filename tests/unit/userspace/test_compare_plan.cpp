// The order of a compare's runs.
#include <gtest/gtest.h>

#include <map>

#include "compare/plan.h"

namespace fscost {
namespace {

std::string sides(const std::vector<PlannedRun>& plan) {
  std::string s;
  for (const auto& r : plan) s += r.config == 0 ? 'A' : 'B';
  return s;
}

TEST(ComparePlan, AbabAndAbba) {
  EXPECT_EQ(sides(make_plan({1}, 3, RunOrder::Abab, 1)), "ABABAB");
  EXPECT_EQ(sides(make_plan({1}, 4, RunOrder::Abba, 1)), "ABBAABBA");
  EXPECT_EQ(order_string(make_plan({1}, 3, RunOrder::Abba, 1), 1), "AB BA AB");
}

TEST(ComparePlan, EveryRunOnceWithItsRepAndIndex) {
  auto plan = make_plan({1, 2, 8}, 5, RunOrder::Random, 42);
  ASSERT_EQ(plan.size(), 3u * 5 * 2);
  std::map<std::tuple<int, int, int>, int> seen;
  for (std::size_t i = 0; i < plan.size(); i++) {
    EXPECT_EQ(plan[i].index, i);
    seen[{plan[i].threads, plan[i].config, plan[i].rep}]++;
    // Thread counts ascending; within a block one A and one B of the same rep.
    if (i % 2 == 1) {
      EXPECT_NE(plan[i].config, plan[i - 1].config);
      EXPECT_EQ(plan[i].rep, plan[i - 1].rep);
    }
    if (i > 0) {
      EXPECT_GE(plan[i].threads, plan[i - 1].threads);
    }
  }
  EXPECT_EQ(seen.size(), plan.size());
}

TEST(ComparePlan, RandomIsSeededAndMixed) {
  auto a = make_plan({1}, 32, RunOrder::Random, 7);
  auto b = make_plan({1}, 32, RunOrder::Random, 7);
  auto c = make_plan({1}, 32, RunOrder::Random, 8);
  EXPECT_EQ(sides(a), sides(b));
  EXPECT_NE(sides(a), sides(c));
  std::string s = order_string(a, 1);
  EXPECT_NE(s.find("AB"), std::string::npos);
  EXPECT_NE(s.find("BA"), std::string::npos);
}

TEST(ComparePlan, OrderPerThreadCount) {
  auto plan = make_plan({2, 4}, 2, RunOrder::Abba, 1);
  EXPECT_EQ(order_string(plan, 2), "AB BA");
  EXPECT_EQ(order_string(plan, 4), "AB BA");
  EXPECT_EQ(order_string(plan, 8), "");
}

TEST(ComparePlan, Layout) {
  EXPECT_EQ(config_dir(4, 0), "runs/t4/a");
  EXPECT_EQ(config_dir(0, 1), "runs/b");
  EXPECT_EQ(run_stem(3), "run-03");
}

}  // namespace
}  // namespace fscost
