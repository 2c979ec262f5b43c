// Explanation by descent (diff/paths.cpp) on synthetic runs with a known
// mechanism: the chain is the one the injected stacks hang from, the class
// is right, and no share exceeds 100%.
#include <gtest/gtest.h>

#include <numeric>

#include "diff/diff.h"
#include "report/diff_report.h"
#include "diff_fixture.h"
#include "model/frame_match.h"

namespace fscost::test {
namespace {

const OpDiff& op_of(const Diff& d, const std::string& name) {
  for (const auto& o : d.ops)
    if (o.op == name) return o;
  throw std::runtime_error("no op " + name);
}

std::vector<const DeltaPath*> significant(const OpDiff& op, bool up) {
  std::vector<const DeltaPath*> out;
  for (const auto& p : op.paths)
    if (p.inclusive.significant() && (p.inclusive.delta() > 0) == up) out.push_back(&p);
  return out;
}

void expect_shares_bounded(const OpDiff& op) {
  double up = 0, down = 0;
  for (const auto& p : op.paths) {
    EXPECT_GE(p.share, 0);
    EXPECT_LE(p.share, 1);
    (p.inclusive.delta() > 0 ? up : down) += p.share;
  }
  for (const auto& p : op.paths)
    if (up > 1 + 1e-9 || down > 1 + 1e-9) ADD_FAILURE() << op.op << " " << p.kind << " " << p.share << " " << p.inclusive.delta() << " " << p.frames.back();
  EXPECT_LE(up, 1 + 1e-9);
  EXPECT_LE(down, 1 + 1e-9);
}

TEST(DiffPaths, NewCodeEndsWhereTheInjectedStacksHang) {
  ConfigSpec b = base_spec();
  inject_new_code(b);
  Diff d = diff_runs(make_runs(base_spec(), 5, 100, "A"), make_runs(b, 5, 200, "B"));
  const OpDiff& create = op_of(d, "create");
  auto up = significant(create, true);
  ASSERT_EQ(up.size(), 1u);
  EXPECT_EQ(up[0]->kind, "new-code");
  EXPECT_EQ(up[0]->frames.back(), "xfs_parent_addname");
  EXPECT_GT(up[0]->share, 0.9);
  // It splits there into the two injected children, largest first.
  ASSERT_EQ(up[0]->split.size(), 2u);
  EXPECT_EQ(up[0]->split[0].first, "xfs_attr_defer_add");
  EXPECT_EQ(up[0]->split[1].first, "xfs_parent_hashname");
  EXPECT_TRUE(significant(create, false).empty());
  expect_shares_bounded(create);
  for (const auto& op : d.ops) {
    if (op.op != "create") {
      EXPECT_TRUE(significant(op, true).empty()) << op.op;
    }
  }
}

// The parent-pointer shape (docs/CASES.md, case 1): the create's commit
// moves into a transaction roll under xfs_defer_finish_noroll, which A runs
// rarely, and the final commit gets cheaper. Two paths, opposite ways.
TEST(DiffPaths, ARollAddsOnePathAndTheFinalCommitShrinksAnother) {
  auto at = [](Stack tail) { return frames_of(kCreatePath, tail); };
  const Stack roll = at({"xfs_trans_commit", "xfs_defer_finish_noroll", "xfs_defer_trans_roll",
                         "xfs_trans_roll", "__xfs_trans_commit", "xlog_cil_commit"});
  const Stack final_commit = at({"xfs_trans_commit", "__xfs_trans_commit", "xlog_cil_commit"});
  ConfigSpec a = base_spec(), b = base_spec();
  op_of(a, "create").oncpu.push_back({roll, 30});
  op_of(a, "create").oncpu.push_back({final_commit, 2000});
  op_of(b, "create").oncpu.push_back({roll, 2400});
  op_of(b, "create").oncpu.push_back({final_commit, 700});
  Diff d = diff_runs(make_runs(a, 5, 100, "A"), make_runs(b, 5, 200, "B"));
  const OpDiff& create = op_of(d, "create");
  auto up = significant(create, true), down = significant(create, false);
  ASSERT_EQ(up.size(), 1u);
  ASSERT_EQ(down.size(), 1u);
  EXPECT_EQ(up[0]->kind, "more-work");  // A rolls too, 80× less often: not new
  EXPECT_EQ(up[0]->frames, frame_strings(roll));
  EXPECT_GT(up[0]->inclusive.sb.mean / up[0]->inclusive.sa.mean, 40);
  EXPECT_EQ(down[0]->kind, "less-work");
  EXPECT_EQ(down[0]->frames.back(), "xlog_cil_commit");
  EXPECT_EQ(down[0]->frames[down[0]->frames.size() - 2], "__xfs_trans_commit");
  expect_shares_bounded(create);
}

// The HTML report shows the paths and the families next to the functions.
TEST(DiffPaths, HtmlHasPathAndFamilyTables) {
  ConfigSpec b = base_spec();
  inject_new_code(b);
  RunSet ra = make_runs(base_spec(), 5, 100, "A"), rb = make_runs(b, 5, 200, "B");
  Diff d = diff_runs(ra, rb);
  std::string html = render_diff_html(d, ra, rb);
  auto table = html.find("<table class=\"diff paths\">");
  ASSERT_NE(table, std::string::npos);
  EXPECT_NE(html.find("xfs_parent_addname", table), std::string::npos);
  EXPECT_NE(html.find("new-code", table), std::string::npos);
  auto fams = html.find("<table class=\"diff families\">");
  ASSERT_NE(fams, std::string::npos);
  EXPECT_NE(html.find("xfs_parent_*", fams), std::string::npos);
}

TEST(DiffPaths, NoPathOnTheSameConfiguration) {
  Diff d = diff_runs(make_runs(base_spec(), 5, 100, "A"), make_runs(base_spec(), 5, 200, "B"));
  for (const auto& op : d.ops) {
    EXPECT_TRUE(significant(op, true).empty()) << op.op;
    EXPECT_TRUE(significant(op, false).empty()) << op.op;
    expect_shares_bounded(op);
  }
}

}  // namespace
}  // namespace fscost::test

namespace fscost::test {
namespace {

TEST(FunctionFamily, FirstTwoWordsOfNamesOfThreeOrMore) {
  EXPECT_EQ(function_family("xfs_attr_sf_addname"), "xfs_attr");
  EXPECT_EQ(function_family("__xfs_trans_commit"), "xfs_trans");
  EXPECT_EQ(function_family("xlog_cil_push_work"), "xlog_cil");
  EXPECT_EQ(function_family("xfs_rmapbt_cmp_two_keys.isra.0"), "xfs_rmapbt");
  EXPECT_EQ(function_family("down_write"), "");
  EXPECT_EQ(function_family("path_openat"), "");
  EXPECT_EQ(function_family("schedule"), "");
  EXPECT_EQ(function_family("xfs__x"), "");
  EXPECT_EQ(function_family("_"), "");
}

// A family counts a stack once however many members it holds, and needs
// two members to be one.
TEST(DiffFamilies, UnionInclusiveOverItsMembers) {
  auto at = [](Stack tail) { return frames_of(kCreatePath, tail); };
  ConfigSpec b = base_spec();
  op_of(b, "create").oncpu.push_back({at({"xfs_attr_set_iter", "xfs_attr_sf_addname"}), 500});
  op_of(b, "create").oncpu.push_back({at({"xfs_attr_defer_add"}), 300});
  Diff d = diff_runs(make_runs(base_spec(), 5, 100, "A"), make_runs(b, 5, 200, "B"));
  const OpDiff& create = op_of(d, "create");
  const FamilyDiff* attr = nullptr;
  for (const auto& f : create.families) {
    EXPECT_GE(f.functions, 2u) << f.name;
    if (f.name == "xfs_attr_*") attr = &f;
  }
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr->functions, 3u);
  EXPECT_TRUE(attr->new_in_b);
  EXPECT_TRUE(attr->inclusive.significant());
  // 800 of the create's samples per run, counted once each: the per-op
  // ns of 800 samples, not of the 1300 frame hits.
  const FunctionDiff* sf = nullptr;
  for (const auto& f : create.functions)
    if (f.name == "xfs_attr_set_iter") sf = &f;
  ASSERT_TRUE(sf);
  EXPECT_NEAR(attr->inclusive.sb.mean / sf->inclusive.sb.mean, 800.0 / 500, 0.05);
}

}  // namespace
}  // namespace fscost::test
