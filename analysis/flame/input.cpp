// Stacks for flame graphs: from a profile (views/stacks.h, which `report
// --format folded` prints too, so the two always agree) or from parsed folded
// text; and difffolded.pl's per-stack delta.
#include <fmt/format.h>

#include <map>

#include "flame/drawn.h"
#include "flame/flamegraph.h"
#include "flame/svg.h"
#include "views/stacks.h"

namespace fscost {

namespace {

std::string join_frames(const Stack& frames) {
  std::string s;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (i > 0) s += ';';
    s += frames[i];
  }
  return s;
}

// Divides each op root's stacks by the op's count; leaves out (and lists)
// the rest.
FlameInput per_operation(FlameInput in, const Profile& p) {
  std::map<std::string, std::uint64_t> counts;
  for (const auto& o : p.ops) counts[o.name] = o.count;
  FlameInput out;
  SkippedRoots skipped;
  for (auto& [frames, value] : in.stacks) {
    if (frames.empty()) continue;  // render_folded always prints a root
    const std::string& root = frames.front();
    auto it = counts.find(root);
    if (it != counts.end() && it->second > 0)
      out.stacks.emplace_back(std::move(frames), value / static_cast<double>(it->second));
    else
      skipped.add(root);
  }
  out.skipped = skipped.reasons();
  return out;
}

}  // namespace

FlameInput flame_input(const Profile& p, View view, const std::optional<std::string>& op,
                       bool per_op) {
  FlameInput in;
  for (auto& s : profile_stacks(p, view, op))
    in.stacks.emplace_back(std::move(s.frames), static_cast<double>(s.value));
  return per_op ? per_operation(std::move(in), p) : in;
}

std::optional<FlameInput> flame_input_ns_per_op(const Profile& p, View view,
                                                const std::optional<std::string>& op) {
  FlameInput in = flame_input(p, view, op, true);
  if (view != View::OnCpu) return in;
  if (p.meta.freq_hz == 0) return std::nullopt;
  for (auto& s : in.stacks) s.second *= 1e9 / p.meta.freq_hz;
  return in;
}

std::string flame_unit(View view, bool per_op) {
  std::string unit = view == View::OnCpu ? "samples" : "ns";
  return per_op ? unit + "/op" : unit;
}

SvgOptions flame_svg_options(const Profile& p, View view,
                             const std::optional<std::string>& op, bool per_op) {
  SvgOptions o;
  o.title = fmt::format("{} flame graph{}{}", view_title(view), op ? ": " + *op : "",
                        per_op ? ", cost per operation" : "");
  const Metadata& m = p.meta;
  o.subtitle = fmt::format("{} | {} | kernel {} | {} CPUs | {} Hz | {:.2f} s | fscost {}",
                           m.command, m.hostname, m.kernel_release, m.cpus, m.freq_hz,
                           static_cast<double>(m.duration_ns) / 1e9, m.fscost_version);
  o.unit = flame_unit(view, per_op);
  return o;
}

namespace {

// What the reader's depth cut left out, said under the title as the roots
// left out are: a graph of folded stacks has no drop counters to print.
std::vector<std::string> depth_note(std::uint64_t cut) {
  if (cut == 0) return {};
  return {fmt::format("frames beyond {} of {} stack{} (stack_depth_truncated)", kMaxStackDepth,
                      cut, cut == 1 ? "" : "s")};
}

}  // namespace

FlameInput flame_input(const FoldedStacks& folded, int column) {
  FlameInput in;
  in.stacks.reserve(folded.stacks.size());
  for (const auto& s : folded.stacks)
    in.stacks.emplace_back(to_frames(s.frames), column == 1 ? s.value2.value_or(0) : s.value);
  in.skipped = depth_note(folded.depth_truncated);
  return in;
}

FlameInput flame_input(const InternedFolded& folded, int column) {
  FlameInput in;
  in.stacks.reserve(folded.stacks.size());
  for (const auto& s : folded.stacks)
    in.stacks.emplace_back(s.frames, column == 1 ? s.value2.value_or(0) : s.value);
  in.skipped = depth_note(folded.depth_truncated);
  return in;
}

std::string render_folded_svg(const InternedFolded& folded, const std::optional<std::string>& root,
                              const SvgOptions& opt) {
  // The stacks flame_tree would merge: flame_input's, --op's, values > 0.
  std::vector<const Stack*> stacks;
  std::vector<double> values;
  for (const auto& s : folded.stacks)
    if (s.value > 0 && (!root || (!s.frames.empty() && s.frames.front() == *root))) {
      stacks.push_back(&s.frames);
      values.push_back(s.value);
    }
  const std::vector<std::size_t> order = flame::tree_order(stacks);
  flame::DrawnGraph g = flame::drawn_graph(
      [&](const flame::StackSink& add) {
        for (std::size_t i : order) add(*stacks[i], values[i]);
      },
      opt.width - 2 * flame::kPadX, opt.min_width_px);
  return flame::render_layout_svg(g.lay, depth_note(folded.depth_truncated), opt);
}

std::string diff_folded(const FlameInput& a, const FlameInput& b) {
  std::map<std::string, std::pair<double, double>> rows;
  for (const auto& [frames, value] : a.stacks) rows[join_frames(frames)].first += value;
  for (const auto& [frames, value] : b.stacks) rows[join_frames(frames)].second += value;
  std::string out;
  for (const auto& [stack, ab] : rows) out += fmt::format("{} {} {}\n", stack, ab.first, ab.second);
  return out;
}

}  // namespace fscost
