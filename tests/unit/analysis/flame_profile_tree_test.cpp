// The flame trees built straight from a profile's interned stacks equal,
// bit for bit, the trees of flame_input's stacks (the path through a
// FlameInput), and draw the same SVG.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "fixture.h"
#include "flame/flamegraph.h"
#include "full_fixture.h"
#include "io/profile_io.h"

namespace fscost {
namespace {

bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

// Names, exact values and child order; the first difference, "" if none.
std::string difference(const FlameNode& x, const FlameNode& y, const std::string& at = "") {
  std::string here = at + "/" + x.name.str();
  if (x.name != y.name) return here + " vs " + y.name.str();
  if (!same_bits(x.value, y.value) || !same_bits(x.value_b, y.value_b))
    return fmt::format("{}: {:a}/{:a} vs {:a}/{:a}", here, x.value, x.value_b, y.value, y.value_b);
  if (x.children.size() != y.children.size())
    return fmt::format("{}: {} vs {} children", here, x.children.size(), y.children.size());
  for (std::size_t i = 0; i < x.children.size(); ++i)
    if (auto d = difference(x.children[i], y.children[i], here); !d.empty()) return d;
  return "";
}

// Frames that sanitizing makes equal ("a;b" and "a:b"), an op with no
// completed operations, two ops of one name, stacks out of order (prefixes
// after the stacks they begin), and per-op divisions that do
// not come out even, so a different order of additions would show.
Profile awkward_profile() {
  Profile p = test::full_profile();
  p.samples.push_back({SampleKind::Op, "create", test::stack({"x;y"}), 7});
  p.samples.push_back({SampleKind::Op, "create", test::stack({"x:y"}), 11});
  p.samples.push_back({SampleKind::Op, "create", test::stack({"x\ny", "z"}), 13});
  p.samples.push_back({SampleKind::Op, "rename", test::stack({"vfs_rename"}), 3});
  p.ops.push_back({"rename", 0, 0, 0, 0, {}});
  p.ops.push_back({"unlink", 3, 0, 0, 0, {}});
  // Many children out of order, each twice: the lookup through the index.
  for (int round = 0; round < 2; ++round)
    for (int k = 0; k < 40; ++k)
      p.samples.push_back(
          {SampleKind::Op, "unlink", test::stack({fmt::format("f{}", (k * 17) % 40)}), 1});
  // Stacks that are prefixes of others, out of order and more than a small
  // sort takes at once: the records' order puts each prefix first.
  for (int k = 0; k < 60; ++k) {
    Stack s = test::stack({"vfs_unlink", "xfs_remove"});
    for (int d = 0; d < (k * 7) % 5; ++d) s.emplace_back(std::string_view(d % 2 ? "b" : "a"));
    p.samples.push_back({SampleKind::Op, "unlink", s, 1});
  }
  for (auto& s : p.samples) s.count = s.count * 7 + 1;
  for (auto& o : p.ops)
    if (o.count > 0) o.count = o.count * 3 + 1;
  return p;
}

std::vector<std::pair<std::string, Profile>> profiles() {
  std::vector<std::pair<std::string, Profile>> out = {
      {"sample", test::sample_profile()},
      {"full", test::full_profile()},
      {"awkward", awkward_profile()},
  };
  auto real = read_profile(std::string(FSCOST_TEST_DATA) + "/full-profile.json");
  EXPECT_TRUE(real) << real.error().message;
  if (real) out.emplace_back("full-profile.json", std::move(real.value()));
  return out;
}

const std::vector<std::optional<std::string>> kOps = {std::nullopt, "create", "unlink", "nosuch"};

TEST(FlameProfileTree, EqualsTheTreeOfFlameInput) {
  for (const auto& [name, p] : profiles())
    for (View view : kViews)
      for (const auto& op : kOps)
        for (bool per_op : {false, true}) {
          SCOPED_TRACE(fmt::format("{} {} {} per_op={}", name, view_name(view),
                                   op.value_or("all"), per_op));
          FlameInput in = flame_input(p, view, op, per_op);
          FlameTree t = flame_tree(p, view, op, per_op);
          EXPECT_EQ(difference(t.root, flame_tree(in)), "");
          EXPECT_EQ(t.skipped, in.skipped);
          SvgOptions opt = flame_svg_options(p, view, op, per_op);
          EXPECT_EQ(render_tree_svg(t, opt), render_svg(in, opt));
        }
}

// Random walks down a small call graph, in walk order (not sorted) and
// with skewed counts: a tree wide and deep enough that most of it is
// pruned at 0.1 px, and equal stacks repeated.
Profile walks_profile(unsigned seed) {
  Profile p = test::full_profile();
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> callee(0, 5), depth(1, 12), op(0, 2), count(1, 1000);
  const char* ops[] = {"create", "unlink", "rename"};
  for (int i = 0; i < 4000; ++i) {
    Stack frames;
    int f = op(rng);
    for (int d = depth(rng); d > 0; --d) {
      f = (f * 7 + callee(rng)) % 50;
      frames.emplace_back(fmt::format("fn{}", f));
    }
    int c = count(rng);
    p.samples.push_back(
        {SampleKind::Op, ops[op(rng)], frames, c > 990 ? 1000000u + c : c % 7 + 1u});
  }
  return p;
}

// The SVG drawn with only its drawn frames made is the tree's, byte for
// byte: every value, span, position and the pruned note.
TEST(FlameProfileTree, RenderProfileSvgEqualsTheTreesSvg) {
  auto all = profiles();
  all.emplace_back("walks", walks_profile(1));
  all.emplace_back("walks 2", walks_profile(2));
  for (const auto& [name, p] : all)
    for (View view : kViews)
      for (const auto& op : kOps)
        for (bool per_op : {false, true})
          for (double min_px : {0.0, 0.1, 4.0, 5000.0}) {
            SCOPED_TRACE(fmt::format("{} {} {} per_op={} min {}", name, view_name(view),
                                     op.value_or("all"), per_op, min_px));
            SvgOptions opt = flame_svg_options(p, view, op, per_op);
            opt.min_width_px = min_px;
            std::string tree = render_tree_svg(flame_tree(p, view, op, per_op), opt);
            std::string drawn = render_profile_svg(p, view, op, per_op, opt);
            EXPECT_EQ(drawn.size(), tree.size());
            EXPECT_TRUE(drawn == tree);
          }
}

TEST(FlameProfileTree, DiffTreesEqualTheTreesOfFlameInput) {
  auto ps = profiles();
  for (const auto& [name_a, a] : ps)
    for (const auto& [name_b, b] : ps)
      for (View view : kViews)
        for (const auto& op : kOps) {
          SCOPED_TRACE(fmt::format("{} vs {} {} {}", name_a, name_b, view_name(view),
                                   op.value_or("all")));
          for (bool per_op : {false, true})
            EXPECT_EQ(difference(flame_diff_tree(a, b, view, op, per_op),
                                 flame_diff_tree(flame_input(a, view, op, per_op),
                                                 flame_input(b, view, op, per_op))),
                      "");
          auto ta = flame_input_ns_per_op(a, view, op);
          auto tb = flame_input_ns_per_op(b, view, op);
          auto direct = flame_diff_tree_ns_per_op(a, b, view, op);
          ASSERT_EQ(direct.has_value(), ta && tb);
          if (direct) {
            EXPECT_EQ(difference(*direct, flame_diff_tree(*ta, *tb)), "");
          }
        }
}

// The differential graph drawn from each side's stacks in tree order is
// the merged tree's, byte for byte, at every width and colour rule, and
// at growing pruning widths from one graph.
TEST(FlameProfileTree, DiffGraphEqualsTheDiffTreesGraph) {
  auto all = profiles();
  all.emplace_back("walks", walks_profile(1));
  all.emplace_back("walks 2", walks_profile(2));
  const std::pair<std::size_t, std::size_t> pairs[] = {{0, 1}, {1, 2}, {2, 3}, {3, 4},
                                                       {4, 5}, {5, 4}, {2, 2}, {1, 5}};
  int drawn_frames = 0;
  for (auto [i, j] : pairs) {
    const auto& [name_a, a] = all[i];
    const auto& [name_b, b] = all[j];
    for (View view : kViews)
      for (const auto& op : kOps)
        for (auto w : {DiffWidth::B, DiffWidth::A, DiffWidth::Max})
          for (auto c : {DiffColor::Inclusive, DiffColor::Self}) {
            SCOPED_TRACE(fmt::format("{} vs {} {} {} width {} colour {}", name_a, name_b,
                                     view_name(view), op.value_or("all"), static_cast<int>(w),
                                     static_cast<int>(c)));
            DiffOptions o;
            o.width = w;
            o.color = c;
            o.significant = [](std::span<const std::string_view> path) -> std::optional<bool> {
              if (path.empty()) return std::nullopt;
              return path.back().size() % 3 != 0;
            };
            DiffGraph per_op = diff_graph(a, b, view, op, true, o);
            DiffGraph tree(flame_diff_tree(a, b, view, op, true), o);
            for (double px : {0.1, 0.7, 4.0, 5000.0}) {
              std::string svg = per_op.render(px);
              EXPECT_TRUE(svg == tree.render(px)) << px;
              EXPECT_EQ(per_op.size(px), svg.size()) << px;
              drawn_frames += static_cast<int>(px == 0.1) * static_cast<int>(svg.size() / 1000);
            }
            auto ns = diff_graph_ns_per_op(a, b, view, op, o);
            auto ns_tree = flame_diff_tree_ns_per_op(a, b, view, op);
            ASSERT_EQ(ns.has_value(), ns_tree.has_value());
            if (ns) {
              EXPECT_TRUE(ns->render(0.1) == DiffGraph(*ns_tree, o).render(0.1));
            }
            EXPECT_TRUE(diff_graph(a, b, view, op, false, o).render(0.1) ==
                        DiffGraph(flame_diff_tree(a, b, view, op, false), o).render(0.1));
          }
  }
  EXPECT_GT(drawn_frames, 1000);  // not only empty graphs
}

// Records in orders that defeat a median-of-three pivot (organ pipe,
// reversed, sawtooth), many roots and few: the differential graph, which
// puts each side's records in tree order, still equals the merged tree's.
TEST(FlameProfileTree, RecordsInAdversarialOrdersSortAsTheTree) {
  auto shaped = [](int n, auto frame_of) {
    Profile p = test::sample_profile();
    p.samples.clear();
    for (int i = 0; i < n; ++i)
      p.samples.push_back({SampleKind::Op, "create",
                           test::stack({"vfs_create", frame_of(i), frame_of(n - 1 - i)}), 1});
    return p;
  };
  auto name = [](int k) { return fmt::format("f{:05}", k); };
  constexpr int n = 3000;
  const std::vector<std::pair<std::string, Profile>> cases = {
      {"organ pipe", shaped(n, [&](int i) { return name(i < n / 2 ? 2 * i : 2 * (n - i) - 1); })},
      {"reversed", shaped(n, [&](int i) { return name(n - i); })},
      {"sawtooth", shaped(n, [&](int i) { return name(i % 7 * 1000 + i / 7); })},
      {"two values", shaped(n, [&](int i) { return name(i % 2); })},
  };
  DiffOptions o;
  for (const auto& [what, a] : cases)
    for (const auto& [what_b, b] : cases) {
      SCOPED_TRACE(what + " vs " + what_b);
      EXPECT_TRUE(diff_graph(a, b, View::OnCpu, std::nullopt, false, o).render(0.1) ==
                  DiffGraph(flame_diff_tree(a, b, View::OnCpu, std::nullopt, false), o)
                      .render(0.1));
    }
}

TEST(FlameProfileTree, NsPerOpNeedsBothSamplingRates) {
  Profile a = test::sample_profile();
  Profile b = a;
  b.meta.freq_hz = 0;
  EXPECT_FALSE(flame_diff_tree_ns_per_op(a, b, View::OnCpu, std::nullopt));
  EXPECT_FALSE(flame_diff_tree_ns_per_op(b, a, View::OnCpu, std::nullopt));
  EXPECT_TRUE(flame_diff_tree_ns_per_op(a, b, View::OffCpu, std::nullopt));
}

}  // namespace
}  // namespace fscost
