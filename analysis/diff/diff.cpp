// diff_runs: the stages of diff/internal.h, in order.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "diff/internal.h"
#include "diff/mean_stacks.h"
#include "model/parallel.h"
#include "views/view.h"  // kViews

namespace fscost {

namespace {

// Every run's metrics, and every view's mean stacks of both sides:
// independent items, computed in parallel.
void prepare(const RunSet& a, const RunSet& b, std::vector<RunMetrics>& ma,
             std::vector<RunMetrics>& mb, MeanStacks& sa, MeanStacks& sb) {
  const RunSet* side[2] = {&a, &b};
  MeanStacks* out[2] = {&sa, &sb};
  ma.resize(a.runs.size());
  mb.resize(b.runs.size());
  const std::size_t stacks = 2 * kViews.size(), runs = ma.size() + mb.size();
  // The stacks first: they are the largest items.
  parallel_for(stacks + runs, [&](std::size_t i) {
    if (i < stacks) {
      out[i / kViews.size()]->build(*side[i / kViews.size()], kViews[i % kViews.size()]);
    } else if (i -= stacks; i < ma.size()) {
      ma[i] = run_metrics(a.runs[i]);
    } else {
      mb[i - ma.size()] = run_metrics(b.runs[i - ma.size()]);
    }
  });
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


std::string fs_of(const RunSet& s) {
  auto it = s.runs.front().setup.find("fs");
  return it == s.runs.front().setup.end() ? std::string() : it->second;
}

// Every run, as given.
Diff diff_all_runs(const RunSet& a, const RunSet& b, const DiffConfig& cfg) {
  require_runs(a, "A");
  require_runs(b, "B");
  std::vector<RunMetrics> ma, mb;
  auto sa = std::make_shared<MeanStacks>(), sb = std::make_shared<MeanStacks>();
  prepare(a, b, ma, mb, *sa, *sb);
  Diff d;
  d.label_a = a.label;
  d.label_b = b.label;
  d.runs_a = a.runs.size();
  d.runs_b = b.runs.size();
  d.fs_a = fs_of(a);
  d.fs_b = fs_of(b);
  d.config = cfg;
  d.ops = compare_ops(ma, mb, cfg);
  compare_totals(d, ma, mb);
  compare_chains(d, a, b);
  std::vector<FlameNode> trees = find_paths(d, a, b, *sa, *sb, cfg);
  control_fdr(d);
  find_exact_changes(d);
  descend_call_trees(d, a, b);
  const CrossFs fs = cross_fs(d);
  parallel_for(d.ops.size(), [&](std::size_t i) {
    classify_locks(d.ops[i]);
    explain_oncpu(d.ops[i], *sa, *sb, trees[i], cfg, fs);
    explain_offcpu(d.ops[i], *sa, *sb, cfg);
  });
  // "other" (syscalls outside the operation table: exec, futex, the
  // workload's own joins) goes last whatever it weighs: a reviewer reads the
  // filesystem operations first.
  std::stable_sort(d.ops.begin(), d.ops.end(), [](const OpDiff& x, const OpDiff& y) {
    bool ox = x.op == "other", oy = y.op == "other";
    if (ox != oy) return oy;
    return weight(x) > weight(y);
  });
  d.warnings = diff_warnings(d, a, b, ma, mb);
  d.setup = compare_setup(a, b, d.warnings);
  d.stacks_a = std::move(sa);
  d.stacks_b = std::move(sb);
  return d;
}


// "create on-CPU +0.40 µs/op (CI -0.20..+1.00)".
std::string estimate(const OpDiff& op) {
  const Comparison& c = op.oncpu;
  return fmt::format("{} on-CPU {}/op (CI {}..{})", op.op, ns_text(c.delta(), true),
                     ns_text(c.ci_lo(), true), ns_text(c.ci_hi(), true));
}

// More than one outlier on a side is the host's doing (a neighbour, steal,
// reclaim), not a bad run, and dropping the slow runs of one side can bias
// the difference: said on the first screen, with the estimate that keeps
// every run beside the one that leaves them out.
void name_cluster(Diff& without, const Diff& all, std::size_t out_a, std::size_t out_b) {
  std::string msg = fmt::format(
      "outliers cluster: {} run{} of A and {} of B are far off their side's median; that is "
      "the host (a busy or stolen machine) more than the runs",
      out_a, out_a == 1 ? "" : "s", out_b);
  const OpDiff* w = headline_op(without);
  const OpDiff* with = nullptr;
  for (const auto& op : all.ops)
    if (w && op.op == w->op) with = &op;
  if (w && with)
    msg += fmt::format(": {} without them, {} with them", estimate(*w),
                       estimate(*with).substr(with->op.size() + 1));
  without.warnings.insert(without.warnings.begin(),
                          {"outlier-cluster", msg + "; re-run on a quieter host"});
}

// The diff without the outlier runs, when the first pass found some and
// each side keeps at least 3 runs without them.
std::optional<Diff> without_outliers(const Diff& d, const RunSet& a, const RunSet& b,
                                     const DiffConfig& cfg) {
  std::vector<std::size_t> out_a = outlier_runs(d, false), out_b = outlier_runs(d, true);
  if (out_a.empty() && out_b.empty()) return std::nullopt;
  if (a.runs.size() - out_a.size() < 3 || b.runs.size() - out_b.size() < 3) return std::nullopt;
  std::vector<std::string> dropped;
  auto keep = [&](const RunSet& s, const std::vector<std::size_t>& out, const char* side) {
    RunSet k;
    k.label = s.label;
    for (std::size_t i = 0; i < s.runs.size(); ++i) {
      if (std::find(out.begin(), out.end(), i) != out.end()) {
        dropped.push_back(fmt::format("{} {}", side, run_file(s, i)));
        continue;
      }
      k.runs.push_back(s.runs[i]);
      if (i < s.sources.size()) k.sources.push_back(s.sources[i]);
    }
    return k;
  };
  RunSet ka = keep(a, out_a, "A"), kb = keep(b, out_b, "B");
  DiffConfig once = cfg;
  once.drop_outliers = false;
  Diff kept = diff_all_runs(ka, kb, once);
  kept.config = cfg;
  kept.dropped = dropped;
  // What the first pass said of them, and that they are out.
  std::vector<Warning> first;
  for (const auto& w : d.warnings)
    if (w.kind == "outlier")
      first.push_back({"dropped", w.message.substr(0, w.message.find("; it is kept")) +
                                      ": left out of every figure (the file stays)"});
  kept.warnings.insert(kept.warnings.begin(), first.begin(), first.end());
  return kept;
}

}  // namespace

const OpDiff* headline_op(const Diff& d) {
  for (const auto& op : d.ops)
    if (op.tested && op.op != "other") return &op;
  return nullptr;
}

CrossFs cross_fs(const Diff& d) {
  if (!d.cross_filesystem()) return {};
  return {fs_code(d.fs_a), fs_code(d.fs_b)};
}

Diff diff_runs(const RunSet& a, const RunSet& b, const DiffConfig& cfg) {
  Diff d = diff_all_runs(a, b, cfg);
  if (!cfg.drop_outliers) return d;
  auto kept = without_outliers(d, a, b, cfg);
  if (!kept) return d;
  std::size_t out_a = outlier_runs(d, false).size(), out_b = outlier_runs(d, true).size();
  if (out_a > 1 || out_b > 1) name_cluster(*kept, d, out_a, out_b);
  return std::move(*kept);
}

}  // namespace fscost
