// Issue 29: exact changes speak when time is noise. On synthetic runs whose
// on-CPU time drifts 30% from run to run, a filesystem event that goes from
// 1 to 2 per create, and a function family sampled only in B, are named in
// every trial; A against A with the same counts names nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "diff/diff.h"
#include "synthetic_runs.h"  // Draw, kFreq
#include "report/diff_report.h"

namespace fscost::test {
namespace {

struct Side {
  double commits_per_op = 1.02;  // xfs_trans_commit per create
  bool attr = false;             // xfs_attr_* sampled under create
};

// One run of 20,000 (±5%) creates at 6 µs on CPU each, drifting by a
// lognormal factor of sd `time_sd`; its commits exact up to ±0.5%.
Profile make_run(const Side& s, double time_sd, Draw& d) {
  Profile p;
  p.meta.kernel_release = "6.8.0-test";
  p.meta.cpus = 2;
  p.meta.freq_hz = kFreq;
  p.meta.command = "synthetic";
  const auto ops = static_cast<std::uint64_t>(20000 * (1 + 0.05 * (2 * d.uniform() - 1)));
  const double factor = std::exp(time_sd * d.z() - time_sd * time_sd / 2);
  const double ns = 6000 * factor * static_cast<double>(ops);
  // Samples: the op's own path, and in B's runs xfs_attr_set and its leaf
  // work (about 30 a run: 0.3 µs/op).
  double samples = ns * kFreq / 1e9;
  p.samples.push_back({SampleKind::Op, "create", frames_of(kCreatePath, {"xfs_create"}),
                       d.poisson(samples)});
  if (s.attr) {
    p.samples.push_back({SampleKind::Op, "create", frames_of(kCreatePath, {"xfs_attr_set"}), d.poisson(20)});
    p.samples.push_back(
        {SampleKind::Op, "create", frames_of(kCreatePath, {"xfs_attr_set", "xfs_attr_leaf_add"}), d.poisson(10)});
  }
  const auto oncpu = static_cast<std::uint64_t>(ns);
  OpStats op{"create", ops, 0, oncpu, oncpu, std::vector<std::uint64_t>(kLatencyBuckets, 0), 0};
  op.fs_events["xfs_trans_commit"] = static_cast<std::uint64_t>(std::round(
      static_cast<double>(ops) * s.commits_per_op * (1 + 0.005 * (2 * d.uniform() - 1))));
  p.ops.push_back(op);
  p.rusage = {true, oncpu / 10, oncpu, oncpu * 2};
  p.meta.duration_ns = oncpu * 2;
  return p;
}

RunSet make_side(const Side& s, std::size_t runs, double time_sd, Draw& d, const std::string& label) {
  RunSet r;
  r.label = label;
  for (std::size_t i = 0; i < runs; ++i) {
    r.runs.push_back(make_run(s, time_sd, d));
    r.sources.push_back(label + "/run" + std::to_string(i + 1) + ".profile");
  }
  return r;
}

const OpDiff& create_of(const Diff& diff) {
  for (const auto& o : diff.ops)
    if (o.op == "create") return o;
  throw std::runtime_error("no create");
}

bool names(const OpDiff& op, const std::string& what) {
  for (const auto& e : op.exact)
    if (e.what == what) return true;
  return false;
}

bool new_in_b(const OpDiff& op, const std::string& name) {
  for (const auto& n : op.new_code)
    if (n.name == name && !n.gone) return true;
  return false;
}

TEST(DiffExact, AAgainstAWithTheSameCountsNamesNothing) {
  int named = 0;
  for (std::uint32_t trial = 0; trial < 100; ++trial) {
    Draw d(1000 + trial);
    RunSet a = make_side({}, 5, 0.30, d, "A"), b = make_side({}, 5, 0.30, d, "B");
    Diff diff = diff_runs(a, b);
    const OpDiff& op = create_of(diff);
    named += !op.exact.empty() || !op.new_code.empty();
  }
  EXPECT_LE(named, 1) << "exact changes named in " << named << " of 100 A-vs-A trials";
}

TEST(DiffExact, ASecondCommitPerCreateIsNamedWhateverTheTimeNoise) {
  int named = 0, time_resolved = 0;
  std::string screen;
  for (std::uint32_t trial = 0; trial < 100; ++trial) {
    Draw d(2000 + trial);
    RunSet a = make_side({}, 5, 0.30, d, "A"), b = make_side({2.02, true}, 5, 0.30, d, "B");
    Diff diff = diff_runs(a, b);
    const OpDiff& op = create_of(diff);
    bool ok = names(op, "xfs_trans_commit") && new_in_b(op, "xfs_attr_*");
    named += ok;
    time_resolved += op.oncpu.significant();
    if (!op.oncpu.significant() && screen.empty()) screen = render_diff_text(diff).substr(0, render_diff_text(diff).find("-----"));
  }
  EXPECT_EQ(named, 100);
  EXPECT_LT(time_resolved, 50) << "the time was meant to be noise";
  // The first screen of one where the time was not resolved: the op's line,
  // the exact change, the new family and the runs it would take.
  ASSERT_FALSE(screen.empty());
  screen = std::regex_replace(screen, std::regex("\\s+"), " ");  // unwrapped
  EXPECT_TRUE(std::regex_search(screen, std::regex("create: on-CPU not resolved at [45]\\+[45] runs")))
      << screen;
  EXPECT_NE(screen.find("runs a side would resolve this difference"), std::string::npos) << screen;
  EXPECT_NE(screen.find("xfs_trans_commit 1.02 -> 2.02/op"), std::string::npos) << screen;
  EXPECT_NE(screen.find("new in B (sampled in every B run, no A run): xfs_attr_*"),
            std::string::npos)
      << screen;
}

// Beyond the spread: every run of B past every run of A by more than
// either side's own range, and a tenth of A.
TEST(DiffExact, AChangeIsExactOnlyBeyondItsOwnSpread) {
  EXPECT_TRUE(exact_change(compare({1.0, 1.01, 0.99}, {2.0, 2.01, 1.99}, "/op")));
  EXPECT_FALSE(exact_change(compare({1.0, 1.5, 0.9}, {2.0, 1.2, 1.99}, "/op")));  // overlap
  EXPECT_FALSE(exact_change(compare({1.0, 1.01}, {1.05, 1.051}, "/op")));  // under 10%
  EXPECT_FALSE(exact_change(compare({1.0, 1.4}, {1.5, 1.9}, "/op")));  // gap < spread
}

}  // namespace
}  // namespace fscost::test
