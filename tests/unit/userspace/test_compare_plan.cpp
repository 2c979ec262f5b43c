// The order of a compare's runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "compare/plan.h"

namespace fscost {
namespace {

std::string sides(const std::vector<PlannedRun>& plan) {
  std::string s;
  for (const auto& r : plan) s += config_letter(r.config);
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

// Issue 20: three or more configurations, in blocks of one run each.
TEST(ComparePlan, MoreConfigurationsAreBalanced) {
  EXPECT_EQ(order_string(make_plan({1}, 4, RunOrder::Abba, 1, 3), 1), "ABC CBA ABC CBA");
  EXPECT_EQ(order_string(make_plan({1}, 2, RunOrder::Abab, 1, 3), 1), "ABC ABC");
  // abba: over two blocks each configuration sits at every distance from
  // the block's start as often as any other (position sums are equal).
  auto plan = make_plan({1}, 6, RunOrder::Abba, 1, 4);
  std::map<int, std::size_t> position_sum;
  for (const auto& r : plan) position_sum[r.config] += r.index % 4;
  for (const auto& [c, sum] : position_sum) EXPECT_EQ(sum, position_sum[0]) << c;
  // random: every block holds each configuration once; the order varies.
  auto random = make_plan({1}, 40, RunOrder::Random, 7, 3);
  std::map<std::string, int> blocks;
  for (std::size_t i = 0; i < random.size(); i += 3) {
    std::string b = {config_letter(random[i].config), config_letter(random[i + 1].config),
                     config_letter(random[i + 2].config)};
    std::string sorted = b;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, "ABC") << b;
    ++blocks[b];
  }
  EXPECT_GE(blocks.size(), 4u);
}

TEST(ComparePlan, Layout) {
  EXPECT_EQ(config_dir(4, 0), "runs/t4/a");
  EXPECT_EQ(config_dir(0, 1), "runs/b");
  EXPECT_EQ(config_dir(1, 2), "runs/t1/c");
  EXPECT_EQ(run_stem(3), "run-03");
}

}  // namespace
}  // namespace fscost
