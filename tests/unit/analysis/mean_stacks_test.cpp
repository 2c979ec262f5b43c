// mean_flame_input sums the runs' stacks in integer keys (mean_stacks.cpp);
// the reference here is the plain mean of each run's flame_input (the
// stacks a single profile's flame graph draws): the two must agree exactly,
// frames, values, order and skipped.
#include "diff/mean_stacks.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "diff/diff.h"
#include "diff_fixture.h"
#include "diff/metrics.h"  // samples_to_ns
#include "flame/flamegraph.h"
#include "full_fixture.h"

namespace fscost::test {
namespace {

// flame_input (per-op division) of each run, summed per stack, divided by
// the runs.
FlameInput folded_mean(const RunSet& runs, View view,
                       const std::optional<std::string>& op) {
  std::map<Stack, double> sum;  // Frames order by text, as strings did
  std::set<std::string> skipped;
  for (const auto& p : runs.runs) {
    FlameInput in = flame_input(p, view, op, true);
    double scale = view == View::OnCpu ? samples_to_ns(1, p.meta.freq_hz) : 1;
    for (auto& [frames, value] : in.stacks) sum[std::move(frames)] += value * scale;
    skipped.insert(in.skipped.begin(), in.skipped.end());
  }
  FlameInput out;
  double n = static_cast<double>(runs.runs.size());
  for (auto& [frames, value] : sum)
    if (value > 0) out.stacks.emplace_back(frames, value / n);
  out.skipped.assign(skipped.begin(), skipped.end());
  return out;
}

void expect_same(const FlameInput& direct, const FlameInput& folded, const std::string& what) {
  ASSERT_EQ(direct.stacks.size(), folded.stacks.size()) << what;
  for (std::size_t i = 0; i < direct.stacks.size(); ++i) {
    EXPECT_EQ(direct.stacks[i].first, folded.stacks[i].first) << what << " stack " << i;
    EXPECT_EQ(direct.stacks[i].second, folded.stacks[i].second) << what << " stack " << i;
  }
  EXPECT_EQ(direct.skipped, folded.skipped) << what;
}

// Every view, every operation of the runs (and some absent), and all roots.
void expect_paths_agree(const RunSet& runs) {
  std::set<std::string> ops = {"create", "unlink", "mkdir", "other", "rename", "no-such-op"};
  for (const auto& p : runs.runs) {
    for (const auto& s : p.samples) ops.insert(s.name);
    for (const auto& s : p.offcpu) ops.insert(s.name);
    for (const auto& s : p.locks) ops.insert(s.name);
  }
  for (View view : kViews) {
    std::string name(view_name(view));
    expect_same(mean_flame_input(runs, view, std::nullopt), folded_mean(runs, view, std::nullopt),
                name + " all");
    for (const auto& op : ops)
      expect_same(mean_flame_input(runs, view, op), folded_mean(runs, view, op), name + " " + op);
  }
}

TEST(MeanStacks, EqualTheFoldedPathOnDiffRuns) {
  expect_paths_agree(make_runs(base_spec(), 3, 7, "A"));
}

TEST(MeanStacks, EqualTheFoldedPathOnFullProfiles) {
  RunSet s;
  s.runs = {full_profile(), full_profile()};
  s.runs[1].meta.freq_hz = 2 * s.runs[0].meta.freq_hz + 1;
  s.runs[1].ops.pop_back();  // "other" has no completed operations in run 1
  expect_paths_agree(s);
}

// What render_folded and parse_folded change in a frame: ';' and line
// breaks, and trailing blanks of the leaf; stacks that became equal merge
// before the division. Kernel threads and ops without a count are listed.
TEST(MeanStacks, EqualTheFoldedPathOnAwkwardFrames) {
  Profile p = full_profile();
  p.samples.push_back({SampleKind::Op, "create", {"a;b", "c\nd"}, 3});
  p.samples.push_back({SampleKind::Op, "create", {"a:b", "c d"}, 4});  // same line as above
  p.samples.push_back({SampleKind::Op, "create", {"x", "leaf  "}, 5});
  p.samples.push_back({SampleKind::Op, "create", {"x", "leaf"}, 6});
  p.samples.push_back({SampleKind::Op, "create", {"x", " \t"}, 2});
  p.samples.push_back({SampleKind::Op, "ghost", {"y"}, 2});  // no OpStats
  p.samples.push_back({SampleKind::Op, "unlink", {}, 9});
  p.samples.push_back({SampleKind::Op, "create", {"zero"}, 0});
  p.samples.push_back({SampleKind::Kthread, "kworker;1", {"k"}, 4});
  p.offcpu.push_back({SampleKind::Op, "create", "io;x", {"f"}, {"w2", "w1"}, "", 1, 700});
  p.offcpu.push_back({SampleKind::Op, "create", "sleep", {"f"}, {}, "comm ", 1, 300});
  p.locks.push_back(p.locks.front());
  p.locks.back().address += 64;  // another address, the same lock name: one line
  RunSet s;
  s.runs = {p, full_profile()};
  expect_paths_agree(s);
}

// The explanation and the HTML report read the stacks diff_runs made: the
// same as mean_flame_input of each side.
TEST(MeanStacks, DiffCarriesTheStacksItExplained) {
  RunSet a = make_runs(base_spec(), 2, 3, "A"), b = make_runs(base_spec(), 3, 5, "B");
  Diff d = diff_runs(a, b);
  ASSERT_TRUE(d.stacks_a && d.stacks_b);
  for (View view : kViews)
    for (const std::string op : {"create", "unlink", "no-such-op"}) {
      std::string what = std::string(view_name(view)) + " " + op;
      expect_same(d.stacks_a->get(view, op), mean_flame_input(a, view, op), "A " + what);
      expect_same(d.stacks_b->get(view, op), mean_flame_input(b, view, op), "B " + what);
    }
  EXPECT_FALSE(d.stacks_a->get(View::OnCpu, "create").stacks.empty());
}

}  // namespace
}  // namespace fscost::test
