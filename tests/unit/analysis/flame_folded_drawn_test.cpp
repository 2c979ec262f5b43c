// A single graph of folded stacks drawn with only its drawn frames made
// (render_folded_svg) is, byte for byte, the graph of the merged tree of
// flame_input's stacks, as `fscost flamegraph x.folded` drew it before.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "flame/flamegraph.h"
#include "full_fixture.h"
#include "model/file_io.h"
#include "report/report.h"

namespace fscost {
namespace {

// The graph through the whole tree: what the command drew before.
std::string tree_svg(const InternedFolded& folded, const std::optional<std::string>& root,
                     const SvgOptions& opt) {
  FlameInput in = flame_input(folded);
  if (root)
    std::erase_if(in.stacks, [&](const FlameStack& st) {
      return st.first.empty() || st.first.front() != *root;
    });
  return render_tree_svg(FlameTree{flame_tree(in), in.skipped}, opt);
}

// Random walks down a small call graph under three roots, in walk order
// (not sorted), with skewed and fractional counts, zeros, repeated stacks,
// and a stack cut at the depth limit.
std::string walks_folded(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> callee(0, 5), depth(1, 12), root(0, 2), count(0, 1000);
  const char* roots[] = {"create", "unlink", "[kernel]"};
  std::string out;
  for (int i = 0; i < 4000; ++i) {
    std::string line = roots[root(rng)];
    int f = root(rng);
    for (int d = depth(rng); d > 0; --d) {
      f = (f * 7 + callee(rng)) % 50;
      line += fmt::format(";fn{}", f);
    }
    int c = count(rng);
    std::string value = c > 990   ? fmt::format("{}", 1000000 + c)
                        : c < 10  ? "0"
                        : c < 100 ? fmt::format("{}.{}", c % 7, c)
                                  : fmt::format("{}", c % 7 + 1);
    out += fmt::format("{} {}\n", line, value);
    if (c % 13 == 0) out += fmt::format("{} {}\n", line, value);  // the same stack again
  }
  std::string deep = "create";
  for (std::size_t d = 0; d < kMaxStackDepth + 5; ++d) deep += fmt::format(";deep{}", d % 3);
  return out + deep + " 3\n";
}

std::vector<std::pair<std::string, std::string>> fixtures() {
  std::vector<std::pair<std::string, std::string>> out;
  const std::filesystem::path data = FSCOST_TEST_DATA;
  for (const auto& p : {data / "full-oncpu.folded", data / "full-offcpu.folded",
                        data / "full-locks.folded", data / "formats" / "perf-script-x86_64.folded",
                        data / ".." / "fuzz" / "corpus" / "folded" / "full-oncpu.folded"}) {
    auto text = read_whole_file(p.string(), "folded stacks");
    EXPECT_TRUE(text) << p;
    if (text) out.emplace_back(p.filename().string(), std::move(text.value()));
  }
  for (View view : kViews) {
    ReportOptions opt;
    opt.view = view;
    out.emplace_back(fmt::format("full profile, {}", view_name(view)),
                     render_folded(test::full_profile(), opt));
  }
  out.emplace_back("walks", walks_folded(1));
  out.emplace_back("walks 2", walks_folded(2));
  out.emplace_back("empty", "");
  out.emplace_back("zeros", "a;b 0\nc 0\n");
  return out;
}

const std::vector<std::optional<std::string>> kRoots = {std::nullopt, "create", "unlink", "nosuch"};

TEST(FlameFoldedDrawn, EqualsTheTreesSvg) {
  for (const auto& [name, text] : fixtures()) {
    auto folded = parse_folded_interned(text, name);
    ASSERT_TRUE(folded) << name << ": " << folded.error().message;
    ASSERT_FALSE(folded.value().two_column) << name;
    for (const std::optional<std::string>& root : kRoots)
      for (double min_px : {0.0, 0.1, 4.0, 5000.0})
        for (bool icicle : {false, true}) {
          SCOPED_TRACE(
              fmt::format("{} {} min {} icicle {}", name, root.value_or("all"), min_px, icicle));
          SvgOptions opt;
          opt.subtitle = name;
          opt.min_width_px = min_px;
          opt.icicle = icicle;
          std::string tree = tree_svg(folded.value(), root, opt);
          std::string drawn = render_folded_svg(folded.value(), root, opt);
          EXPECT_EQ(drawn.size(), tree.size());
          EXPECT_TRUE(drawn == tree);
        }
  }
}

// Values that cannot be scaled to pixels are refused as the tree's layout
// refuses them, with its message.
TEST(FlameFoldedDrawn, RefusesWhatTheLayoutRefuses) {
  for (const char* text : {"a 1e308\nb 1e308\n", "a 5e-324\n"}) {
    auto folded = parse_folded_interned(text, "x.folded");
    ASSERT_TRUE(folded);
    std::string tree_error, drawn_error;
    try {
      tree_svg(folded.value(), std::nullopt, {});
    } catch (const UserError& e) {
      tree_error = e.what();
    }
    try {
      render_folded_svg(folded.value(), std::nullopt, {});
    } catch (const UserError& e) {
      drawn_error = e.what();
    }
    EXPECT_NE(tree_error, "") << text;
    EXPECT_EQ(drawn_error, tree_error) << text;
  }
}

}  // namespace
}  // namespace fscost
