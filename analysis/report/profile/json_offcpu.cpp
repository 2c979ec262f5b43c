// report_json()'s "offcpu" object (docs/REPORT-JSON.md).
#include "views/offcpu_view.h"
#include "report/profile/json_parts.h"
#include "views/report_view.h"

namespace fscost::json_parts {

namespace {

using nlohmann::json;

template <typename F>
json by_class(F&& value) {
  json out = json::object();
  for (std::size_t i = 0; i < kWaitClasses.size(); ++i)
    out[std::string(kWaitClasses[i])] = value(i);
  return out;
}

json share_json(const OffCpuShare& s) {
  return {{"wait_class", s.wait_class},     {"frames", s.frames}, {"waker", s.waker},
          {"waker_frames", s.waker_frames}, {"waker_work", s.waker_work},
          {"count", s.count},   {"total_ns", s.total_ns}};
}

std::optional<double> coverage(const OffCpuOp& op) {
  if (op.stats.offcpu_ns == 0) return std::nullopt;
  return static_cast<double>(op.stacks_ns) / static_cast<double>(op.stats.offcpu_ns);
}

json op_json(const OffCpuOp& op) {
  const OpStats& o = op.stats;
  json stacks = json::array();
  for (const auto& s : op.top_stacks) stacks.push_back(share_json(s));
  return {{"name", o.name},
          {"count", o.count},
          {"oncpu_ns_per_op", or_null(per_op_ns(o.oncpu_ns, o.count))},
          {"offcpu_ns_per_op", or_null(per_op_ns(o.offcpu_ns, o.count))},
          {"wall_ns_per_op", or_null(per_op_ns(o.wall_ns, o.count))},
          {"on_off_wall_ratio", or_null(on_off_agreement(o))},
          {"class_ns_total", by_class([&](std::size_t i) { return json(op.by_class[i]); })},
          {"class_ns_per_op",
           by_class([&](std::size_t i) { return or_null(per_op_ns(op.by_class[i], o.count)); })},
          {"stacks_ns_total", op.stacks_ns},
          {"stack_coverage", or_null(coverage(op))},
          {"top_stacks", std::move(stacks)}};
}

json thread_json(const OffCpuThread& t) {
  return {{"name", t.name},
          {"count", t.count},
          {"total_ns", t.total_ns},
          {"class_ns_total", by_class([&](std::size_t i) { return json(t.by_class[i]); })}};
}

}  // namespace

json offcpu_json(const Profile& p, const ReportOptions& opt) {
  OffCpuView v = build_offcpu_view(p, opt);
  json ops = json::array();
  for (const auto& op : v.ops) ops.push_back(op_json(op));
  json threads = json::array();
  for (const auto& t : v.background) threads.push_back(thread_json(t));
  json classes = json::array();
  for (auto c : kWaitClasses) classes.push_back(std::string(c));
  return {{"recorded", offcpu_recorded(p)},
          {"classes", std::move(classes)},
          {"ops", std::move(ops)},
          {"kthreads", std::move(threads)}};
}

}  // namespace fscost::json_parts
