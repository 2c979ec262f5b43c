// Flame graph SVG: golden files (FSCOST_BLESS=1 rewrites them), the empty
// graph, pruning, escaping and well-formedness, and the embedded assets.
#include <gtest/gtest.h>

#include <regex>

#include "fixture.h"
#include "flame/flamegraph.h"
#include "flame/svg.h"
#include "flame_test_util.h"
#include "full_fixture.h"
#include "model/file_io.h"

namespace fscost {
namespace {

using test::svg_frame;
using test::svg_frames;
using test::xml_problem;

SvgOptions fixed_options(bool icicle = false) {
  SvgOptions o = flame_svg_options(test::sample_profile(), View::OnCpu, std::nullopt, false);
  o.icicle = icicle;
  return o;
}

FlameInput folded(std::string_view text) {
  return flame_input(take(parse_folded(text, "test", FoldedColumns::One)));
}

std::string asset(const std::string& name) {
  return take(read_whole_file(test::data_path("../../analysis/assets/" + name), "asset"));
}

TEST(FlameSvg, GoldenFlame) {
  auto svg = render_svg(flame_input(test::sample_profile(), View::OnCpu, std::nullopt, false),
                        fixed_options());
  EXPECT_EQ(xml_problem(svg), "");
  test::expect_golden("flame/oncpu.svg", test::without_script(svg));
}

TEST(FlameSvg, GoldenIcicle) {
  auto svg = render_svg(flame_input(test::sample_profile(), View::OnCpu, std::nullopt, false),
                        fixed_options(true));
  EXPECT_EQ(xml_problem(svg), "");
  test::expect_golden("flame/oncpu-icicle.svg", test::without_script(svg));
}

TEST(FlameSvg, GoldenOffCpuOneOpPerOp) {
  Profile p = test::full_profile();
  auto opt = flame_svg_options(p, View::OffCpu, std::string("create"), true);
  auto svg = render_svg(flame_input(p, View::OffCpu, std::string("create"), true), opt);
  EXPECT_EQ(xml_problem(svg), "");
  test::expect_golden("flame/offcpu-create-per-op.svg", test::without_script(svg));
}

TEST(FlameSvg, TitleSubtitleAndMetadata) {
  auto o = fixed_options();
  EXPECT_EQ(o.title, "On-CPU flame graph");
  EXPECT_EQ(o.subtitle,
            "fsops create 1000 | testhost | kernel 6.8.0-test | 4 CPUs | 999 Hz | 2.00 s | "
            "fscost 0.1.0");
  EXPECT_EQ(o.unit, "samples");
  auto per_op = flame_svg_options(test::sample_profile(), View::Locks, std::string("create"), true);
  EXPECT_EQ(per_op.title, "Lock wait flame graph: create, cost per operation");
  EXPECT_EQ(per_op.unit, "ns/op");
}

TEST(FlameSvg, FramesNestAndShowValueAndShares) {
  auto svg = render_svg(flame_input(test::sample_profile(), View::OnCpu, std::nullopt, false),
                        fixed_options());
  auto all = svg_frame(svg, "all");
  auto create = svg_frame(svg, "create");
  auto trans = svg_frame(svg, "xfs_trans_alloc");
  EXPECT_EQ(all.title, "all (745 samples, 100.00%)");
  EXPECT_EQ(trans.title, "xfs_trans_alloc (150 samples, 20.13%, 30.00% of create)");
  EXPECT_NEAR(create.w / all.w, 500.0 / 745, 1e-4);
  EXPECT_GE(trans.x, create.x);
  EXPECT_LE(trans.x + trans.w, create.x + create.w + 1e-3);
  EXPECT_LT(trans.y, create.y);  // flame: leaves above roots
  auto icicle = render_svg(flame_input(test::sample_profile(), View::OnCpu, std::nullopt, false),
                           fixed_options(true));
  EXPECT_GT(svg_frame(icicle, "xfs_trans_alloc").y, svg_frame(icicle, "create").y);
}

TEST(FlameSvg, ColoursAreDeterministicAndByKind) {
  auto in = folded("create;vfs_write 1\n[user];main 1\n[kthread:kworker];vfs_write 1\n");
  auto svg = render_svg(in, {});
  EXPECT_EQ(svg, render_svg(in, {}));
  auto fill = [&](const std::string& name, std::size_t nth = 0) {
    return svg_frame(svg, name, nth).fill;
  };
  // The same kernel function has the same colour wherever it is.
  EXPECT_EQ(fill("vfs_write", 0), fill("vfs_write", 1));
  EXPECT_NE(fill("create"), fill("[user]"));
  EXPECT_NE(fill("[user]"), fill("[kthread:kworker]"));
}

TEST(FlameSvg, EmptyInputSaysNoSamples) {
  for (const auto& svg : {render_svg({}, {}), render_svg(folded("a 0\n"), {})}) {
    EXPECT_EQ(xml_problem(svg), "");
    EXPECT_NE(svg.find(">no samples</text>"), std::string::npos);
    EXPECT_TRUE(svg_frames(svg).empty());
  }
}

TEST(FlameSvg, PrunedFramesAreCountedAndStated) {
  // 1000 px across: "big" 99.9%, and 2 + 1 frames of 0.05% (0.5 px) under
  // a 0.6 px threshold.
  auto in = folded("big 9990\ntiny;leaf 5\nsmall 5\n");
  SvgOptions o;
  o.width = 1020;
  o.min_width_px = 0.6;
  auto svg = render_svg(in, o);
  EXPECT_EQ(svg_frames(svg).size(), 2u);  // all, big
  EXPECT_NE(svg.find("3 frames below 0.6 px pruned (0.10% of total)"), std::string::npos);
  o.min_width_px = 0.01;
  auto full = render_svg(in, o);
  EXPECT_EQ(svg_frames(full).size(), 5u);
  EXPECT_EQ(full.find("pruned"), std::string::npos);
}

TEST(FlameSvg, NamesAreEscaped) {
  auto svg = render_svg(folded("a<b>&c;\"q'\" 2\nbad\x01\xff 1\n"), {});
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_NE(svg.find("<title>a&lt;b&gt;&amp;c (2 samples"), std::string::npos);
  EXPECT_NE(svg.find(">a&lt;b&gt;&amp;c</text>"), std::string::npos);
  EXPECT_NE(svg.find("&quot;q&apos;&quot; (2"), std::string::npos);
  // Control characters and invalid UTF-8 cannot appear in XML at all.
  EXPECT_NE(svg.find("bad\xEF\xBF\xBD\xEF\xBF\xBD (1"), std::string::npos);
  // Nor C1 controls (CSI is U+009B), which XML allows: an SVG may be
  // printed to a terminal (-o -). Other UTF-8 stays.
  auto c1 = render_svg(folded("csi\xc2\x9b" "31m\xc2\x80 \xe2\x82\xac 1\n"), {});
  EXPECT_EQ(c1.find("\xc2\x9b"), std::string::npos);
  EXPECT_EQ(c1.find("\xc2\x80"), std::string::npos);
  EXPECT_NE(c1.find("csi\xEF\xBF\xBD" "31m\xEF\xBF\xBD \xe2\x82\xac (1"), std::string::npos);
  SvgOptions o;
  o.title = "</svg><script>&";
  EXPECT_EQ(xml_problem(render_svg(folded("x 1\n"), o)), "");
}

// Values whose total cannot be scaled to pixels: a folded count of 5e-324
// made the scale infinite and a width cast to a character count undefined;
// counts of 1e308 add up to infinity. Refused with a clear error; tiny but
// drawable totals still draw.
TEST(FlameSvg, TotalsThatCannotBeScaledAreRefused) {
  auto refused = [](const std::string& text) -> std::string {
    try {
      render_svg(folded(text), {});
    } catch (const UserError& e) {
      return e.what();
    }
    return "drawn";
  };
  EXPECT_EQ(refused("a;b 5e-324\n"),
            "cannot draw the flame graph: the values add up to 5e-324, below 1e-300, too small "
            "to scale to pixels");
  EXPECT_EQ(refused("a;b 1e-310\na;c 1e-305\n"),
            "cannot draw the flame graph: the values add up to 1.00001e-305, below 1e-300, too "
            "small to scale to pixels");
  EXPECT_EQ(refused("a;b 1e308\na;c 1e308\n"),
            "cannot draw the flame graph: the values add up to inf, beyond the largest number "
            "(1.79769e+308)");
  EXPECT_EQ(refused("a;b 1e-300\n"), "drawn");
  EXPECT_EQ(refused("a;b 1e308\n"), "drawn");
  EXPECT_EQ(refused("a;b 0\n"), "drawn");  // "no samples"
  // A differential graph checks both sides, whichever sets the widths.
  DiffOptions d;
  EXPECT_THROW(render_diff_svg(folded("a;b 1e308\na;c 1e308\n"), folded("a;b 1\n"), d),
               UserError);
  EXPECT_THROW(render_diff_svg(folded("a;b 1\n"), folded("a;b 5e-324\n"), d), UserError);
  d.width = DiffWidth::A;
  EXPECT_THROW(render_diff_svg(folded("a;b 1\n"), folded("a;b 1e308\na;b 1e308\n"), d), UserError);
  EXPECT_EQ(xml_problem(render_diff_svg(folded("a;b 1e-300\n"), folded("a;b 2e-300\n"), d)), "");
}

TEST(FlameSvg, XmlCheckerCatchesProblems) {
  EXPECT_EQ(xml_problem("<a><b/></a>"), "");
  EXPECT_NE(xml_problem("<a><b></a>"), "");
  EXPECT_NE(xml_problem("<a>x & y</a>"), "");
  EXPECT_NE(xml_problem("<a t=\"<\"/>"), "");
  EXPECT_NE(xml_problem("<a>"), "");
}

TEST(FlameSvg, EmbedsTheAssetsVerbatim) {
  auto svg = render_svg(folded("x 1\n"), {});
  EXPECT_NE(svg.find("<script type=\"text/ecmascript\"><![CDATA[\n" + asset("flamegraph.js") +
                     "]]></script>"),
            std::string::npos)
      << "flame_assets.cpp is stale: rebuild";
  EXPECT_NE(svg.find("<![CDATA[\n" + asset("flamegraph.css") + "]]></style>"), std::string::npos);
  // Self-contained: no links, and no URL but the SVG namespace.
  EXPECT_EQ(svg.find("href"), std::string::npos);
  std::regex url("https?://[^\"]*");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), url); it != std::sregex_iterator();
       ++it)
    EXPECT_EQ(it->str(), "http://www.w3.org/2000/svg");
}

TEST(FlameSvg, LabelsFitTheirFrames) {
  auto svg = render_svg(folded("a_rather_long_function_name 10\nshort 60\n"), {});
  auto long_one = svg_frame(svg, "a_rather_long_function_name");
  ASSERT_TRUE(long_one.label.has_value());
  EXPECT_EQ(long_one.label->substr(long_one.label->size() - 2), "..");
  EXPECT_LE(static_cast<double>(long_one.label->size()) * 12 * 0.59, long_one.w);
  EXPECT_EQ(svg_frame(svg, "short").label, "short");
}

// A subtitle wider than the graph is broken at " | ", then at spaces,
// instead of running past both edges (it is centred).
TEST(FlameSvg, LongHeaderLinesAreBrokenToFit) {
  std::string part(60, 'x');
  std::vector<std::string> lines = flame::fit_lines(
      {"short", part + " | " + part + " | " + part, "a " + std::string(300, 'y')}, 1200);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], "short");
  EXPECT_EQ(lines[1], part + " | " + part);
  EXPECT_EQ(lines[2], part);
  EXPECT_EQ(lines[3], "a");
  EXPECT_EQ(lines[4], std::string(300, 'y'));  // one word: kept whole
  auto o = fixed_options();
  o.subtitle = std::string(100, 'a') + " | " + std::string(100, 'b');
  auto svg = render_svg(folded("main;f 1\n"), o);
  EXPECT_NE(svg.find(">" + std::string(100, 'a') + "</text>"), std::string::npos);
  EXPECT_NE(svg.find(">" + std::string(100, 'b') + "</text>"), std::string::npos);
}

}  // namespace
}  // namespace fscost
