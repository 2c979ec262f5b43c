// Differential flame graphs: A and B merged into one tree, widths from one
// side, colour from the delta. Modeled on FlameGraph's difffolded.pl +
// flamegraph.pl, with two changes a reviewer needs: paths absent on the
// width side stay visible (hatched, with the other side's width), and a
// significance hook greys out frames whose delta is noise.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "flame_layout.h"
#include "flame_svg.h"
#include "flamegraph.h"

namespace fscost {

namespace {

using flame::Frame;
using flame::Layout;

double width_of(const FlameNode& n, DiffWidth w) {
  switch (w) {
    case DiffWidth::A:
      return n.value > 0 ? n.value : n.value_b;
    case DiffWidth::Max:
      return std::max(n.value, n.value_b);
    case DiffWidth::B:
      break;
  }
  return n.value_b > 0 ? n.value_b : n.value;
}

// Drawn with the other side's width because the width side has nothing.
bool borrowed(const FlameNode& n, DiffWidth w) {
  if (w == DiffWidth::B) return n.value_b <= 0;
  if (w == DiffWidth::A) return n.value <= 0;
  return false;
}

double delta(const FlameNode& n, DiffColor c) {
  double d = n.value_b - n.value;
  if (c == DiffColor::Self)
    for (const auto& k : n.children) d -= k.value_b - k.value;
  return d;
}

std::string signed_value(double v, const std::string& unit) {
  return (v > 0 ? "+" : "") + flame::format_value(v, unit);
}

std::string tooltip(const FlameNode& n, const DiffOptions& opt) {
  const std::string& unit = opt.svg.unit;
  double d = n.value_b - n.value;
  std::string pct = n.value <= 0 ? "new in B"
                    : d == 0     ? "0.0%"
                                 : fmt::format("{:+.1f}%", 100 * d / n.value);
  if (n.value > 0 && n.value_b <= 0) pct += ", gone in B";
  std::string s =
      fmt::format("{} (A {}, B {}, Δ {}, {}", n.name, flame::format_value(n.value, unit),
                  flame::format_value(n.value_b, unit), signed_value(d, unit), pct);
  if (opt.color == DiffColor::Self)
    s += fmt::format(", self Δ {}", signed_value(delta(n, DiffColor::Self), unit));
  return s + ")";
}

// Red = more in B, blue = less; near-white for no change.
std::string fill(double d, double max_abs) {
  double i = max_abs > 0 ? std::min(1.0, std::fabs(d) / max_abs) : 0;
  int c = static_cast<int>(std::lround(250 - 210 * i));
  if (d > 0) return flame::css_rgb({255, c, c});
  if (d < 0) return flame::css_rgb({c, c, 255});
  return flame::css_rgb({250, 250, 250});
}

std::vector<std::string> legend(const DiffOptions& opt, const FlameNode& root, double max_abs) {
  const std::string& unit = opt.svg.unit;
  std::vector<std::string> lines;
  if (!opt.svg.subtitle.empty()) lines.push_back(opt.svg.subtitle);
  lines.push_back(fmt::format(
      "Red: more in B. Blue: less in B. Colour by {} Δ, full at |Δ| = {}. Grey: not significant.",
      opt.color == DiffColor::Self ? "self" : "inclusive", flame::format_value(max_abs, unit)));
  std::string widths;
  switch (opt.width) {
    case DiffWidth::B:
      widths = "Width: B; hatched: gone in B, drawn with A's width.";
      break;
    case DiffWidth::A:
      widths = "Width: A; hatched: new in B, drawn with B's width.";
      break;
    case DiffWidth::Max:
      widths = "Width: the larger of A and B.";
      break;
  }
  lines.push_back(fmt::format(
      "{} Total: A {}, B {}, Δ {}.", widths, flame::format_value(root.value, unit),
      flame::format_value(root.value_b, unit), signed_value(root.value_b - root.value, unit)));
  return lines;
}

}  // namespace

std::string render_diff_svg(const FlameInput& a, const FlameInput& b, const DiffOptions& opt) {
  return DiffGraph(a, b, opt).render(opt.svg.min_width_px);
}

DiffGraph::DiffGraph(const FlameInput& a, const FlameInput& b, DiffOptions opt)
    : root_(flame_diff_tree(a, b)), opt_(std::move(opt)) {}

// "all" is asked too, with an empty path: in a per-op graph it is the op.
const DiffGraph::Memo& DiffGraph::memo(const FlameNode& n, const std::vector<std::string>& path) {
  auto [it, added] = memo_.try_emplace(&n);
  if (added) {
    it->second.tooltip = tooltip(n, opt_);
    it->second.insignificant = opt_.significant && opt_.significant(path) == false;
  }
  return it->second;
}

std::string DiffGraph::render(double min_width_px) {
  SvgOptions svg = opt_.svg;
  svg.min_width_px = min_width_px;
  Layout lay = flame::layout(
      root_, [this](const FlameNode& n) { return width_of(n, opt_.width); },
      svg.width - 2 * flame::kPadX, svg.min_width_px);
  double max_abs = 0;
  for (const flame::Frame& f : lay.frames)
    if (f.depth > 0) max_abs = std::max(max_abs, std::fabs(delta(*f.node, opt_.color)));
  auto lines = legend(opt_, root_, max_abs);
  if (lay.frames.empty()) return flame::empty_svg(svg, lines);
  if (auto note = flame::pruned_note(lay, svg); !note.empty()) lines.push_back(note);
  flame::Geometry g = flame::geometry(svg, lines.size(), lay.max_depth);
  std::string out;
  out.reserve(lay.frames.size() * 220 + 16384);
  flame::open_document(out, g, svg, lines);
  flame::open_frames(out, g);
  std::vector<std::string> path;  // the frame's path, "all" excluded
  for (const flame::Frame& f : lay.frames) {
    const FlameNode& n = *f.node;
    if (f.depth > 0) {
      path.resize(static_cast<std::size_t>(f.depth - 1));
      path.push_back(n.name);
    } else {
      path.clear();
    }
    const Memo& m = memo(n, path);
    bool hatched = borrowed(n, opt_.width);
    std::string colour = m.insignificant ? (hatched ? "url(#fg-insig)" : "rgb(195,195,195)")
                         : hatched       ? (n.value_b <= 0 ? "url(#fg-gone)" : "url(#fg-new)")
                                         : fill(delta(n, opt_.color), max_abs);
    flame::append_frame(out, g, f, m.tooltip, colour, hatched ? "fg-borrowed" : "");
  }
  flame::close_frames(out);
  flame::close_document(out, g);
  return out;
}

}  // namespace fscost
