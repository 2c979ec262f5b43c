// Golden files for the diff's text and JSON, from diff_runs on synthetic
// runs (diff_fixture.h) with known differences: tests/data/diff/<case>.txt,
// .json (summary.json) and .functions.json (functions.json). FSCOST_BLESS=1
// rewrites them (fixture.h); review the change.
//
// The runs are seeded and diff_runs writes each parallel item to its own
// slot, so the output depends neither on time nor on the thread count.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "diff/diff.h"
#include "diff_fixture.h"
#include "fixture.h"
#include "report/diff_report.h"

namespace fscost::test {
namespace {

struct GoldenCase {
  std::string name;
  std::function<void(ConfigSpec&)> change_b;  // applied to B's copy of base_spec()
};

// 5 runs a side, seeds as diff_runs_test.cpp: A 100.., B 200...
Diff diff_of(const GoldenCase& c) {
  ConfigSpec b = base_spec();
  if (c.change_b) c.change_b(b);
  return diff_runs(make_runs(base_spec(), 5, 100, "A"), make_runs(b, 5, 200, "B"));
}

void expect_diff_golden(const GoldenCase& c) {
  SCOPED_TRACE(c.name);
  // expect_golden writes the file but not its directory.
  std::filesystem::create_directories(data_path("diff"));
  Diff d = diff_of(c);
  expect_golden("diff/" + c.name + ".txt", render_diff_text(d));
  // Pretty-printed for review; the files written are compact.
  expect_golden("diff/" + c.name + ".json", diff_json(d).dump(2) + "\n");
  expect_golden("diff/" + c.name + ".functions.json",
                nlohmann::json::parse(diff_functions_json_text(d)).dump(2) + "\n");
}

// A against A (other seeds): nothing significant, only the noise warning.
TEST(DiffGolden, SameConfiguration) { expect_diff_golden({"same", nullptr}); }

// B has new code under create (xfs_parent_addname, 1 µs/op): create's
// on-CPU delta is new code; unlink and mkdir unchanged.
TEST(DiffGolden, NewCodeUnderCreate) { expect_diff_golden({"new-code", inject_new_code}); }

// Lock contention: create spins more on lock X (the same lock, worse) and
// unlink sleeps on a new lock Y (a new contention point); no new code.
TEST(DiffGolden, LockContention) {
  expect_diff_golden({"locks", [](ConfigSpec& s) {
                        inject_more_spin(s);
                        inject_sleep_lock(s);
                      }});
}

// Issue 29: real runs where the time is noise and the mechanism is exact
// (tests/data/diff/fsmark-parent/README.md): parent pointers under fs_mark
// at 5+5 runs on a loaded host. The first screen names create's exact
// change (a second commit per create, which bpftrace counted on the same
// workload: 1.033 -> 2.033), the families new in B, the roll chain down the
// call tree, and how many runs would resolve the time.
TEST(DiffGolden, RealFsMarkParentPointers) {
  auto a = load_runs(data_path("diff/fsmark-parent/a"), "parent=0");
  auto b = load_runs(data_path("diff/fsmark-parent/b"), "parent=1");
  ASSERT_TRUE(a) << a.error().message;
  ASSERT_TRUE(b) << b.error().message;
  Diff d = diff_runs(a.value(), b.value());
  std::string text = render_diff_text(d);
  std::string first = text.substr(0, text.find("\n-----"));
  expect_golden("diff/fsmark-parent.txt", first + "\n");
  std::string flat;  // unwrapped
  for (char c : first) flat += c == '\n' ? ' ' : c;
  for (std::size_t at; (at = flat.find("  ")) != std::string::npos;) flat.erase(at, 1);
  for (const char* want :
       {"create: on-CPU not resolved at", "runs a side would resolve this difference",
        "exact, every B run beyond every A run: xfs_trans_commit 1.03 -> 2.03/op",
        "new in B (sampled in every B run, no A run): xfs_attr_*, xfs_attri_*",
        "work moved: __xfs_trans_commit, 94% -> 17% of xfs_trans_commit's samples",
        "now also under xfs_defer_finish_noroll → xfs_defer_trans_roll → xfs_trans_roll",
        // perf record -a -g on this case: 0% -> 25-26% of the push work's samples
        "kernel threads down the call tree: xfs-cil/loop0: xlog_cil_push_work: "
        "xlog_cil_cleanup_whiteouts: 0.82% -> 22%",
        // and xfs_attri_item_free, xfs_attri_release under it in B's runs only
        "kernel threads, new in B (sampled in every B run, no A run): xfs-cil/loop0: "
        "xlog_cil_push_work: xfs_attri_*"})
    EXPECT_NE(flat.find(want), std::string::npos) << want << "\n" << first;
}

}  // namespace
}  // namespace fscost::test
