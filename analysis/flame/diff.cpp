// Differential flame graphs: A and B merged into one tree, widths from one
// side, colour from the delta. Modeled on FlameGraph's difffolded.pl +
// flamegraph.pl, with two changes a reviewer needs: paths absent on the
// width side stay visible (hatched, with the other side's width), and a
// significance hook greys out frames whose delta is noise (the legend
// names grey only when a frame is).
#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "flame/frames.h"
#include "flame/layout.h"
#include "flame/svg.h"
#include "flame/flamegraph.h"

namespace fscost {

namespace {

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

void append_signed(std::string& out, double v, std::string_view unit) {
  if (v > 0) out += '+';
  flame::append_value(out, v, unit);
}

std::string signed_value(double v, const std::string& unit) {
  std::string out;
  append_signed(out, v, unit);
  return out;
}

// "name (A 1.2 µs/op, B 1.5 µs/op, Δ +300 ns/op, +25.0%)", appended.
void append_tooltip(std::string& s, const FlameNode& n, const DiffOptions& opt) {
  const std::string& unit = opt.svg.unit;
  double d = n.value_b - n.value;
  s += n.name;
  s += " (A ";
  flame::append_value(s, n.value, unit);
  s += ", B ";
  flame::append_value(s, n.value_b, unit);
  s += ", Δ ";
  append_signed(s, d, unit);
  s += ", ";
  if (n.value <= 0)
    s += "new in B";
  else if (d == 0)
    s += "0.0%";
  else
    fmt::format_to(std::back_inserter(s), FMT_COMPILE("{:+.1f}%"), 100 * d / n.value);
  if (n.value > 0 && n.value_b <= 0) s += ", gone in B";
  if (opt.color == DiffColor::Self) {
    s += ", self Δ ";
    append_signed(s, delta(n, DiffColor::Self), unit);
  }
  s += ')';
}

// Red = more in B, blue = less; near-white for no change.
flame::Rgb fill(double d, double max_abs) {
  double i = max_abs > 0 ? std::min(1.0, std::fabs(d) / max_abs) : 0;
  int c = static_cast<int>(std::lround(250 - 210 * i));
  if (d > 0) return {255, c, c};
  if (d < 0) return {c, c, 255};
  return {250, 250, 250};
}

// `grey`: some frame is drawn grey (not significant), so the key says so;
// a graph without statistics (one profile a side) has none.
std::vector<std::string> legend(const DiffOptions& opt, const FlameNode& root, double max_abs,
                                bool grey) {
  const std::string& unit = opt.svg.unit;
  std::vector<std::string> lines;
  if (!opt.svg.subtitle.empty()) lines.push_back(opt.svg.subtitle);
  lines.push_back(
      fmt::format("Red: more in B. Blue: less in B. Colour by {} Δ, full at |Δ| = {}.{}",
                  opt.color == DiffColor::Self ? "self" : "inclusive",
                  flame::format_value(max_abs, unit), grey ? " Grey: not significant." : ""));
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
  return render_diff_svg(flame_diff_tree(a, b), opt);
}

std::string render_diff_svg(FlameNode tree, const DiffOptions& opt) {
  return DiffGraph(std::move(tree), opt).render(opt.svg.min_width_px);
}

// The merged tree, its layout spans, each frame's tooltip and its
// significance, made once for every width the graph is drawn at.
class DiffGraph::Impl {
 public:
  Impl(FlameNode tree, DiffOptions opt)
      : root_(std::move(tree)),
        opt_(std::move(opt)),
        spans_(flame::measure(root_, [this](const FlameNode& n) { return width_of(n, opt_.width); })) {
    // Both sides, whichever sets the widths: the tooltips and colours show each.
    flame::require_drawable(root_.value, "A's values");
    flame::require_drawable(root_.value_b, "B's values");
  }

  std::string render(double min_width_px);
  std::size_t size(double min_width_px);

 private:
  struct Memo {
    std::size_t tooltip_at = 0, tooltip_size = 0;  // escaped, in tooltips_
    bool insignificant = false;
    bool done = false;
  };
  // A drawing before its frames: what render and size share.
  struct Drawing {
    SvgOptions svg;
    Layout lay;
    double max_abs = 0;
    std::vector<std::string> lines;  // under the title
  };
  Drawing plan(double min_width_px);
  const Memo& memo(const FlameNode& n, std::size_t index, std::span<const std::string_view> path);
  // Calls fn(frame, memo) for each frame of `lay`, in order.
  template <typename Fn>
  void each_memo(const Layout& lay, Fn&& fn);
  // Calls emit(frame, markup) for each frame of `d`, in order.
  template <typename Emit>
  void each_frame(const Drawing& d, Emit&& emit);

  FlameNode root_;
  DiffOptions opt_;
  std::vector<flame::Span> spans_;  // by the node's pre-order number; measured once
  std::vector<Memo> memo_;          // by the node's pre-order number
  std::string tooltips_;            // every memoised tooltip, one after another
  std::string scratch_;             // a tooltip before escaping
};

DiffGraph::Impl::Drawing DiffGraph::Impl::plan(double min_width_px) {
  Drawing d;
  d.svg = opt_.svg;
  d.svg.min_width_px = min_width_px;
  d.lay = flame::layout(root_, spans_, d.svg.width - 2 * flame::kPadX, d.svg.min_width_px);
  for (const flame::Frame& f : d.lay.frames)
    if (f.depth > 0) d.max_abs = std::max(d.max_abs, std::fabs(delta(*f.node, opt_.color)));
  // The legend names grey only if a frame drawn is grey.
  bool grey = false;
  if (opt_.significant)
    each_memo(d.lay, [&](const flame::Frame&, const Memo& m) { grey = grey || m.insignificant; });
  d.lines = legend(opt_, root_, d.max_abs, grey);
  if (d.lay.frames.empty()) return d;  // empty_svg: nothing to prune
  if (auto note = flame::pruned_note(d.lay, d.svg); !note.empty()) d.lines.push_back(note);
  return d;
}

// "all" is asked too, with an empty path: in a per-op graph it is the op.
const DiffGraph::Impl::Memo& DiffGraph::Impl::memo(const FlameNode& n, std::size_t index,
                                                   std::span<const std::string_view> path) {
  Memo& m = memo_[index];
  if (!m.done) {
    scratch_.clear();
    append_tooltip(scratch_, n, opt_);
    m.tooltip_at = tooltips_.size();
    append_escaped(tooltips_, scratch_);
    m.tooltip_size = tooltips_.size() - m.tooltip_at;
    m.insignificant = opt_.significant && opt_.significant(path) == false;
    m.done = true;
  }
  return m;
}

template <typename Fn>
void DiffGraph::Impl::each_memo(const Layout& lay, Fn&& fn) {
  memo_.resize(lay.nodes);
  std::vector<std::string_view> path;  // the frame's path, "all" excluded
  for (const flame::Frame& f : lay.frames) {
    path.resize(f.depth > 0 ? static_cast<std::size_t>(f.depth - 1) : 0);
    if (f.depth > 0) path.push_back(f.node->name.str());
    fn(f, memo(*f.node, f.index, path));
  }
}

template <typename Emit>
void DiffGraph::Impl::each_frame(const Drawing& d, Emit&& emit) {
  each_memo(d.lay, [&](const flame::Frame& f, const Memo& m) {
    const FlameNode& n = *f.node;
    bool hatched = borrowed(n, opt_.width);
    flame::CssRgb rgb(fill(delta(n, opt_.color), d.max_abs));
    std::string_view colour = m.insignificant ? (hatched ? "url(#fg-insig)" : "rgb(195,195,195)")
                              : hatched       ? (n.value_b <= 0 ? "url(#fg-gone)" : "url(#fg-new)")
                                              : rgb.view();
    std::string_view tip(tooltips_.data() + m.tooltip_at, m.tooltip_size);
    emit(f, flame::FrameMarkup{tip, colour, hatched ? "fg-borrowed" : ""});
  });
}

std::string DiffGraph::Impl::render(double min_width_px) {
  Drawing d = plan(min_width_px);
  if (d.lay.frames.empty()) return flame::empty_svg(d.svg, d.lines);
  flame::Shell s = flame::shell(d.svg, d.lines, d.lay.max_depth);
  std::string out = std::move(s.head);
  out.reserve(out.size() + d.lay.frames.size() * 220 + s.tail.size());
  flame::FrameWriter writer(s.g);
  each_frame(d,
             [&](const flame::Frame& f, const flame::FrameMarkup& m) { writer.append(out, f, m); });
  return out += s.tail;
}

// The document around the frames is drawn (it is small); the frames are
// counted.
std::size_t DiffGraph::Impl::size(double min_width_px) {
  Drawing d = plan(min_width_px);
  if (d.lay.frames.empty()) return flame::empty_svg(d.svg, d.lines).size();
  flame::Shell s = flame::shell(d.svg, d.lines, d.lay.max_depth);
  std::size_t bytes = s.head.size() + s.tail.size();
  flame::FrameWriter writer(s.g);
  each_frame(
      d, [&](const flame::Frame& f, const flame::FrameMarkup& m) { bytes += writer.size(f, m); });
  return bytes;
}

DiffGraph::DiffGraph(const FlameInput& a, const FlameInput& b, DiffOptions opt)
    : DiffGraph(flame_diff_tree(a, b), std::move(opt)) {}
DiffGraph::DiffGraph(FlameNode tree, DiffOptions opt)
    : impl_(std::make_unique<Impl>(std::move(tree), std::move(opt))) {}
DiffGraph::~DiffGraph() = default;
DiffGraph::DiffGraph(DiffGraph&&) noexcept = default;
DiffGraph& DiffGraph::operator=(DiffGraph&&) noexcept = default;
std::string DiffGraph::render(double min_width_px) { return impl_->render(min_width_px); }
std::size_t DiffGraph::size(double min_width_px) { return impl_->size(min_width_px); }

}  // namespace fscost
