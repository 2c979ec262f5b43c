// The report for scripts; every field is documented in docs/REPORT-JSON.md.
// Field names and meanings are a stable interface: add, never change.
#include <nlohmann/json.hpp>

#include "model/units.h"
#include "report/profile/json_parts.h"
#include "report/report.h"
#include "views/function_view.h"
#include "views/report_view.h"

namespace fscost {

namespace {

using json_parts::or_null;
using nlohmann::json;

json meta_json(const Metadata& m) {
  json out = {{"fscost_version", m.fscost_version},
              {"kernel_release", m.kernel_release},
              {"hostname", m.hostname},
              {"cpus", m.cpus},
              {"target", m.target},
              {"command", m.command},
              {"start_unix_ns", m.start_unix_ns},
              {"duration_ns", m.duration_ns},
              {"freq_hz", m.freq_hz},
              {"probes", m.probes}};
  if (m.paused_ns) out["paused_ns"] = m.paused_ns;
  if (m.drain_ns) out["drain_ns"] = m.drain_ns;
  return out;
}

json rusage_json(const Rusage& r) {
  if (!r.valid) return nullptr;
  return {{"user_ns", r.user_ns}, {"sys_ns", r.sys_ns}, {"wall_ns", r.wall_ns}};
}

json stacks_json(const std::vector<StackShare>& stacks) {
  json out = json::array();
  for (const auto& s : stacks) out.push_back({{"frames", s.frames}, {"samples", s.samples}});
  return out;
}

// Counter → events per completed operation (null if none completed).
json fs_events_per_op(const OpStats& o) {
  json out = json::object();
  for (const auto& [name, n] : o.fs_events) out[name] = or_null(per_op(n, o.count));
  return out;
}

json op_json(const OpRow& row, const Profile& p) {
  const OpStats& o = row.stats;
  return {{"name", o.name},
          {"count", o.count},
          {"errors", o.errors},
          {"ops_per_sec", or_null(ops_per_sec(o, p.meta))},
          {"oncpu_ns_total", o.oncpu_ns},
          {"oncpu_ns_per_op", or_null(per_op_ns(o.oncpu_ns, o.count))},
          {"wall_ns_total", o.wall_ns},
          {"wall_ns_per_op", or_null(per_op_ns(o.wall_ns, o.count))},
          {"sys_share", or_null(sys_share(o, p.rusage))},
          {"latency_log2_ns", o.latency_log2},
          {"samples", row.samples},
          {"top_stacks", stacks_json(row.top_stacks)},
          {"offcpu_ns_total", o.offcpu_ns},
          {"offcpu_ns_per_op", or_null(per_op_ns(o.offcpu_ns, o.count))},
          {"fs_events_per_op", fs_events_per_op(o)},
          {"trans_min", o.trans_min},
          {"trans_max", o.trans_max}};
}

json background_json(const Background& bg) {
  json kthreads = json::array();
  for (const auto& k : bg.kthreads) kthreads.push_back({{"name", k.name}, {"samples", k.samples}});
  return {{"user_samples", bg.user_samples},
          {"kernel_samples", bg.kernel_samples},
          {"kthreads", std::move(kthreads)}};
}

json fs_events_json(const FsEventSummary& x) {
  return {{"background", x.background},
          {"device_write_bytes", x.device_write_bytes},
          {"device_write_bytes_total", x.device_write_bytes_sum},
          {"device_write_bytes_overflow", x.device_write_bytes_sum == kSaturated},
          {"fs_ops", x.fs_ops},
          {"device_write_bytes_per_op", or_null(x.bytes_per_op)}};
}

json consistency_json(const Consistency& c) {
  json sys = c.rusage_sys_ns ? json(*c.rusage_sys_ns) : json(nullptr);
  return {{"oncpu_ns_sum", c.oncpu_ns_sum},
          {"rusage_sys_ns", sys},
          {"ratio", or_null(c.ratio)},
          {"syscall_path_samples", c.syscall_path_samples},
          {"syscall_path_ns", or_null(c.syscall_path_ns)},
          {"ratio_with_syscall_path", or_null(c.ratio_with_syscall_path)}};
}

}  // namespace

nlohmann::json report_json(const Profile& p, const ReportOptions& opt) {
  View view = opt.view;
  ReportView v = build_report_view(p, opt);
  json ops = json::array();
  for (const auto& row : v.rows) ops.push_back(op_json(row, p));
  json out = {{"schema", "fscost-report"},
              {"version", kReportSchemaVersion},
              {"view", std::string(view_name(opt.view))},
              {"meta", meta_json(p.meta)},
              {"rusage", rusage_json(p.rusage)},
              {"ops", std::move(ops)},
              {"background", background_json(v.background)},
              {"consistency", consistency_json(v.consistency)},
              {"fs_events", fs_events_json(fs_event_summary(p))},
              {"drops", p.drops},
              {"samples_total", p.samples_total}};
  if (FunctionView fv = build_function_view(p); !fv.empty()) {
    json rows = json::array();
    auto opt_num = [](std::optional<double> v) { return v ? json(*v) : json(nullptr); };
    for (const auto& r : fv.rows)
      rows.push_back({{"function", r.t.function}, {"op", r.t.op}, {"count", r.t.count},
                      {"timed", r.t.timed}, {"total_ns", r.t.total_ns}, {"max_ns", r.t.max_ns},
                      {"op_count", r.op_count}, {"calls_per_op", opt_num(r.calls_per_op)},
                      {"ns_per_call", opt_num(r.ns_per_call)}, {"ns_per_op", opt_num(r.ns_per_op)}});
    out["functions"] = {{"rows", std::move(rows)}, {"not_timed", fv.refused}};
  }
  if (view == View::OffCpu) out["offcpu"] = json_parts::offcpu_json(p, opt);
  if (view == View::Locks) out["locks"] = json_parts::locks_json(p, opt);
  return out;
}

}  // namespace fscost
