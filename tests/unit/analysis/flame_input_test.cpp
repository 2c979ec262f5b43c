// Stacks for flame graphs: folded parsing, stacks from a profile, per-op
// normalisation, difffolded.pl's per-stack delta, and the merged tree.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fixture.h"
#include "flame/flamegraph.h"
#include "report/report.h"

namespace fscost {
namespace {

FlameInput folded(std::string_view text) {
  auto r = parse_folded(text, "test", FoldedColumns::One);
  EXPECT_TRUE(r) << r.error().message;
  return r ? flame_input(r.value()) : FlameInput{};
}

// "name value[/value_b]" per node, indented by depth: the tree in one string.
void print(const FlameNode& n, int depth, std::string& out, bool diff) {
  out += std::string(2 * depth, ' ') + n.name.str() + " " + fmt::format("{}", n.value);
  if (diff) out += fmt::format("/{}", n.value_b);
  out += "\n";
  for (const auto& c : n.children) print(c, depth + 1, out, diff);
}

std::string printed(const FlameNode& n, bool diff = false) {
  std::string out;
  print(n, 0, out, diff);
  return out;
}

TEST(FlameFolded, StacksFromParsedFolded) {
  auto in = folded("a;b;c 3\nd 1.5\nx y;z 2\n");
  ASSERT_EQ(in.stacks.size(), 3u);
  EXPECT_EQ(in.stacks[0], (FlameStack{{"a", "b", "c"}, 3}));
  EXPECT_EQ(in.stacks[1], (FlameStack{{"d"}, 1.5}));
  EXPECT_EQ(in.stacks[2], (FlameStack{{"x y", "z"}, 2}));
  // The two-column (difffolded) form: either side.
  auto two = take(parse_folded("a;b 3 5\nc 0 2\n", "test"));
  EXPECT_EQ(flame_input(two, 0).stacks, (std::vector<FlameStack>{{{"a", "b"}, 3}, {{"c"}, 0}}));
  EXPECT_EQ(flame_input(two, 1).stacks, (std::vector<FlameStack>{{{"a", "b"}, 5}, {{"c"}, 2}}));
}

TEST(FlameFolded, DiffFoldedMatchesDifffoldedPl) {
  // difffolded.pl: every stack of either file, "stack countA countB", 0
  // where missing, repeated stacks summed. Expected lines written by hand.
  auto a = folded("a;b 3\na;c 2\nd 1\na;b 1\n");
  auto b = folded("e 7\na;b 5\n");
  EXPECT_EQ(diff_folded(a, b),
            "a;b 4 5\n"
            "a;c 2 0\n"
            "d 1 0\n"
            "e 0 7\n");
  EXPECT_EQ(diff_folded({}, {}), "");
}

TEST(FlameInputs, SameStacksAsFoldedReport) {
  Profile p = test::sample_profile();
  for (View view : kViews) {
    ReportOptions opt;
    opt.view = view;
    auto expected = folded(render_folded(p, opt));
    auto actual = flame_input(p, view, std::nullopt, false);
    EXPECT_EQ(actual.stacks, expected.stacks) << view_name(view);
    EXPECT_TRUE(actual.skipped.empty());
  }
}

TEST(FlameInputs, RootsAreOpsUserKernelAndKthreads) {
  auto tree = flame_tree(flame_input(test::sample_profile(), View::OnCpu, std::nullopt, false));
  std::vector<std::string> roots;
  for (const auto& c : tree.children) roots.push_back(c.name);
  EXPECT_EQ(roots, (std::vector<std::string>{"[kernel]", "[kthread:kworker/u8:1]",
                                             "[kthread:xfsaild/loop0]", "[user]", "create", "fsync",
                                             "unlink"}));
  EXPECT_EQ(tree.value, 745);
}

TEST(FlameInputs, OneOperation) {
  auto in = flame_input(test::sample_profile(), View::OnCpu, std::string("create"), false);
  ASSERT_EQ(in.stacks.size(), 3u);
  for (const auto& [frames, value] : in.stacks) EXPECT_EQ(frames.front(), "create");
}

TEST(FlameInputs, PerOpDividesByTheOpCountAndSaysWhatIsLeftOut) {
  auto in = flame_input(test::sample_profile(), View::OnCpu, std::nullopt, true);
  auto tree = flame_tree(in);
  ASSERT_EQ(tree.children.size(), 2u);
  EXPECT_EQ(tree.children[0].name, "create");
  EXPECT_DOUBLE_EQ(tree.children[0].value, 500.0 / 1000);  // 500 samples, 1000 creates
  EXPECT_EQ(tree.children[1].name, "unlink");
  EXPECT_DOUBLE_EQ(tree.children[1].value, 100.0 / 500);
  EXPECT_EQ(in.skipped,
            (std::vector<std::string>{"[kernel] (not an operation)", "[user] (not an operation)",
                                      "fsync (no completed operations)",
                                      "2 kernel threads (not operations)"}));
  EXPECT_EQ(flame_unit(View::OnCpu, true), "samples/op");
  EXPECT_EQ(flame_unit(View::OffCpu, false), "ns");
  EXPECT_EQ(flame_unit(View::Locks, true), "ns/op");
}

TEST(FlameTree, MergesSortsAndSums) {
  auto in = folded("b;y 1\na;x;1 2\nb;x 3\na;x 4\nb;y 5\n");
  EXPECT_EQ(printed(flame_tree(in)),
            "all 15\n"
            "  a 6\n"
            "    x 6\n"
            "      1 2\n"
            "  b 9\n"
            "    x 3\n"
            "    y 6\n");
}

TEST(FlameTree, DiffTreeHoldsBothSides) {
  auto a = folded("m;f 4\nm;g 2\n");
  auto b = folded("m;f 1\nm;h 3\n");
  EXPECT_EQ(printed(flame_diff_tree(a, b), true),
            "all 6/4\n"
            "  m 6/4\n"
            "    f 4/1\n"
            "    g 2/0\n"
            "    h 0/3\n");
}

// Sorted sides are merged, not sorted again; an unsorted side still is.
TEST(FlameTree, DiffTreeOfUnsortedStacksEqualsSorted) {
  FlameInput sorted_a{{{{"m", "f"}, 4}, {{"m", "g"}, 2}, {{"n"}, 1}}, {}};
  FlameInput sorted_b{{{{"m", "f"}, 1}, {{"m", "h"}, 3}}, {}};
  FlameInput shuffled_a{{{{"n"}, 1}, {{"m", "g"}, 2}, {{"m", "f"}, 4}}, {}};
  FlameInput shuffled_b{{{{"m", "h"}, 3}, {{"m", "f"}, 1}}, {}};
  const std::string want = printed(flame_diff_tree(sorted_a, sorted_b), true);
  EXPECT_EQ(want,
            "all 7/4\n"
            "  m 6/4\n"
            "    f 4/1\n"
            "    g 2/0\n"
            "    h 0/3\n"
            "  n 1/0\n");
  EXPECT_EQ(printed(flame_diff_tree(shuffled_a, sorted_b), true), want);
  EXPECT_EQ(printed(flame_diff_tree(sorted_a, shuffled_b), true), want);
  EXPECT_EQ(printed(flame_diff_tree(shuffled_a, shuffled_b), true), want);
}

TEST(FlameTree, ZeroValuesAddNoFrames) {
  EXPECT_EQ(printed(flame_tree(folded("a;b 0\nc 1\n"))), "all 1\n  c 1\n");
}

}  // namespace
}  // namespace fscost
