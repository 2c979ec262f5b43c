// The human-readable report. Sections in the order a reader checks them:
// what was measured, where the time went, whether the figures add up, why,
// what else ran, and what was lost. This file has the on-CPU view and the
// dispatch; the other views are in report_text_*.cpp.
#include <fmt/format.h>

#include "report/report.h"
#include "report/profile/text_parts.h"
#include "views/report_view.h"
#include "model/units.h"

namespace fscost {

namespace text {

namespace {

constexpr auto kRowFormat = "{:<10} {:>10} {:>8} {:>10} {:>13} {:>11} {:>7}";

void op_table(std::string& out, const Profile& p, const ReportView& v, const ReportOptions& opt) {
  if (v.rows.empty()) {
    if (opt.op)
      return line(out, "operation '{}': no operations or samples in this profile", *opt.op);
    return line(out, "no operations recorded");
  }
  line(out, kRowFormat, "operation", "count", "errors", "ops/s", "on-CPU µs/op", "wall µs/op",
       "% sys");
  for (const auto& row : v.rows) {
    const OpStats& o = row.stats;
    auto us = [&](std::uint64_t ns) {
      auto per_op = per_op_ns(ns, o.count);
      return fixed1(per_op ? std::optional(*per_op / 1000) : std::nullopt);
    };
    line(out, kRowFormat, o.name, o.count, o.errors, fixed1(ops_per_sec(o, p.meta)), us(o.oncpu_ns),
         us(o.wall_ns), percent_or_dash(sys_share(o, p.rusage)));
  }
}

void consistency_line(std::string& out, const Consistency& c) {
  std::string sum = seconds(c.oncpu_ns_sum);
  if (!c.rusage_sys_ns) return line(out, "per-op on-CPU sum {} (rusage sys not available)", sum);
  if (c.paused_ns)
    return line(out, "per-op on-CPU sum {} (rusage sys {} also counts the {} the recording was paused)",
                sum, seconds(*c.rusage_sys_ns), seconds(c.paused_ns));
  if (!c.ratio) return line(out, "per-op on-CPU sum {} (rusage sys is 0)", sum);
  line(out, "per-op on-CPU sum {} = {} of rusage sys {}", sum, percent(*c.ratio),
       seconds(*c.rusage_sys_ns));
  if (c.ratio_with_syscall_path && c.syscall_path_samples > 0)
    line(out,
         "  + syscall entry/exit path outside the per-op timestamps (fscost's probes run there), "
         "{} samples ≈ {}; with it, {} of rusage sys",
         c.syscall_path_samples, seconds(static_cast<std::uint64_t>(*c.syscall_path_ns)),
         percent(*c.ratio_with_syscall_path));
}

void stack_block(std::string& out, const StackShare& s, std::uint64_t op_samples) {
  line(out, "  {} samples ({})", s.samples,
       percent(static_cast<double>(s.samples) / static_cast<double>(op_samples)));
  frames_leaf_first(out, s.frames, s.frames.size(), "      ");
}

void top_stacks(std::string& out, const ReportView& v, const ReportOptions& opt) {
  if (v.rows.empty()) return;
  line(out, "top kernel stacks (up to {} per operation, leaf first)", opt.top_stacks);
  for (const auto& row : v.rows) {
    if (row.samples == 0) {
      line(out, "{}: no samples", row.stats.name);
      continue;
    }
    line(out, "{}: {} samples", row.stats.name, row.samples);
    for (const auto& s : row.top_stacks) stack_block(out, s, row.samples);
  }
}

void background(std::string& out, const Background& bg) {
  line(out, "background samples (outside tracked operations)");
  line(out, "  {:<28} {:>10}", "user mode of the target", bg.user_samples);
  line(out, "  {:<28} {:>10}", "kernel outside syscalls", bg.kernel_samples);
  if (bg.kthreads.empty()) return line(out, "  kernel threads: none");
  line(out, "  kernel threads:");
  for (const auto& k : bg.kthreads) line(out, "    {:<26} {:>10}", k.name, k.samples);
}

}  // namespace

void oncpu_sections(std::string& out, const Profile& p, const ReportOptions& opt) {
  ReportView v = build_report_view(p, opt);
  op_table(out, p, v, opt);
  consistency_line(out, v.consistency);
  out += '\n';
  if (!v.rows.empty()) {
    top_stacks(out, v, opt);
    out += '\n';
  }
  fs_event_sections(out, p, v.rows);
  out += '\n';
  function_sections(out, p);
  background(out, v.background);
  out += '\n';
}

}  // namespace text

std::string render_text(const Profile& p, const ReportOptions& opt) {
  View view = opt.view;
  std::string out;
  text::header(out, p);
  text::rusage_line(out, p.rusage);
  out += '\n';
  switch (view) {
    case View::OnCpu:
      text::oncpu_sections(out, p, opt);
      break;
    case View::OffCpu:
      text::offcpu_sections(out, p, opt);
      break;
    case View::Locks:
      text::lock_sections(out, p, opt);
      break;
  }
  text::drops(out, p.drops);
  return out;
}

}  // namespace fscost
