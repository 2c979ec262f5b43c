// Flame graphs: merged tree → layout → SVG. Colours are a hash of the
// frame name within a palette chosen by where the frame sits: kernel frames
// warm, operation roots green, "[user]" aqua, kernel-thread roots purple,
// off-CPU wait classes blue, waker stacks (after "--") light blue.
#include <fmt/format.h>

#include "flame/drawn.h"
#include "flame/flamegraph.h"
#include "flame/frames.h"
#include "flame/layout.h"
#include "flame/svg.h"

namespace fscost {

namespace {

using flame::Frame;
using flame::Rgb;

enum class Palette { All, Op, User, KernelRoot, Kthread, Kernel, Wait, Waker };

Palette palette_of(const std::string& name, int depth, Palette parent) {
  if (depth == 0) return Palette::All;
  if (depth == 1) {
    if (name == "[user]") return Palette::User;
    if (name == "[kernel]") return Palette::KernelRoot;
    if (name.starts_with("[kthread:")) return Palette::Kthread;
    return Palette::Op;
  }
  if (parent == Palette::User || parent == Palette::Waker) return parent;
  if (name == "--") return Palette::Waker;
  // offcpu puts the wait class, "[io]", right above the root.
  if (depth == 2 && name.starts_with('[') && name.ends_with(']')) return Palette::Wait;
  return Palette::Kernel;
}

Rgb colour(Palette p, const std::string& name) {
  std::uint32_t h = flame::name_hash(name);
  auto v = [h](int shift, int span) {
    return static_cast<int>(((h >> shift) & 0xff) * span / 255);
  };
  switch (p) {
    case Palette::All:
      return {200, 200, 200};
    case Palette::Op:
      return {60 + v(0, 50), 175 + v(8, 50), 60 + v(16, 40)};
    case Palette::User:
      return {50 + v(0, 60), 170 + v(8, 50), 170 + v(8, 50)};
    case Palette::Kthread:
      return {165 + v(0, 45), 110 + v(8, 40), 205 + v(16, 40)};
    case Palette::Wait:
      return {80 + v(0, 50), 110 + v(8, 50), 200 + v(16, 55)};
    case Palette::Waker:
      return {100 + v(0, 50), 180 + v(8, 40), 230 + v(16, 25)};
    case Palette::KernelRoot:
    case Palette::Kernel:
      break;
  }
  return {205 + v(0, 50), v(8, 230), v(16, 55)};  // flamegraph.pl's "hot"
}

using flame::Layout;

// The tooltip of `f`, escaped, into `out` (cleared first); `scratch` holds
// it before escaping. Both keep their capacity from frame to frame.
void tooltip(const Layout& lay, const Frame& f, const SvgOptions& opt, std::string& scratch,
             std::string& out) {
  scratch.clear();
  scratch += f.node->name;
  scratch += " (";
  flame::append_value(scratch, f.node->value, opt.unit);
  scratch += ", ";
  flame::append_share(scratch, f.node->value, lay.total);
  if (f.depth >= 2) {
    const Frame* root = &f;
    while (root->depth > 1) root = &lay.frames[root->parent];
    scratch += ", ";
    flame::append_share(scratch, f.node->value, root->node->value);
    scratch += " of ";
    scratch += root->node->name;
  }
  scratch += ')';
  out.clear();
  append_escaped(out, scratch);
}

std::vector<std::string> header_lines(const SvgOptions& opt,
                                      const std::vector<std::string>& skipped) {
  std::vector<std::string> lines;
  if (!opt.subtitle.empty()) lines.push_back(opt.subtitle);
  if (!skipped.empty()) {
    std::string s = "Left out: ";
    for (std::size_t i = 0; i < skipped.size(); ++i) s += (i ? ", " : "") + skipped[i];
    if (s.size() > 160) s = s.substr(0, 157) + "...";
    lines.push_back(s);
  }
  return lines;
}

}  // namespace

std::string render_svg(const FlameInput& in, const SvgOptions& opt) {
  return render_tree_svg(FlameTree{flame_tree(in), in.skipped}, opt);
}

std::string render_tree_svg(const FlameTree& tree, const SvgOptions& opt) {
  return flame::render_layout_svg(flame::layout(
                                      tree.root, [](const FlameNode& n) { return n.value; },
                                      opt.width - 2 * flame::kPadX, opt.min_width_px),
                                  tree.skipped, opt);
}

namespace flame {

std::string render_layout_svg(const Layout& lay, const std::vector<std::string>& skipped,
                              const SvgOptions& opt) {
  auto lines = header_lines(opt, skipped);
  if (lay.frames.empty()) return flame::empty_svg(opt, lines);
  if (auto note = flame::pruned_note(lay, opt); !note.empty()) lines.push_back(note);
  flame::Shell s = flame::shell(opt, lines, lay.max_depth);
  std::string out = std::move(s.head);
  out.reserve(out.size() + lay.frames.size() * 200 + s.tail.size());
  flame::FrameWriter writer(s.g);
  std::vector<Palette> palettes(lay.frames.size());
  std::string scratch, tip;
  for (std::size_t i = 0; i < lay.frames.size(); ++i) {
    const flame::Frame& f = lay.frames[i];
    auto parent = f.parent == flame::kNoParent ? Palette::All : palettes[f.parent];
    palettes[i] = palette_of(f.node->name, f.depth, parent);
    tooltip(lay, f, opt, scratch, tip);
    flame::CssRgb fill(colour(palettes[i], f.node->name));
    writer.append(out, f, {tip, fill.view(), ""});
  }
  return out += s.tail;
}

}  // namespace flame

}  // namespace fscost
