// The same answer twice (issue 42): a repeat of a compare runs other runs,
// so what the first screen says of a recorded case must not hang on which
// runs it had. Every subset that leaves one run of each side out (4+4 of
// 5+5) is diffed, and each first screen must state the case's mechanism
// (docs/CASES.md) and give its op one contention verdict, the same in all.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "diff/diff.h"
#include "diff_fixture.h"
#include "fixture.h"
#include "report/diff/text_parts.h"

namespace fscost::test {
namespace {

// One first screen, unwrapped (a paragraph a line), and the subset it is of.
struct Screen {
  std::string text;
  std::string subset;
};

std::vector<Screen> subset_screens(const std::string& name) {
  auto a = load_runs(data_path("cases/" + name + "/a"), "A");
  auto b = load_runs(data_path("cases/" + name + "/b"), "B");
  if (!a || !b) throw std::runtime_error(!a ? a.error().message : b.error().message);
  std::vector<Screen> out;
  for (std::size_t i = 0; i < a.value().runs.size(); ++i)
    for (std::size_t j = 0; j < b.value().runs.size(); ++j) {
      Diff d = diff_runs(without_run(a.value(), i), without_run(b.value(), j));
      out.push_back({diff_text::first_screen(d, 100000),
                     "without A " + a.value().sources[i] + ", B " + b.value().sources[j]});
    }
  return out;
}

// The contention verdict under `op`'s first line: the verdict itself, up to
// its first "; " (what follows, the size of a slight change or the locks'
// figures, may differ with the runs).
std::string contention_of(const std::string& screen, const std::string& op) {
  std::size_t at = screen.find("\n" + op + ": ");
  if (at == std::string::npos) return "(" + op + " not on the screen)";
  std::size_t c = screen.find("contention: ", at);
  if (c == std::string::npos) return "(no contention line)";
  std::string line = screen.substr(c, screen.find('\n', c) - c);
  return line.substr(0, line.find("; "));
}

// Every subset's screen holds each of `mechanism`; `op`'s contention
// verdict is one and the same in all ("" = no op to check).
void expect_same_answer(const std::string& name, const std::vector<std::string>& mechanism,
                        const std::string& op) {
  std::vector<Screen> screens = subset_screens(name);
  std::map<std::string, std::vector<std::string>> verdicts;  // verdict → subsets
  for (const Screen& s : screens) {
    for (const auto& m : mechanism)
      EXPECT_NE(s.text.find(m), std::string::npos)
          << name << " " << s.subset << ": no \"" << m << "\" on the first screen\n" << s.text;
    if (!op.empty()) verdicts[contention_of(s.text, op)].push_back(s.subset);
  }
  if (op.empty()) return;
  std::string seen;
  for (const auto& [v, subsets] : verdicts) seen += std::to_string(subsets.size()) + " × " + v + "\n";
  EXPECT_EQ(verdicts.size(), 1u) << name << ": " << op << "'s contention verdict varies:\n" << seen;
}

TEST(CaseSubsets, RmapbtFsync) {
  expect_same_answer("rmapbt-fsync", {"fsync: on-CPU +", "xfs_rmapbt_*"}, "fsync");
}

TEST(CaseSubsets, SharedDirSpin) {
  // The truth: the same optimistic spin on both sides, no change (CASES.md 2.3).
  expect_same_answer("shared-dir-spin", {"No tested operation's cost changed beyond this noise"},
                     "");
}

TEST(CaseSubsets, DirBlockSize) {
  expect_same_answer("dir-block-size", {"create: on-CPU +", "same path, more work"}, "create");
}

TEST(CaseSubsets, Wsync) {
  expect_same_answer("wsync", {"create: off-CPU +", "more log force wait under xlog_wait_on_iclog"},
                     "create");
}

TEST(CaseSubsets, Agcount) {
  expect_same_answer("agcount", {"new contention point: xfs_buf lock (AGI) [semaphore]"}, "create");
}

TEST(CaseSubsets, EnospcFlush) {
  // 3 runs a side: its subsets have 2, too few for the jackknife, and the
  // flush chain comes and goes with the runs (CASES.md 2.0a); the code
  // rmapbt adds is there in every one.
  expect_same_answer("enospc-flush", {"xfs_rmap_*"}, "");
}

// The seed's case (docs/CASES.md case 1, recorded with mkfs.xfs 6.15 and
// xfstests' fsstress): the second commit, the xattr code new in B, and one
// verdict on contention; and the roll, the commit's work moved under
// xfs_defer_finish_noroll (the descent's sweep and MovedWork: at 3+4 runs
// xfs_trans_commit's own share moves too little for the hierarchy to
// reach its children).
TEST(CaseSubsets, ParentPointersCreate) {
  expect_same_answer("parent-create",
                     {"xfs_trans_commit 1.02 -> 2.02", "xfs_attr_*", "xfs_attri_*",
                      "work moved: __xfs_trans_commit", "xfs_defer_trans_roll → xfs_trans_roll"},
                     "create");
}

// Its rm -rf (fscost-workload remove, its setup's creates not recorded):
// unlink removes the parent pointer in a second transaction, the same roll.
TEST(CaseSubsets, ParentPointersRemove) {
  expect_same_answer("parent-remove",
                     {"\nunlink: ", "xfs_trans_commit 1.02 -> 2.02", "xfs_attri_*",
                      "work moved: __xfs_trans_commit", "xfs_defer_trans_roll → xfs_trans_roll"},
                     "unlink");
}

}  // namespace
}  // namespace fscost::test
