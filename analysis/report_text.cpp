// The human-readable report. Sections in the order a reader checks them:
// what was measured, where the time went, whether the figures add up, why,
// what else ran, and what was lost.
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join

#include <ctime>
#include <iterator>

#include "drops.h"
#include "report.h"
#include "report_view.h"
#include "units.h"

namespace fscost {

namespace {

template <typename... Args>
void line(std::string& out, fmt::format_string<Args...> f, Args&&... args) {
  fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
  out += '\n';
}

std::string start_time(std::int64_t unix_ns) {
  std::time_t t = static_cast<std::time_t>(unix_ns / 1'000'000'000);
  return fmt::format("{:%Y-%m-%d %H:%M:%S} UTC", fmt::gmtime(t));
}

void header(std::string& out, const Profile& p) {
  const Metadata& m = p.meta;
  line(out, "fscost {} profile: kernel {} on {}, {} CPUs", m.fscost_version, m.kernel_release,
       m.hostname, m.cpus);
  line(out, "target: {}: {}", m.target, m.command);
  std::string started = m.start_unix_ns > 0 ? "started " + start_time(m.start_unix_ns) + ", " : "";
  line(out, "{}duration {}, sampling {} Hz per CPU, {} samples in all", started,
       seconds(m.duration_ns), m.freq_hz, p.samples_total);
  if (m.probes.empty())
    line(out, "probes: none recorded");
  else
    line(out, "probes: {}", fmt::join(m.probes, ", "));
}

void rusage_line(std::string& out, const Rusage& r) {
  if (!r.valid) return line(out, "rusage: not available");
  line(out, "rusage: user {}, sys {}, wall {}", seconds(r.user_ns), seconds(r.sys_ns),
       seconds(r.wall_ns));
}

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
  if (!c.ratio) return line(out, "per-op on-CPU sum {} (rusage sys is 0)", sum);
  line(out, "per-op on-CPU sum {} = {} of rusage sys {}", sum, percent(*c.ratio),
       seconds(*c.rusage_sys_ns));
}

// Leaf first and indented, as perf report prints call chains.
void stack_block(std::string& out, const StackShare& s, std::uint64_t op_samples) {
  line(out, "  {} samples ({})", s.samples,
       percent(static_cast<double>(s.samples) / static_cast<double>(op_samples)));
  if (s.frames.empty()) line(out, "      [no kernel stack]");
  for (auto it = s.frames.rbegin(); it != s.frames.rend(); ++it) line(out, "      {}", *it);
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

void drops(std::string& out, const std::map<std::string, std::uint64_t>& counters) {
  std::vector<std::string> checked;
  bool any = false;
  for (const auto& [name, count] : counters) {
    checked.push_back(name);
    if (count == 0) continue;
    if (!any) line(out, "drops:");
    any = true;
    DropCounter d = describe_drop(name);
    line(out, "  {}: {}", name, count);
    line(out, "    {}", d.description);
    line(out, "    hint: {}", d.hint);
  }
  if (any) return;
  if (checked.empty()) return line(out, "drops: none (the profile lists no drop counters)");
  line(out, "drops: none (checked: {})", fmt::join(checked, ", "));
}

}  // namespace

std::string render_text(const Profile& p, const ReportOptions& opt) {
  ReportView v = build_report_view(p, opt);
  std::string out;
  header(out, p);
  rusage_line(out, p.rusage);
  out += '\n';
  op_table(out, p, v, opt);
  consistency_line(out, v.consistency);
  out += '\n';
  if (!v.rows.empty()) {
    top_stacks(out, v, opt);
    out += '\n';
  }
  background(out, v.background);
  out += '\n';
  drops(out, p.drops);
  return out;
}

}  // namespace fscost
