// The jackknife's bookkeeping (diff/stability.h): what one diff found is
// found again by key in another, and what one leave-one-out lacks is
// demoted in the full diff with that run named.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "diff/stability.h"
#include "diff_fixture.h"
#include "fixture.h"
#include "report/diff_report.h"

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
  mark_fragile(same, std::vector<Findings>{f, f});
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
  mark_fragile(d, std::vector<Findings>{all, lacking, reversed});
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

// Every "fragile" member of a diff's JSON (every function listed), by its
// place; and each kernel-thread bucket's new code, which the jackknife
// removes rather than marks.
void fragile_marks(const nlohmann::json& j, const std::string& at,
                   std::map<std::string, std::string>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      if (k == "fragile" || k == "new_in_b") out[at + "/" + k] = v.dump();
      fragile_marks(v, at + "/" + k, out);
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) fragile_marks(j[i], at + "/" + std::to_string(i), out);
  }
}

std::map<std::string, std::string> fragile_marks(const Diff& d) {
  std::map<std::string, std::string> out;
  fragile_marks(diff_json(d, {.all_functions = true}), "", out);
  return out;
}

// The jackknife as diff_runs does it (jackknife.cpp: each comparison tested
// again on its own per-run values, the searches and the descents done
// again on what the full diff built) marks what its definition marks: the
// findings of the whole diff redone without each run. On every recorded
// case, 5+5 real runs.
TEST(Stability, TheShortcutMarksWhatTheDiffsRedoneWithoutEachRunMark) {
  std::size_t marks = 0, fragile = 0;
  for (const char* name : {"agcount", "dir-block-size", "enospc-flush", "parent-create",
                           "parent-remove", "rmapbt-fsync", "shared-dir-spin", "wsync"}) {
    SCOPED_TRACE(name);
    auto a = load_runs(data_path(std::string("cases/") + name + "/a"), "A");
    auto b = load_runs(data_path(std::string("cases/") + name + "/b"), "B");
    ASSERT_TRUE(a && b);
    DiffConfig cfg;
    cfg.drop_outliers = false;  // the same runs in both
    DiffConfig plain = cfg;
    plain.jackknife = false;
    Diff reference = diff_runs(a.value(), b.value(), plain);
    std::vector<Findings> left_out;
    for (std::size_t i = 0; i < a.value().runs.size(); ++i)
      left_out.push_back(findings_of(diff_runs(without_run(a.value(), i), b.value(), plain)));
    for (std::size_t i = 0; i < b.value().runs.size(); ++i)
      left_out.push_back(findings_of(diff_runs(a.value(), without_run(b.value(), i), plain)));
    // (A side of fewer runs is not checked: enospc-flush's 3+3.)
    if (a.value().runs.size() >= kJackknifeRuns && b.value().runs.size() >= kJackknifeRuns)
      mark_fragile(reference, left_out);
    const auto want = fragile_marks(reference), got = fragile_marks(diff_runs(a.value(), b.value(), cfg));
    for (const auto& [at, v] : want) {
      auto it = got.find(at);
      EXPECT_TRUE(it != got.end() && it->second == v)
          << at << ": by definition " << v << ", by the shortcut "
          << (it == got.end() ? "(none)" : it->second);
    }
    for (const auto& [at, v] : got)
      EXPECT_TRUE(want.contains(at)) << at << ": by the shortcut " << v << ", by definition (none)";
    marks += want.size();
    for (const auto& [at, v] : want) fragile += v != "-1" && at.ends_with("fragile");
  }
  // Not vacuous: the cases have findings that one run carries.
  EXPECT_GT(marks, 100u);
  EXPECT_GT(fragile, 0u);
}

}  // namespace
}  // namespace fscost::test
