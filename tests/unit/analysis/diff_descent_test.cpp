// Issue 29: tests that keep their power down the tree. One function at
// +100% among 2000 background functions, at 5+5 runs with 15% drift from
// run to run and nothing else changed: the descent (each node's children on
// their share of its samples) finds it in at least 18 of 20 trials, where
// the flat family of every function's cost finds it in fewer; A against A,
// it holds its false discoveries to 5%.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "diff/diff.h"
#include "synthetic_runs.h"  // Draw, make_side, background

namespace fscost::test {
namespace {

const std::string kTarget = "xfs_target_fn";

// 2000 functions whose rates span 1 to 5000 samples a run, log-uniformly
// (a real create profile's long tail), and the target at 100 a run.
std::vector<Function> functions(Draw& d, double target) {
  std::vector<Function> fns = background(2000, d);
  fns.push_back({kTarget, target});
  return fns;
}

DiffConfig keep_all() {
  DiffConfig c;
  c.drop_outliers = false;  // the drift is what the tests must hold under
  c.jackknife = false;       // it marks shares, never removes them: ten diffs more for nothing
  return c;
}

const OpDiff& create_of(const Diff& diff) {
  for (const auto& o : diff.ops)
    if (o.op == "create") return o;
  throw std::runtime_error("no create");
}

bool descent_found(const OpDiff& op) {
  for (const auto& s : op.shares)
    if (s.frames.back() == kTarget) return true;
  return false;
}

bool flat_found(const OpDiff& op) {
  for (const auto& f : op.functions)
    if (f.name == kTarget) return f.inclusive.significant();
  return false;
}

// Diffs `trials` pairs of sides drawn from seeds `seed`, `seed` + 1, …: A
// from fns(draw), B the same with its last function at `b_last` a run
// (B = A where negative); counts the trials whose create `hit` holds.
template <class Fns, class Hit>
int trials_where(std::uint32_t seed, int trials, Fns fns, double b_last, Hit hit) {
  int n = 0;
  for (int t = 0; t < trials; ++t) {
    Draw d(seed + static_cast<std::uint32_t>(t));
    std::vector<Function> a = fns(d), b = a;
    if (b_last >= 0) b.back().per_run = b_last;
    RunSet ra = make_side(a, 0.15, 5, d, "A"), rb = make_side(b, 0.15, 5, d, "B");
    const Diff diff = diff_runs(ra, rb, keep_all());
    n += hit(create_of(diff)) ? 1 : 0;
  }
  return n;
}

TEST(DiffDescent, OneFunctionAtTwiceItsCostAmongTwoThousandIsFound) {
  int descent = 0, flat = 0;
  for (std::uint32_t trial = 0; trial < 20; ++trial) {
    Draw d(500 + trial);
    std::vector<Function> a = functions(d, 100), b = a;
    b.back().per_run = 200;
    RunSet ra = make_side(a, 0.15, 5, d, "A"), rb = make_side(b, 0.15, 5, d, "B");
    Diff diff = diff_runs(ra, rb, keep_all());
    const OpDiff& op = create_of(diff);
    descent += descent_found(op);
    flat += flat_found(op);
  }
  EXPECT_GE(descent, 18) << "flat found it in " << flat;
  EXPECT_LT(flat, descent);
}

TEST(DiffDescent, AAgainstAHoldsItsFalseDiscoveries) {
  constexpr int kTrials = 40;
  const int trials_with_any = trials_where(
      900, kTrials, [](Draw& d) { return functions(d, 100); }, -1,
      [](const OpDiff& op) { return !op.shares.empty(); });
  // Every discovery is false here: the FDR is the share of trials with any.
  EXPECT_LE(trials_with_any, kTrials * 5 / 100) << trials_with_any << " of " << kTrials;
}

// Issue 42, item 5: a leaf whose cost doubles under a parent that moves by
// a few percent. xfs_mid holds 50 functions of 40 samples a run and the
// target's 20 (then 40): its share of xfs_create moves by about 0.2%,
// which the hierarchy cannot test into, so only the sweep of the rest of
// the tree (diff/descent.cpp) reaches the target.
std::vector<Function> with_deep_leaf(Draw& d, double target) {
  std::vector<Function> fns = background(2000, d);
  for (int i = 0; i < 50; ++i) fns.push_back({"xfs_mid_f" + std::to_string(i), 40, {Frame("xfs_mid")}});
  fns.push_back({kTarget, target, {Frame("xfs_mid")}});
  return fns;
}

TEST(DiffDescent, ALeafThatDoublesUnderAnUnchangedParentIsFound) {
  int parent = 0;
  const int found = trials_where(
      700, 20, [](Draw& d) { return with_deep_leaf(d, 20); }, 40, [&](const OpDiff& op) {
        for (const auto& s : op.shares) parent += s.frames.back() == "xfs_mid";
        return descent_found(op);
      });
  EXPECT_GE(found, 18);
  EXPECT_LE(parent, 1) << "the parent's own share should not move";
}

TEST(DiffDescent, AAgainstAWithADeepSubtreeHoldsItsFalseDiscoveries) {
  constexpr int kTrials = 40;
  const int trials_with_any = trials_where(
      1900, kTrials, [](Draw& d) { return with_deep_leaf(d, 20); }, -1,
      [](const OpDiff& op) { return !op.shares.empty(); });
  EXPECT_LE(trials_with_any, kTrials * 5 / 100) << trials_with_any << " of " << kTrials;
}

}  // namespace
}  // namespace fscost::test
