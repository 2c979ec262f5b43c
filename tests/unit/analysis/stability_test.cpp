// The jackknife's bookkeeping (diff/stability.h): what one diff found is
// found again by key in another, and what one leave-one-out lacks is
// demoted in the full diff with that run named.
#include <gtest/gtest.h>

#include "diff/stability.h"
#include "diff_fixture.h"

namespace fscost::test {
namespace {

Diff injected_plain() {
  ConfigSpec b = base_spec();
  inject_new_code(b);
  inject_sleep_lock(b);
  DiffConfig cfg;
  cfg.jackknife = false;
  return diff_runs(make_runs(base_spec(), 5, 100, "A"), make_runs(b, 5, 200, "B"), cfg);
}

const OpDiff& op_of(const Diff& d, const std::string& name) {
  for (const auto& o : d.ops)
    if (o.op == name) return o;
  throw std::logic_error("no op " + name);
}

TEST(Stability, ADiffHoldsEveryFindingAgainstItself) {
  Diff d = injected_plain();
  Findings f = findings_of(d);
  EXPECT_FALSE(f.empty());
  Diff same = d;
  mark_fragile(same, {f, f});
  EXPECT_EQ(op_of(same, "create").oncpu.verdict, Verdict::More);
  EXPECT_EQ(op_of(same, "create").oncpu.fragile, -1);
  EXPECT_EQ(op_of(same, "unlink").offcpu.verdict, Verdict::More);
  for (const auto& n : op_of(same, "create").new_code) EXPECT_EQ(n.fragile, -1) << n.name;
}

TEST(Stability, WhatOneLeaveOneOutLacksIsDemotedWithItsIndex) {
  Diff d = injected_plain();
  ASSERT_TRUE(op_of(d, "create").oncpu.significant());
  ASSERT_FALSE(op_of(d, "create").new_code.empty());
  Findings all = findings_of(d), lacking = all, reversed = all;
  std::size_t erased = 0;
  for (auto it = lacking.begin(); it != lacking.end();) {
    // create's on-CPU figure and its new code, gone from the second
    bool create = it->first.find("create") != std::string::npos &&
                  (it->first.ends_with("oncpu") || it->first.find("\x1fnew\x1f") != std::string::npos);
    it = create ? (++erased, lacking.erase(it)) : std::next(it);
  }
  ASSERT_GE(erased, 2u);
  for (auto& [k, dir] : reversed)
    if (k.find("unlink") != std::string::npos && k.ends_with("offcpu")) dir = -dir;
  mark_fragile(d, {all, lacking, reversed});
  const OpDiff& create = op_of(d, "create");
  EXPECT_EQ(create.oncpu.verdict, Verdict::NoChange);
  EXPECT_EQ(create.oncpu.fragile, 1);
  for (const auto& n : create.new_code) EXPECT_EQ(n.fragile, 1) << n.name;
  // a leave-one-out that turns a finding around loses it too
  EXPECT_EQ(op_of(d, "unlink").offcpu.verdict, Verdict::NoChange);
  EXPECT_EQ(op_of(d, "unlink").offcpu.fragile, 2);
}

// Integration: with 5 runs a side the diff names its leave-one-outs, A's
// runs first; with 3 it has none and says so.
TEST(Stability, TheDiffNamesItsLeaveOneOuts) {
  ConfigSpec b = base_spec();
  inject_new_code(b);
  Diff d = diff_runs(make_runs(base_spec(), 5, 100, "A"), make_runs(b, 5, 200, "B"));
  ASSERT_EQ(d.jackknife.size(), 10u);
  EXPECT_EQ(d.jackknife.front(), "A run1.profile");
  EXPECT_EQ(d.jackknife.back(), "B run5.profile");
  EXPECT_EQ(op_of(d, "create").oncpu.verdict, Verdict::More);  // a real effect holds
  Diff three = diff_runs(make_runs(base_spec(), 3, 100, "A"), make_runs(b, 3, 200, "B"));
  EXPECT_TRUE(three.jackknife.empty());
}

}  // namespace
}  // namespace fscost::test
