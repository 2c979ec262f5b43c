// record --time-functions in the text report.
#include "report/profile/text_parts.h"
#include "views/function_view.h"
#include "model/units.h"

namespace fscost::text {

void function_sections(std::string& out, const Profile& p) {
  FunctionView v = build_function_view(p);
  if (v.empty()) return;
  line(out, "kernel functions (fentry/fexit; entry to return, off-CPU time included)");
  if (!v.rows.empty()) {
    constexpr auto kFormat = "  {:<24} {:<12} {:>10} {:>9} {:>10} {:>10} {:>10}";
    line(out, kFormat, "function", "operation", "calls", "calls/op", "µs/call", "µs/op", "max µs");
    auto us = [](std::optional<double> ns) {
      return fixed1(ns ? std::optional(*ns / 1000) : std::nullopt);
    };
    for (const auto& r : v.rows)
      line(out, kFormat, r.t.function, r.t.op.empty() ? "(outside)" : r.t.op, r.t.count,
           fixed_or_dash(r.calls_per_op, 2), us(r.ns_per_call), us(r.ns_per_op),
           fixed1(static_cast<double>(r.t.max_ns) / 1000));
  }
  for (const auto& why : v.refused) line(out, "  not timed: {}", why);
  out += '\n';
}

}  // namespace fscost::text
