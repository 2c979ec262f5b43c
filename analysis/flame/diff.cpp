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

#include "flame/drawn.h"
#include "flame/frames.h"
#include "flame/layout.h"
#include "flame/svg.h"
#include "flame/flamegraph.h"

namespace fscost {

namespace {

using flame::Layout;

double width_a(double a, double b) { return a > 0 ? a : b; }
double width_b(double a, double b) { return b > 0 ? b : a; }
double width_max(double a, double b) { return std::max(a, b); }

flame::DiffWidthOf width_of(DiffWidth w) {
  switch (w) {
    case DiffWidth::A:
      return width_a;
    case DiffWidth::Max:
      return width_max;
    case DiffWidth::B:
      break;
  }
  return width_b;
}

// Drawn with the other side's width because the width side has nothing.
bool borrowed(const FlameNode& n, DiffWidth w) {
  if (w == DiffWidth::B) return n.value_b <= 0;
  if (w == DiffWidth::A) return n.value <= 0;
  return false;
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

// "name (A 1.2 µs/op, B 1.5 µs/op, Δ +300 ns/op, +25.0%)", appended;
// `self`: n's self Δ.
void append_tooltip(std::string& s, const FlameNode& n, double self, const DiffOptions& opt) {
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
    append_signed(s, self, unit);
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
std::vector<std::string> legend(const DiffOptions& opt, const flame::DrawnDiff& g,
                                double max_abs, bool grey) {
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
      "{} Total: A {}, B {}, Δ {}.", widths, flame::format_value(g.value, unit),
      flame::format_value(g.value_b, unit), signed_value(g.value_b - g.value, unit)));
  return lines;
}

}  // namespace

std::string render_diff_svg(const FlameInput& a, const FlameInput& b, const DiffOptions& opt) {
  return render_diff_svg(flame_diff_tree(a, b), opt);
}

std::string render_diff_svg(const FlameNode& tree, const DiffOptions& opt) {
  return DiffGraph(tree, opt).render(opt.svg.min_width_px);
}

// The frames drawable at opt.svg.min_width_px, each one's tooltip and its
// significance, made once for every width the graph is drawn at. Both
// sides' totals are checked, whichever sets the widths: the tooltips and
// colours show each.
class DiffGraph::Impl {
 public:
  Impl(const FlameNode& tree, DiffOptions opt)
      : opt_(std::move(opt)),
        g_(flame::drawn_diff(tree, width_of(opt_.width), avail_px(), opt_.svg.min_width_px)) {}
  Impl(const flame::OrderedDiffStacks& stacks, DiffOptions opt)
      : opt_(std::move(opt)),
        g_(flame::drawn_diff(stacks, width_of(opt_.width), avail_px(), opt_.svg.min_width_px)) {}

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
  double avail_px() const { return opt_.svg.width - 2 * flame::kPadX; }
  Drawing plan(double min_width_px);
  std::size_t at(const flame::Frame& f) const {
    return static_cast<std::size_t>(f.node - g_.frames.data());
  }
  double delta(const flame::Frame& f) const {
    return opt_.color == DiffColor::Self ? g_.kept[at(f)].self_delta
                                         : f.node->value_b - f.node->value;
  }
  const Memo& memo(const flame::Frame& f, std::span<const std::string_view> path);
  // Calls fn(frame, memo) for each frame of `lay`, in order.
  template <typename Fn>
  void each_memo(const Layout& lay, Fn&& fn);
  // Calls emit(frame, markup) for each frame of `d`, in order.
  template <typename Emit>
  void each_frame(const Drawing& d, Emit&& emit);

  DiffOptions opt_;
  flame::DrawnDiff g_;
  std::vector<Memo> memo_;  // by position in g_.kept
  std::string tooltips_;            // every memoised tooltip, one after another
  std::string scratch_;             // a tooltip before escaping
};

DiffGraph::Impl::Drawing DiffGraph::Impl::plan(double min_width_px) {
  Drawing d;
  d.svg = opt_.svg;
  d.svg.min_width_px = min_width_px;
  if (min_width_px < g_.min_px)
    throw std::invalid_argument(fmt::format("a differential graph made for pruning at {} px "
                                            "drawn at {} px",
                                            g_.min_px, min_width_px));
  d.lay = flame::place(g_, avail_px(), d.svg.min_width_px);
  for (const flame::Frame& f : d.lay.frames)
    if (f.depth > 0) d.max_abs = std::max(d.max_abs, std::fabs(delta(f)));
  // The legend names grey only if a frame drawn is grey.
  bool grey = false;
  if (opt_.significant)
    each_memo(d.lay, [&](const flame::Frame&, const Memo& m) { grey = grey || m.insignificant; });
  d.lines = legend(opt_, g_, d.max_abs, grey);
  if (d.lay.frames.empty()) return d;  // empty_svg: nothing to prune
  if (auto note = flame::pruned_note(d.lay, d.svg); !note.empty()) d.lines.push_back(note);
  return d;
}

// "all" is asked too, with an empty path: in a per-op graph it is the op.
const DiffGraph::Impl::Memo& DiffGraph::Impl::memo(const flame::Frame& f,
                                                   std::span<const std::string_view> path) {
  Memo& m = memo_[at(f)];
  if (!m.done) {
    scratch_.clear();
    append_tooltip(scratch_, *f.node, g_.kept[at(f)].self_delta, opt_);
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
  memo_.resize(g_.kept.size());
  std::vector<std::string_view> path;  // the frame's path, "all" excluded
  for (const flame::Frame& f : lay.frames) {
    path.resize(f.depth > 0 ? static_cast<std::size_t>(f.depth - 1) : 0);
    if (f.depth > 0) path.push_back(f.node->name.str());
    fn(f, memo(f, path));
  }
}

template <typename Emit>
void DiffGraph::Impl::each_frame(const Drawing& d, Emit&& emit) {
  each_memo(d.lay, [&](const flame::Frame& f, const Memo& m) {
    const FlameNode& n = *f.node;
    bool hatched = borrowed(n, opt_.width);
    flame::CssRgb rgb(fill(delta(f), d.max_abs));
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

DiffGraph::DiffGraph(const FlameInput& a, const FlameInput& b, DiffOptions opt) {
  // The stacks flame_diff_tree(a, b) merges: values > 0, A's then B's.
  Stacks st;
  for (const auto& [frames, value] : a.stacks)
    if (value > 0) {
      st.frames.push_back(&frames);
      st.values.push_back(value);
    }
  st.split = st.frames.size();
  for (const auto& [frames, value] : b.stacks)
    if (value > 0) {
      st.frames.push_back(&frames);
      st.values.push_back(value);
    }
  *this = DiffGraph(st, std::move(opt));
}

DiffGraph::DiffGraph(const InternedFolded& a, int column_a, const InternedFolded& b,
                     int column_b, const std::optional<std::string>& root, DiffOptions opt) {
  // As from flame_input(a, column_a) and flame_input(b, column_b), less
  // the stacks not under `root`, without copying a stack.
  Stacks st;
  auto add = [&](const InternedFolded& in, int column) {
    for (const auto& s : in.stacks) {
      const double value = column == 1 ? s.value2.value_or(0) : s.value;
      if (value > 0 && (!root || (!s.frames.empty() && s.frames.front() == *root))) {
        st.frames.push_back(&s.frames);
        st.values.push_back(value);
      }
    }
  };
  add(a, column_a);
  st.split = st.frames.size();
  add(b, column_b);
  *this = DiffGraph(st, std::move(opt));
}

DiffGraph::DiffGraph(const Stacks& st, DiffOptions opt) {
  const std::vector<std::size_t> order = flame::tree_order(st.frames, st.split);
  impl_ = std::make_unique<Impl>(
      [&](const DiffStackSink& add) {
        for (std::size_t i : order) add(*st.frames[i], st.values[i], i >= st.split);
      },
      std::move(opt));
}

DiffGraph::DiffGraph(const OrderedDiffStacks& stacks, DiffOptions opt)
    : impl_(std::make_unique<Impl>(stacks, std::move(opt))) {}

DiffGraph::DiffGraph(const FlameNode& tree, DiffOptions opt)
    : impl_(std::make_unique<Impl>(tree, std::move(opt))) {}
DiffGraph::~DiffGraph() = default;
DiffGraph::DiffGraph(DiffGraph&&) noexcept = default;
DiffGraph& DiffGraph::operator=(DiffGraph&&) noexcept = default;
std::string DiffGraph::render(double min_width_px) { return impl_->render(min_width_px); }
std::size_t DiffGraph::size(double min_width_px) { return impl_->size(min_width_px); }

}  // namespace fscost
