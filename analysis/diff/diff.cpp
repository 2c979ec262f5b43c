// diff_runs: the stages of diff/internal.h, in order.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <string_view>

#include "diff/calibration.h"  // floor_intervals
#include "diff/internal.h"
#include "diff/mean_stacks.h"
#include "diff/stability.h"
#include "model/parallel.h"
#include "views/view.h"  // kViews

namespace fscost {

namespace {

// Every run's metrics: independent items, computed in parallel.
struct SideMetrics {
  std::vector<RunMetrics> a, b;
};
SideMetrics metrics_of(const RunSet& a, const RunSet& b) {
  SideMetrics m;
  m.a.resize(a.runs.size());
  m.b.resize(b.runs.size());
  parallel_for(m.a.size() + m.b.size(), [&](std::size_t i) {
    if (i < m.a.size())
      m.a[i] = run_metrics(a.runs[i]);
    else
      m.b[i - m.a.size()] = run_metrics(b.runs[i - m.a.size()]);
  });
  return m;
}

// Every view's mean stacks of both sides, in parallel.
void mean_stacks(const RunSet& a, const RunSet& b, MeanStacks& sa, MeanStacks& sb) {
  const RunSet* side[2] = {&a, &b};
  MeanStacks* out[2] = {&sa, &sb};
  parallel_for(2 * kViews.size(), [&](std::size_t i) {
    out[i / kViews.size()]->build(*side[i / kViews.size()], kViews[i % kViews.size()]);
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

// The runs' shared command, paths and the mount directory left out:
// "fsstress -z -f creat=1 -n 50000", and fscost's own workload by its mode
// ("create --files 40000"). "" if they differ.
std::string shared_workload(const std::vector<RunMetrics>& ma, const std::vector<RunMetrics>& mb) {
  const std::string& cmd = ma.front().identity.command;
  for (const auto* side : {&ma, &mb})
    for (const RunMetrics& m : *side)
      if (m.identity.command != cmd) return {};
  std::string out;
  std::size_t i = 0;
  for (bool first = true; i < cmd.size(); first = false) {
    std::size_t end = std::min(cmd.find(' ', i), cmd.size());
    std::string_view tok(cmd.data() + i, end - i);
    if (first) {
      tok = tok.substr(tok.rfind('/') + 1);  // the program's name, not where it lives
    } else if (tok == "<path>" || tok == "{dir}" || tok.ends_with("=<path>")) {
      tok = {};
    }
    if (!tok.empty()) out += (out.empty() ? "" : " ") + std::string(tok);
    i = end + 1;
  }
  // fscost's own workload by its mode: "create --files 40000 --fsync"
  constexpr std::string_view kOwn = "fscost-workload --workload ";
  return out.starts_with(kOwn) ? out.substr(kOwn.size()) : out;
}

// The start of every diff: the ops and the totals compared, each op's
// `tested` set. What outlier_runs reads is there.
Diff compared(const RunSet& a, const RunSet& b, const SideMetrics& m, const DiffConfig& cfg) {
  Diff d;
  d.label_a = a.label;
  d.label_b = b.label;
  d.runs_a = a.runs.size();
  d.runs_b = b.runs.size();
  d.fs_a = fs_of(a);
  d.fs_b = fs_of(b);
  d.workload = shared_workload(m.a, m.b);
  d.config = cfg;
  d.ops = compare_ops(m.a, m.b, cfg);
  compare_totals(d, m.a, m.b);
  for (auto& op : d.ops) op.tested = op_tested(op.op, op.count, cfg);
  floor_intervals(d);  // the estimates an outlier cluster's warning quotes
  return d;
}

// The rest of the diff `compared` began: chains, paths, the FDR, exact
// changes, the jackknife, the descent, the explanation and the warnings.
void complete(Diff& d, const RunSet& a, const RunSet& b, const SideMetrics& m) {
  const DiffConfig& cfg = d.config;
  auto sa = std::make_shared<MeanStacks>(), sb = std::make_shared<MeanStacks>();
  mean_stacks(a, b, *sa, *sb);
  compare_chains(d, a, b);
  std::vector<DeltaTree> trees = find_paths(d, a, b, *sa, *sb, cfg);
  control_fdr(d);
  find_exact_changes(d);
  // Before the verdicts are read (lock classes, parts of a delta): a
  // finding that one run carries is no verdict.
  const bool jackknife =
      cfg.jackknife && a.runs.size() >= kJackknifeRuns && b.runs.size() >= kJackknifeRuns;
  std::vector<Diff> left_out;
  if (jackknife) {
    left_out = left_out_diffs(d);
    paths_left_out(d, a, b, *sa, *sb, left_out);
    chains_left_out(d, a, b, left_out);
  }
  std::vector<Findings> held(left_out.size());
  descend_call_trees(d, a, b, jackknife ? &left_out : nullptr, jackknife ? &held : nullptr);
  if (jackknife) {
    mark_fragile(d, left_out, held);
    for (std::size_t i = 0; i < a.runs.size(); ++i) d.jackknife.push_back("A " + run_file(a, i));
    for (std::size_t i = 0; i < b.runs.size(); ++i) d.jackknife.push_back("B " + run_file(b, i));
  }
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
  d.warnings = diff_warnings(d, a, b, m.a, m.b);
  d.setup = compare_setup(a, b, d.warnings);
  d.stacks_a = std::move(sa);
  d.stacks_b = std::move(sb);
}

// Every run, as given.
Diff diff_all_runs(const RunSet& a, const RunSet& b, const DiffConfig& cfg) {
  require_runs(a, "A");
  require_runs(b, "B");
  const SideMetrics m = metrics_of(a, b);
  Diff d = compared(a, b, m, cfg);
  complete(d, a, b, m);
  return d;
}


// "create on-CPU +0.40 µs/op (CI -0.20..+1.00)".
std::string estimate(const OpDiff& op) {
  const Comparison& c = op.oncpu;
  return fmt::format("{} on-CPU {}/op (CI {}..{})", op.op, ns_text(c.delta(), true),
                     ns_text(c.ci_lo(), true), ns_text(c.ci_hi(), true));
}

// More than one outlier on a side: said on the first screen with the
// estimate that keeps them beside the one that leaves them out. Marked by
// the host, they are out of the figures (`shown` is without them); with no
// such mark they stay in (`shown` keeps them): dropping one side's slow or
// fast mode biases the difference
// (fs_mark in one shared directory: create +11.3 µs/op without its two
// fast B runs, +7.1 with them, /usr/bin/time +7.2; docs/CASES.md case 1b).
void name_cluster(Diff& shown, const Diff& other, std::size_t dropped, std::size_t out_a,
                  std::size_t out_b) {
  std::string msg = fmt::format("outliers cluster: {} run{} of A and {} of B are far off their "
                                "side's median",
                                out_a, out_a == 1 ? "" : "s", out_b);
  msg += dropped ? fmt::format("; the host marked {} (steal, other work or page zeroing), "
                               "left out",
                               dropped == out_a + out_b ? "them" : fmt::format("{} of them", dropped))
                 : ", with no more of the host in them than in the other runs, so "
                   "they stay in (leaving them out would bias the difference)";
  const OpDiff* s = headline_op(shown);
  const OpDiff* o = nullptr;
  for (const auto& op : other.ops)
    if (s && op.op == s->op) o = &op;
  if (s && o)
    msg += fmt::format(": {} {}, {} {}", estimate(*s), dropped ? "without them" : "with them",
                       estimate(*o).substr(o->op.size() + 1),
                       dropped ? "with them" : "without them");
  shown.warnings.insert(shown.warnings.begin(),
                        {WarningKind::OutlierCluster, msg + (dropped ? "; re-run on a quieter host"
                                                           : "; more runs narrow it "
                                                             "(--until-resolved)")});
}

// The diff without the runs `out_a`, `out_b`, when each side keeps at
// least 3 runs without them; their outlier warnings become "dropped" ones.
std::optional<Diff> without_runs(const Diff& d, const RunSet& a, const RunSet& b,
                                 const std::vector<std::size_t>& out_a,
                                 const std::vector<std::size_t>& out_b, const DiffConfig& cfg) {
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
  std::vector<Warning> said, first;
  run_warnings(d, a, b, said);
  for (const auto& w : said) {
    if (w.kind != WarningKind::Outlier) continue;
    const auto& out = w.side == 'B' ? out_b : out_a;
    if (std::find(out.begin(), out.end(), w.run) == out.end()) continue;
    first.push_back({WarningKind::Dropped, w.about + ": left out of every figure (the file stays)",
                     {}, w.side, w.run});
  }
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
  require_runs(a, "A");
  require_runs(b, "B");
  const SideMetrics m = metrics_of(a, b);
  Diff d = compared(a, b, m, cfg);
  if (!cfg.drop_outliers) {
    complete(d, a, b, m);
    return d;
  }
  // The outliers are read from the runs' figures, before the rest: the
  // diff is completed once, with them or without them.
  const auto [oa, ob] = outlier_runs(d, a, b);
  auto runs = [](const std::vector<OutlierRun>& o, bool marked_only) {
    std::vector<std::size_t> out;
    for (const auto& r : o)
      if (!marked_only || !r.host.empty()) out.push_back(r.run);
    return out;
  };
  const bool cluster = oa.size() > 1 || ob.size() > 1;
  if (auto kept = without_runs(d, a, b, runs(oa, true), runs(ob, true), cfg)) {
    if (cluster) name_cluster(*kept, d, kept->dropped.size(), oa.size(), ob.size());
    return std::move(*kept);
  }
  std::optional<Diff> all_out;
  if (cluster) {
    // Only its headline estimate is quoted: no jackknife.
    DiffConfig plain = cfg;
    plain.jackknife = false;
    all_out = without_runs(d, a, b, runs(oa, false), runs(ob, false), plain);
  }
  complete(d, a, b, m);
  if (all_out) name_cluster(d, *all_out, 0, oa.size(), ob.size());
  return d;
}

}  // namespace fscost
