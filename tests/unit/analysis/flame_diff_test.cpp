// Differential flame graphs: widths from the chosen side, colour sign and
// intensity, vanished paths kept visible, per-op normalisation, the
// significance hook, and a golden file (FSCOST_BLESS=1 rewrites it).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <regex>
#include <span>
#include <string_view>

#include "fixture.h"
#include "flame_test_util.h"
#include "flame/flamegraph.h"

namespace fscost {
namespace {

using test::svg_frame;
using test::svg_frames;
using test::xml_problem;

FlameInput folded(std::string_view text) {
  return flame_input(take(parse_folded(text, "test", FoldedColumns::One)));
}

struct Rgb {
  int r, g, b;
};

Rgb rgb(const std::string& fill) {
  std::smatch m;
  static const std::regex re(R"(rgb\((\d+),(\d+),(\d+)\))");
  if (!std::regex_match(fill, m, re)) {
    ADD_FAILURE() << "not an rgb() fill: " << fill;
    return {};
  }
  return {std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3])};
}

bool red(const std::string& fill) {
  auto c = rgb(fill);
  return c.r == 255 && c.g < 250 && c.g == c.b;
}
bool blue(const std::string& fill) {
  auto c = rgb(fill);
  return c.b == 255 && c.r < 250 && c.r == c.g;
}
bool neutral(const std::string& fill) { return fill == "rgb(250,250,250)"; }

// A: main spends 4 in f and 2 in g; B: 1 in f, none in g, 3 in new h.
const char* kA = "main;f 4\nmain;g 2\n";
const char* kB = "main;f 1\nmain;h 3\n";

DiffOptions options(DiffWidth w = DiffWidth::B, DiffColor c = DiffColor::Inclusive) {
  DiffOptions o;
  o.svg.unit = "samples";
  o.svg.width = 1020;  // 1000 px of frames
  o.width = w;
  o.color = c;
  return o;
}

TEST(FlameDiff, WidthsFromBWithVanishedPathsHatchedAtAsWidth) {
  auto svg = render_diff_svg(folded(kA), folded(kB), options());
  EXPECT_EQ(xml_problem(svg), "");
  auto f = svg_frame(svg, "f"), g = svg_frame(svg, "g"), h = svg_frame(svg, "h");
  auto all = svg_frame(svg, "all");
  // B has 4 in total; g (gone in B) borrows A's 2: the graph spans 6.
  EXPECT_NEAR(all.w, 1000, 1e-3);
  EXPECT_NEAR(f.w, 1000.0 * 1 / 6, 1e-3);
  EXPECT_NEAR(h.w, 1000.0 * 3 / 6, 1e-3);
  EXPECT_NEAR(g.w, 1000.0 * 2 / 6, 1e-3);
  EXPECT_EQ(g.fill, "url(#fg-gone)");
  EXPECT_EQ(g.cls, "fg-borrowed");
  EXPECT_EQ(g.title, "g (A 2 samples, B 0 samples, Δ -2 samples, -100.0%, gone in B)");
  EXPECT_EQ(h.title, "h (A 0 samples, B 3 samples, Δ +3 samples, new in B)");
  EXPECT_EQ(f.title, "f (A 4 samples, B 1 samples, Δ -3 samples, -75.0%)");
  EXPECT_NE(svg.find("hatched: gone in B, drawn with A&apos;s width"), std::string::npos);
}

TEST(FlameDiff, WidthsFromAOrMax) {
  auto a_svg = render_diff_svg(folded(kA), folded(kB), options(DiffWidth::A));
  // A has 6; h (new in B) borrows B's 3: 9 in all.
  EXPECT_NEAR(svg_frame(a_svg, "f").w, 1000.0 * 4 / 9, 1e-3);
  EXPECT_NEAR(svg_frame(a_svg, "g").w, 1000.0 * 2 / 9, 1e-3);
  EXPECT_EQ(svg_frame(a_svg, "h").fill, "url(#fg-new)");
  auto max_svg = render_diff_svg(folded(kA), folded(kB), options(DiffWidth::Max));
  // max(f) 4 + max(g) 2 + max(h) 3 = 9 under main (max 6 itself).
  EXPECT_NEAR(svg_frame(max_svg, "f").w, 1000.0 * 4 / 9, 1e-3);
  EXPECT_NEAR(svg_frame(max_svg, "h").w, 1000.0 * 3 / 9, 1e-3);
  EXPECT_TRUE(svg_frame(max_svg, "g").cls.empty());  // nothing borrowed
  EXPECT_TRUE(blue(svg_frame(max_svg, "g").fill));
}

TEST(FlameDiff, RedIsMoreInBBlueLessIntensityByDelta) {
  auto svg = render_diff_svg(folded("m;up 1\nm;down 5\nm;same 2\nm;bit 2\n"),
                             folded("m;up 5\nm;down 2\nm;same 2\nm;bit 3\n"), options());
  auto up = svg_frame(svg, "up"), down = svg_frame(svg, "down"), bit = svg_frame(svg, "bit");
  EXPECT_TRUE(red(up.fill)) << up.fill;
  EXPECT_TRUE(blue(down.fill)) << down.fill;
  EXPECT_TRUE(neutral(svg_frame(svg, "same").fill));
  EXPECT_TRUE(red(bit.fill));
  // |Δ| 4 is the largest: full intensity; |Δ| 3 and 1 proportionally less.
  EXPECT_EQ(rgb(up.fill).g, 40);
  EXPECT_EQ(rgb(down.fill).r, 93);  // 250 - 210 * 3/4, rounded
  EXPECT_GT(rgb(bit.fill).g, rgb(down.fill).r);
  EXPECT_NE(svg.find("Red: more in B. Blue: less in B."), std::string::npos);
  // Without a significance hook nothing is grey, and the legend says no
  // more.
  EXPECT_EQ(svg.find("Grey"), std::string::npos);
}

TEST(FlameDiff, SelfColourUsesTheFramesOwnDelta) {
  // m's inclusive Δ is +2 but its self Δ is 0: all change is in leaf.
  auto a = folded("m 1\nm;leaf 1\n"), b = folded("m 1\nm;leaf 3\n");
  auto incl = render_diff_svg(a, b, options());
  EXPECT_TRUE(red(svg_frame(incl, "m").fill));
  auto self = render_diff_svg(a, b, options(DiffWidth::B, DiffColor::Self));
  EXPECT_TRUE(neutral(svg_frame(self, "m").fill));
  EXPECT_TRUE(red(svg_frame(self, "leaf").fill));
  EXPECT_NE(svg_frame(self, "m").title.find("self Δ 0 samples"), std::string::npos);
}

TEST(FlameDiff, PerOpNormalisation) {
  // B ran twice as many creates with the same cost per create, and unlink
  // got 50% dearer per operation.
  Profile a = test::sample_profile();
  Profile b = a;
  b.ops[0].count *= 2;  // create
  for (auto& s : b.samples)
    if (s.kind == SampleKind::Op && s.name == "create")
      s.count *= 2;
    else if (s.kind == SampleKind::Op && s.name == "unlink")
      s.count = s.count * 3 / 2;
  auto o = options();
  o.svg.unit = flame_unit(View::OnCpu, true);
  auto svg = render_diff_svg(flame_input(a, View::OnCpu, std::nullopt, true),
                             flame_input(b, View::OnCpu, std::nullopt, true), o);
  for (const char* same : {"create", "xfs_create", "xfs_trans_alloc", "lookup_open"})
    EXPECT_TRUE(neutral(svg_frame(svg, same).fill)) << same;
  for (const char* dearer : {"unlink", "do_unlinkat", "xfs_remove"})
    EXPECT_TRUE(red(svg_frame(svg, dearer).fill)) << dearer;
  EXPECT_EQ(svg_frame(svg, "unlink").title,
            "unlink (A 0.2 samples/op, B 0.3 samples/op, Δ +0.1 samples/op, +50.0%)");
}

TEST(FlameDiff, InsignificantFramesAreGrey) {
  auto o = options();
  o.significant = [](std::span<const std::string_view> path) -> std::optional<bool> {
    if (path.size() == 2 && path[0] == "main" && path[1] == "f") return false;
    if (path.size() == 1) return std::nullopt;
    return true;
  };
  auto svg = render_diff_svg(folded(kA), folded(kB), o);
  EXPECT_EQ(svg_frame(svg, "f").fill, "rgb(195,195,195)");
  EXPECT_TRUE(blue(svg_frame(svg, "main").fill));
  EXPECT_EQ(svg_frame(svg, "g").fill, "url(#fg-gone)");
  EXPECT_NE(svg.find("Grey: not significant."), std::string::npos);
  // A hook under which every change is significant greys nothing: the
  // legend names no grey.
  o.significant = [](std::span<const std::string_view>) -> std::optional<bool> { return true; };
  svg = render_diff_svg(folded(kA), folded(kB), o);
  EXPECT_EQ(svg.find("rgb(195,195,195)"), std::string::npos);
  EXPECT_EQ(svg.find("Grey"), std::string::npos);
}

// fscost flamegraph --diff on profiles: time per operation, on-CPU samples
// at each profile's own rate, so profiles sampled at different rates
// compare (and the graph reads in µs/op like the diff page).
TEST(FlameDiff, NsPerOpFromEachProfilesRate) {
  Profile a = test::sample_profile();
  Profile b = a;
  b.meta.freq_hz = 2 * a.meta.freq_hz;
  for (auto& s : b.samples) s.count *= 2;  // the same time, sampled twice as often
  auto ta = flame_input_ns_per_op(a, View::OnCpu, std::nullopt);
  auto tb = flame_input_ns_per_op(b, View::OnCpu, std::nullopt);
  ASSERT_TRUE(ta && tb);
  auto per_op = flame_input(a, View::OnCpu, std::nullopt, true);
  ASSERT_EQ(ta->stacks.size(), per_op.stacks.size());
  for (std::size_t i = 0; i < per_op.stacks.size(); ++i) {
    EXPECT_DOUBLE_EQ(ta->stacks[i].second, per_op.stacks[i].second * 1e9 / a.meta.freq_hz);
    EXPECT_DOUBLE_EQ(tb->stacks[i].second, ta->stacks[i].second);
  }
  auto o = options();
  o.svg.unit = "ns/op";
  for (const auto& f : svg_frames(render_diff_svg(*ta, *tb, o)))
    EXPECT_TRUE(neutral(f.fill) || f.title.rfind("all (", 0) == 0) << f.title;
  // Off-CPU values are ns already; on-CPU without a rate has no time.
  auto off = flame_input_ns_per_op(a, View::OffCpu, std::nullopt);
  ASSERT_TRUE(off);
  EXPECT_EQ(off->stacks, flame_input(a, View::OffCpu, std::nullopt, true).stacks);
  a.meta.freq_hz = 0;
  EXPECT_FALSE(flame_input_ns_per_op(a, View::OnCpu, std::nullopt));
}

TEST(FlameDiff, IdenticalInputsAreNeutralAndEmptyIsValid) {
  auto svg = render_diff_svg(folded(kA), folded(kA), options());
  for (const auto& f : svg_frames(svg)) {
    if (f.title.rfind("all (", 0) != 0) {
      EXPECT_TRUE(neutral(f.fill)) << f.title;
    }
  }
  EXPECT_EQ(diff_folded(folded(kA), folded(kA)), "main;f 4 4\nmain;g 2 2\n");
  auto empty = render_diff_svg({}, {}, options());
  EXPECT_EQ(xml_problem(empty), "");
  EXPECT_NE(empty.find(">no samples</text>"), std::string::npos);
}

TEST(FlameDiff, GoldenDiff) {
  Profile a = test::sample_profile();
  Profile b = a;
  b.samples[1].count = 400;  // create → xfs_trans_alloc: dearer
  b.samples[2].count = 0;    // create → lookup_open: gone
  b.samples.push_back({SampleKind::Op, "unlink",
                       test::stack({"__x64_sys_unlink", "do_unlinkat", "xfs_inactive"}), 25});
  DiffOptions o;
  o.svg = flame_svg_options(b, View::OnCpu, std::nullopt, true);
  o.svg.title = "Differential on-CPU flame graph, cost per operation";
  auto svg = render_diff_svg(flame_input(a, View::OnCpu, std::nullopt, true),
                             flame_input(b, View::OnCpu, std::nullopt, true), o);
  EXPECT_EQ(xml_problem(svg), "");
  test::expect_golden("flame/diff-oncpu-per-op.svg", test::without_script(svg));
}

// The HTML report redraws a graph at growing pruning widths from one
// DiffGraph: each drawing must be what render_diff_svg draws at that width,
// with the significance hook asked once per frame.
TEST(FlameDiff, DiffGraphRedrawsAsRenderDiffSvg) {
  std::string text;
  for (int k = 0; k < 200; ++k)
    text += "main;f;k" + std::to_string(k) + " " + std::to_string(k % 7 + 1) + "\n";
  FlameInput a = folded(kA + text), b = folded(kB + text);
  auto hook = [](std::span<const std::string_view> path) -> std::optional<bool> {
    return path.size() != 2;
  };
  auto o = options();
  auto asked = std::make_shared<int>(0);
  o.significant = [asked, hook](std::span<const std::string_view> path) {
    ++*asked;
    return hook(path);
  };
  DiffGraph graph(a, b, o);
  int first = 0;
  for (double px : {0.1, 0.8, 3.2, 0.1}) {
    auto expected = options();
    expected.significant = hook;
    expected.svg.min_width_px = px;
    std::string svg = graph.render(px);
    EXPECT_EQ(svg, render_diff_svg(a, b, expected)) << px;
    EXPECT_NE(svg.find("rgb(195,195,195)"), std::string::npos);
    if (!first) first = *asked;
  }
  EXPECT_GT(first, 200);
  EXPECT_EQ(*asked, first);  // every frame asked once, on the first drawing
}

// flamegraph --diff of folded files draws from the parsed stacks without
// copying them: the graph of flame_input's stacks, less those under other
// roots with --op, and of both columns of a difffolded.pl file.
TEST(FlameDiff, FoldedStacksDrawAsTheirFlameInputs) {
  std::string ta, tb;
  for (int k = 0; k < 300; ++k) {
    std::string root = k % 3 ? "create" : "unlink";
    ta += fmt::format("{};f{};g{} {}\n", root, k % 17, k % 5, k % 7 + 1);
    tb += fmt::format("{};f{};h{} {}\n", root, k % 13, k % 4, k % 5 + 1);
  }
  ta += "create 0\n;x 3\n";  // a zero value and an empty root frame
  const InternedFolded fa = take(parse_folded_interned(ta, "a", FoldedColumns::One));
  const InternedFolded fb = take(parse_folded_interned(tb, "b", FoldedColumns::One));
  for (const std::optional<std::string>& root :
       {std::optional<std::string>(), std::optional<std::string>("create"),
        std::optional<std::string>("nosuch")})
    for (auto c : {DiffColor::Inclusive, DiffColor::Self}) {
      SCOPED_TRACE(root.value_or("all"));
      FlameInput ia = flame_input(fa), ib = flame_input(fb);
      if (root)
        for (FlameInput* in : {&ia, &ib})
          std::erase_if(in->stacks, [&](const FlameStack& st) {
            return st.first.empty() || st.first.front() != *root;
          });
      DiffGraph graph(fa, 0, fb, 0, root, options(DiffWidth::B, c));
      for (double px : {0.1, 2.0, 40.0}) {
        auto o = options(DiffWidth::B, c);
        o.svg.min_width_px = px;
        EXPECT_EQ(graph.render(px), render_diff_svg(ia, ib, o)) << px;
      }
    }
  const InternedFolded two = take(parse_folded_interned(diff_folded(flame_input(fa), flame_input(fb)),
                                                        "ab", FoldedColumns::Detect));
  ASSERT_TRUE(two.two_column);
  EXPECT_EQ(DiffGraph(two, 0, two, 1, std::nullopt, options()).render(0.1),
            render_diff_svg(flame_input(two, 0), flame_input(two, 1), options()));
}

// A graph keeps only what it can draw at its own pruning width, so it
// cannot be drawn narrower.
TEST(FlameDiff, DiffGraphIsNotDrawnBelowItsPruningWidth) {
  auto o = options();
  o.svg.min_width_px = 1.0;
  DiffGraph graph(folded(kA), folded(kB), o);
  EXPECT_NO_THROW(graph.render(1.0));
  EXPECT_THROW(graph.render(0.5), std::invalid_argument);
}

}  // namespace
}  // namespace fscost
