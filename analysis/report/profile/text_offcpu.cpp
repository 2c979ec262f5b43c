// The off-CPU text view: where operations wait, why, and who wakes them.
#include <algorithm>

#include "views/offcpu_view.h"
#include "report/profile/text_parts.h"
#include "views/report_view.h"
#include "model/units.h"

namespace fscost::text {

namespace {

// Waker frames shown under a blocked stack: enough to name the wake-up path.
constexpr std::size_t kWakerFrames = 3;

// One right-aligned cell per wait class, at least as wide as its name.
template <typename F>
std::string class_cells(F&& cell) {
  std::string s;
  for (std::size_t i = 0; i < kWaitClasses.size(); ++i)
    s += fmt::format(" {:>{}}", cell(i), std::max<std::size_t>(7, kWaitClasses[i].size()));
  return s;
}

void op_table(std::string& out, const OffCpuView& v) {
  line(out, "off-CPU time per operation (µs/op; wait classes from the blocked stacks)");
  line(out, "{:<10} {:>8} {:>8} {:>8} {:>8}{}", "operation", "count", "on-CPU", "off-CPU", "wall",
       class_cells([](std::size_t i) { return std::string(kWaitClasses[i]); }));
  for (const auto& op : v.ops) {
    const OpStats& o = op.stats;
    line(out, "{:<10} {:>8} {:>8} {:>8} {:>8}{}", o.name, o.count, us_per_op(o.oncpu_ns, o.count),
         us_per_op(o.offcpu_ns, o.count), us_per_op(o.wall_ns, o.count),
         class_cells([&](std::size_t i) { return us_per_op(op.by_class[i], o.count); }));
  }
}

void agreement(std::string& out, const OffCpuView& v) {
  line(out, "on- plus off-CPU time against wall time, and off-CPU time the stacks explain");
  for (const auto& op : v.ops) {
    std::optional<double> cover;
    if (op.stats.offcpu_ns > 0)
      cover = static_cast<double>(op.stacks_ns) / static_cast<double>(op.stats.offcpu_ns);
    line(out, "  {}: on+off = {} of wall; stacks cover {} of off-CPU", op.stats.name,
         percent_or_dash(on_off_agreement(op.stats)), percent_or_dash(cover));
  }
}

void waker_block(std::string& out, const OffCpuShare& s) {
  if (s.waker.empty() && s.waker_frames.empty()) return line(out, "    waker unknown");
  line(out, "    woken by {}{} (leaf first, up to {} frames):", s.waker.empty() ? "?" : s.waker,
       s.waker_work.empty() ? "" : " running " + s.waker_work, kWakerFrames);
  frames_leaf_first(out, s.waker_frames, kWakerFrames, "      ");
}

void top_stacks(std::string& out, const OffCpuView& v, const ReportOptions& opt) {
  line(out, "top off-CPU stacks (up to {} per operation, leaf first)", opt.top_stacks);
  for (const auto& op : v.ops) {
    if (op.top_stacks.empty()) {
      line(out, "{}: no off-CPU stacks", op.stats.name);
      continue;
    }
    line(out, "{}: {} off CPU in stacks", op.stats.name, millis(op.stacks_ns));
    for (const auto& s : op.top_stacks) {
      double share = static_cast<double>(s.total_ns) / static_cast<double>(op.stacks_ns);
      line(out, "  {} ({}), {}, {}", millis(s.total_ns), percent(share),
           plural(s.count, "interval"), s.wait_class);
      frames_leaf_first(out, s.frames, s.frames.size(), "      ");
      waker_block(out, s);
    }
  }
}

void kthreads(std::string& out, const OffCpuView& v) {
  if (v.background.empty()) return line(out, "kernel threads off CPU: none recorded");
  line(out, "kernel threads off CPU (ms, totals)");
  line(out, "  {:<20} {:>9} {:>10}{}", "thread", "intervals", "total",
       class_cells([](std::size_t i) { return std::string(kWaitClasses[i]); }));
  auto ms = [](std::uint64_t ns) { return fmt::format("{:.3f}", ns / 1e6); };
  for (const auto& t : v.background)
    line(out, "  {:<20} {:>9} {:>10}{}", t.name, t.count, ms(t.total_ns),
         class_cells([&](std::size_t i) { return ms(t.by_class[i]); }));
}

}  // namespace

void offcpu_sections(std::string& out, const Profile& p, const ReportOptions& opt) {
  if (!offcpu_recorded(p)) {
    line(out, "off-CPU time: not recorded in this profile");
    out += '\n';
    return;
  }
  OffCpuView v = build_offcpu_view(p, opt);
  op_table(out, v);
  agreement(out, v);
  out += '\n';
  top_stacks(out, v, opt);
  out += '\n';
  kthreads(out, v);
  out += '\n';
}

}  // namespace fscost::text
