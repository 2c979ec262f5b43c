// diff_runs: the stages of diff_internal.h, in order.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "diff_internal.h"
#include "mean_stacks.h"

namespace fscost {

namespace {

std::vector<RunMetrics> metrics_of(const RunSet& s) {
  std::vector<RunMetrics> out;
  out.reserve(s.runs.size());
  for (const auto& p : s.runs) out.push_back(run_metrics(p));
  return out;
}

void require_runs(const RunSet& s, const char* side) {
  if (!s.runs.empty()) return;
  throw UserError(fmt::format("configuration {} ({}) has no runs", side, s.label),
                  "give a profile file, or a directory of *.profile files, for each side");
}

// What the op costs the workload in B's terms: its per-op delta times the
// operations one run did.
double weight(const OpDiff& op) {
  double delta = op.oncpu.delta() + op.offcpu.delta();
  double count = std::max(op.count.sa.mean, op.count.sb.mean);
  double w = std::fabs(delta) * count;
  return std::isfinite(w) ? w : 0;
}

}  // namespace

Diff diff_runs(const RunSet& a, const RunSet& b, const DiffConfig& cfg) {
  require_runs(a, "A");
  require_runs(b, "B");
  mean_stack_memo(a);  // made here, shared by the explanations and the HTML report
  mean_stack_memo(b);
  std::vector<RunMetrics> ma = metrics_of(a), mb = metrics_of(b);
  Diff d;
  d.label_a = a.label;
  d.label_b = b.label;
  d.runs_a = a.runs.size();
  d.runs_b = b.runs.size();
  d.config = cfg;
  d.ops = compare_ops(ma, mb, cfg);
  compare_totals(d, ma, mb);
  control_fdr(d);
  for (auto& op : d.ops) {
    classify_locks(op);
    explain_oncpu(op, a, b, cfg);
    explain_offcpu(op, a, b, cfg);
  }
  // "other" (syscalls outside the operation table: exec, futex, the
  // workload's own joins) goes last whatever it weighs: a reviewer reads the
  // filesystem operations first.
  std::stable_sort(d.ops.begin(), d.ops.end(), [](const OpDiff& x, const OpDiff& y) {
    bool ox = x.op == "other", oy = y.op == "other";
    if (ox != oy) return oy;
    return weight(x) > weight(y);
  });
  d.warnings = diff_warnings(d, a, b, ma, mb);
  return d;
}

}  // namespace fscost
