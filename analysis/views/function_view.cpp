#include "views/function_view.h"

namespace fscost {

FunctionView build_function_view(const Profile& p) {
  FunctionView v;
  for (const auto& probe : p.meta.probes)
    if (probe.starts_with("fentry/fexit ") && probe.ends_with(")")) v.refused.push_back(probe);
  for (const auto& t : p.functions) {
    FunctionRow r{t};
    if (!t.op.empty())
      for (const auto& o : p.ops)
        if (o.name == t.op) r.op_count = o.count;
    auto ratio = [](std::uint64_t a, std::uint64_t b) -> std::optional<double> {
      if (b == 0) return std::nullopt;
      return static_cast<double>(a) / static_cast<double>(b);
    };
    r.calls_per_op = ratio(t.count, r.op_count);
    r.ns_per_call = ratio(t.total_ns, t.timed);
    r.ns_per_op = ratio(t.total_ns, r.op_count);
    v.rows.push_back(std::move(r));
  }
  return v;
}

}  // namespace fscost
