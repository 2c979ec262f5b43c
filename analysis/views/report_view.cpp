#include "model/units.h"
#include "views/report_view.h"

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join

#include <algorithm>
#include <map>
#include <string_view>

#include "model/operations.h"
#include "io/syscall_frames.h"

namespace fscost {

namespace {

using StackCounts = std::map<Stack, std::uint64_t>;

bool wanted(const std::string& op, const ReportOptions& opt) { return !opt.op || *opt.op == op; }

// The n stacks with most samples; ties in frame order, for determinism.
std::vector<StackShare> top_stacks(const StackCounts& stacks, std::size_t n) {
  std::vector<std::pair<const Stack*, std::uint64_t>> all;
  for (const auto& [frames, count] : stacks) all.emplace_back(&frames, count);
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (all.size() > n) all.resize(n);
  std::vector<StackShare> top;
  for (const auto& [frames, count] : all) top.push_back({frame_strings(*frames), count});
  return top;
}

// Ops with statistics or samples (an op may have samples but no completed
// call), each with its stacks merged by frames.
std::map<std::string, OpRow> collect_rows(const Profile& p, const ReportOptions& opt) {
  std::map<std::string, OpRow> rows;
  for (const auto& o : p.ops)
    if (wanted(o.name, opt)) rows[o.name].stats = o;
  std::map<std::string, StackCounts> stacks;
  for (const auto& s : p.samples)
    if (s.kind == SampleKind::Op && wanted(s.name, opt)) add_sat(stacks[s.name][s.frames], s.count);
  for (const auto& s : p.offcpu)
    if (s.kind == SampleKind::Op && wanted(s.name, opt)) rows[s.name].stats.name = s.name;
  for (const auto& s : p.locks)
    if (s.kind == SampleKind::Op && wanted(s.name, opt)) rows[s.name].stats.name = s.name;
  for (const auto& [name, by_stack] : stacks) {
    OpRow& row = rows[name];
    row.stats.name = name;
    for (const auto& entry : by_stack) add_sat(row.samples, entry.second);
    row.top_stacks = top_stacks(by_stack, opt.top_stacks);
  }
  for (auto& entry : rows)
    if (entry.second.stats.latency_log2.empty())
      entry.second.stats.latency_log2.assign(kLatencyBuckets, 0);
  return rows;
}

std::vector<OpRow> sorted_rows(std::map<std::string, OpRow> by_name) {
  std::vector<OpRow> rows;
  for (auto& entry : by_name) rows.push_back(std::move(entry.second));
  std::stable_sort(rows.begin(), rows.end(), [](const OpRow& a, const OpRow& b) {
    if (a.stats.oncpu_ns != b.stats.oncpu_ns) return a.stats.oncpu_ns > b.stats.oncpu_ns;
    return a.samples > b.samples;
  });
  return rows;
}

Background background(const Profile& p) {
  Background bg;
  std::map<std::string, std::uint64_t> kthreads;
  for (const auto& s : p.samples) {
    if (s.kind == SampleKind::User) add_sat(bg.user_samples, s.count);
    if (s.kind == SampleKind::Kernel) add_sat(bg.kernel_samples, s.count);
    if (s.kind == SampleKind::Kthread) add_sat(kthreads[s.name], s.count);
  }
  for (const auto& [name, count] : kthreads) bg.kthreads.push_back({name, count});
  std::stable_sort(bg.kthreads.begin(), bg.kthreads.end(),
                   [](const auto& a, const auto& b) { return a.samples > b.samples; });
  return bg;
}

Consistency consistency(const Profile& p) {
  Consistency c;
  for (const auto& o : p.ops) add_sat(c.oncpu_ns_sum, o.oncpu_ns);
  for (const auto& s : p.samples)
    if (s.kind == SampleKind::Kernel && is_syscall_path(s.frames))
      add_sat(c.syscall_path_samples, s.count);
  if (p.meta.freq_hz > 0)
    c.syscall_path_ns = static_cast<double>(c.syscall_path_samples) * 1e9 / p.meta.freq_hz;
  if (p.rusage.valid) c.rusage_sys_ns = p.rusage.sys_ns;
  c.paused_ns = p.meta.paused_ns;
  if (p.rusage.valid && p.rusage.sys_ns > 0 && c.paused_ns == 0) {
    const auto sys = static_cast<double>(p.rusage.sys_ns);
    c.ratio = static_cast<double>(c.oncpu_ns_sum) / sys;
    if (c.syscall_path_ns)
      c.ratio_with_syscall_path = (static_cast<double>(c.oncpu_ns_sum) + *c.syscall_path_ns) / sys;
  }
  return c;
}

}  // namespace

ReportView build_report_view(const Profile& p, const ReportOptions& opt) {
  return {sorted_rows(collect_rows(p, opt)), background(p), consistency(p)};
}

std::optional<double> ops_per_sec(const OpStats& o, const Metadata& m) {
  if (m.duration_ns == 0) return std::nullopt;
  return static_cast<double>(o.count) * 1e9 / static_cast<double>(m.duration_ns);
}

std::optional<double> per_op(std::uint64_t total, std::uint64_t count) {
  if (count == 0) return std::nullopt;
  return static_cast<double>(total) / static_cast<double>(count);
}

std::optional<double> per_op_ns(std::uint64_t total_ns, std::uint64_t count) {
  return per_op(total_ns, count);
}

std::optional<double> on_off_agreement(const OpStats& o) {
  if (o.wall_ns == 0) return std::nullopt;
  return static_cast<double>(o.oncpu_ns + o.offcpu_ns) / static_cast<double>(o.wall_ns);
}

FsEventSummary fs_event_summary(const Profile& p) {
  FsEventSummary x{p.background_fs_events, p.device_write_bytes};
  for (const auto& [dev, bytes] : p.device_write_bytes) add_sat(x.device_write_bytes_sum, bytes);
  for (const auto& o : p.ops)
    if (o.name != "other") add_sat(x.fs_ops, o.count);
  if (x.device_write_bytes_sum != kSaturated)
    x.bytes_per_op = per_op(x.device_write_bytes_sum, x.fs_ops);
  return x;
}

std::optional<double> sys_share(const OpStats& o, const Rusage& r) {
  if (!r.valid || r.sys_ns == 0) return std::nullopt;
  return static_cast<double>(o.oncpu_ns) / static_cast<double>(r.sys_ns);
}

}  // namespace fscost
