// Why a diff may not mean what it seems to: too few runs, user time that
// dilutes kernel deltas, wall and sys time moving apart, noise larger than
// the effect, lost data, configurations that differ in more than was asked,
// background kernel work, workloads that did different amounts of work.
// Each warning is one sentence with the numbers behind it.
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "diff/calibration.h"
#include "diff/internal.h"
#include "diff/stability.h"
#include "model/drops.h"

namespace fscost {

namespace {

struct Ctx {
  const Diff& d;
  const RunSet& a;
  const RunSet& b;
  const std::vector<RunMetrics>& ma;
  const std::vector<RunMetrics>& mb;
  std::vector<Warning>& out;

  void add(WarningKind kind, std::string message, std::string op = {}) {
    out.push_back({kind, std::move(message), std::move(op)});
  }
};

std::string signed_percent(double rel) { return fmt::format("{:+.0f}%", 100 * rel); }

void few_runs(Ctx& c) {
  for (const auto& [label, n] : {std::pair{c.d.label_a, c.d.runs_a}, {c.d.label_b, c.d.runs_b}}) {
    if (n < 2)
      c.add(WarningKind::FewRuns, fmt::format("{} has {} run: no statistics possible (at least 2 runs per "
                                    "side are needed, 5 or more to see small effects)",
                                    label, n));
    else if (n < 3)
      c.add(WarningKind::FewRuns, fmt::format("{} has only {} runs: intervals are wide and the rank test "
                                    "cannot reach significance (3 or more runs, better 5)",
                                    label, n));
    else if (n < kJackknifeRuns && c.d.config.jackknife)
      c.add(WarningKind::FewRuns, fmt::format("{} has only {} runs: no finding was checked against leaving "
                                    "one run out ({} or more runs a side), so a repeat of this "
                                    "compare may say otherwise",
                                    label, n, kJackknifeRuns));
  }
}

void user_share(Ctx& c) {
  double limit = 100 * c.d.config.user_share_warn;
  for (const auto& [label, s] :
       {std::pair{c.d.label_a, c.d.user_share.sa}, {c.d.label_b, c.d.user_share.sb}}) {
    if (s.n == 0 || !(s.mean > limit)) continue;
    c.add(WarningKind::UserShare, fmt::format("user CPU is {:.0f}% of the workload's CPU in {} (threshold "
                                    "{:.0f}%): kernel deltas are diluted in wall time",
                                    s.mean, label, limit));
  }
}

void wall_vs_sys(Ctx& c) {
  double sys = c.d.sys_ns.rel, wall = c.d.wall_ns.rel;
  if (!std::isfinite(sys) || !std::isfinite(wall) || std::fabs(sys - wall) * 100 <= 5) return;
  c.add(WarningKind::WallVsSys,
        fmt::format("sys time {} but wall time {}: kernel CPU and elapsed time moved "
                    "differently (waits, parallelism or user time)",
                    signed_percent(sys), signed_percent(wall)));
}

double pooled_sd(const Comparison& x) {
  double na = static_cast<double>(x.sa.n), nb = static_cast<double>(x.sb.n);
  if (na < 2 || nb < 2) return std::nan("");
  return std::sqrt(((na - 1) * x.sa.sd * x.sa.sd + (nb - 1) * x.sb.sd * x.sb.sd) / (na + nb - 2));
}

void noise(Ctx& c) {
  for (const auto& op : c.d.ops) {
    double sd = pooled_sd(op.oncpu), delta = op.oncpu.delta();
    if (!(sd > std::fabs(delta))) continue;
    c.add(WarningKind::Noise, fmt::format("{}: run-to-run noise in on-CPU time (pooled sd {}/op) exceeds "
                               "the difference ({}/op)",
                               op.op, ns_text(sd), ns_text(delta, true)),
          op.op);
  }
}

constexpr std::uint64_t kMinorMissed = 10;

void drops_of(Ctx& c, const RunSet& s, const std::vector<RunMetrics>& m) {
  std::map<std::string, std::pair<std::uint64_t, std::vector<std::string>>> by_counter;
  for (std::size_t i = 0; i < m.size(); ++i)
    for (const auto& [name, n] : m[i].drops) {
      by_counter[name].first += n;
      by_counter[name].second.push_back(run_file(s, i));
    }
  if (by_counter.empty()) return;
  std::string list, hints;
  for (const auto& [name, v] : by_counter) {
    list += fmt::format("{}{} {} in {} of {} runs ({})", list.empty() ? "" : "; ", name, v.first,
                        v.second.size(), m.size(), fmt::join(v.second, ", "));
    hints += fmt::format("{}{}", hints.empty() ? "" : "; ", describe_drop(name).hint);
  }
  // Which probes' programs the kernel skipped, and whether an op's count
  // could be off by them (profiles of this fscost say; older ones do not).
  std::map<std::string, std::uint64_t> missed;
  for (const Profile& p : s.runs)
    for (const auto& [probe, n] : p.prog_missed_by) missed[probe] += n;
  bool op_counts = false;
  std::string by_probe;
  for (const auto& [probe, n] : missed) {
    ProbeFeed f = probe_feed(probe);
    op_counts |= f.op_counts;
    by_probe += fmt::format("{}{} {} ({})", by_probe.empty() ? "" : "; ", probe, n, f.feeds);
  }
  std::string programs;
  if (by_counter.count("prog_missed"))
    programs = missed.empty()
                   ? "; the recording did not say which programs missed"
                   : fmt::format("; missed by probe: {}; {}", by_probe,
                                 op_counts ? "op counts could be off by as many"
                                           : "no op's count could be affected");
  // A handful of missed program runs among millions of events, none of them
  // an op's entry or exit, changes no figure: said below the first screen.
  bool minor = by_counter.size() == 1 && by_counter.begin()->first == "prog_missed" &&
               by_counter.begin()->second.first <= kMinorMissed && !op_counts;
  c.add(minor ? WarningKind::DropsMinor : WarningKind::Drops,
        fmt::format("data was lost in {}: {} ({}){}", s.label, list, hints, programs));
}

// One identity field's values on each side, as text.
template <typename Get>
void mismatch(Ctx& c, const char* field, Get get) {
  std::set<std::string> va, vb;
  for (const auto& r : c.ma) va.insert(get(r.identity));
  for (const auto& r : c.mb) vb.insert(get(r.identity));
  if (va == vb) return;
  c.add(WarningKind::ConfigMismatch, fmt::format("{} differs: {} in {}, {} in {}", field,
                                       fmt::join(va, " / "), c.d.label_a, fmt::join(vb, " / "),
                                       c.d.label_b));
}

void probe_mismatch(Ctx& c) {
  std::set<std::string> pa, pb;
  for (const auto& r : c.ma) pa.insert(r.identity.probes.begin(), r.identity.probes.end());
  for (const auto& r : c.mb) pb.insert(r.identity.probes.begin(), r.identity.probes.end());
  std::vector<std::string> only_a, only_b;
  std::set_difference(pa.begin(), pa.end(), pb.begin(), pb.end(), std::back_inserter(only_a));
  std::set_difference(pb.begin(), pb.end(), pa.begin(), pa.end(), std::back_inserter(only_b));
  if (only_a.empty() && only_b.empty()) return;
  c.add(WarningKind::ConfigMismatch,
        fmt::format("probes differ: only in {}: {}; only in {}: {}", c.d.label_a,
                    only_a.empty() ? "none" : fmt::format("{}", fmt::join(only_a, ", ")),
                    c.d.label_b,
                    only_b.empty() ? "none" : fmt::format("{}", fmt::join(only_b, ", "))));
}

void config_mismatch(Ctx& c) {
  // Another machine is another CPU, memory and load: its runs measure it too.
  mismatch(c, "host", [](const RunIdentity& i) { return i.hostname; });
  mismatch(c, "kernel release", [](const RunIdentity& i) { return i.kernel_release; });
  mismatch(c, "CPU count", [](const RunIdentity& i) { return std::to_string(i.cpus); });
  mismatch(c, "sampling frequency",
           [](const RunIdentity& i) { return std::to_string(i.freq_hz) + " Hz"; });
  probe_mismatch(c);
  mismatch(c, "command", [](const RunIdentity& i) { return "'" + i.command + "'"; });
}

// A floor measured on another host or workload: its noise is not these runs'.
void calibration(Ctx& c) {
  if (!c.d.config.calibration) return;
  for (const RunSet* side : {&c.a, &c.b})
    if (std::string why = calibration_mismatch(*c.d.config.calibration, side->runs.front());
        !why.empty()) {
      c.add(WarningKind::CalibrationMismatch, why);
      return;
    }
}

void background(Ctx& c) {
  const Comparison& k = c.d.kthread_ns;
  if (!k.significant()) return;
  c.add(WarningKind::Background,
        fmt::format("background kernel-thread CPU changed {} per run ({} in {}, {} in {}, "
                    "q = {:.2g}): kernel work outside the operations is not in their figures",
                    std::isfinite(k.rel) ? signed_percent(k.rel) : ns_text(k.delta(), true),
                    ns_text(k.sa.mean), c.d.label_a, ns_text(k.sb.mean), c.d.label_b, k.q));
}

void op_count(Ctx& c) {
  for (const auto& op : c.d.ops) {
    if (!op.count.significant()) continue;
    c.add(WarningKind::OpCount, fmt::format("{}: {} did {:.0f} operations per run and {} {:.0f} (q = "
                                  "{:.2g}): the workloads did different work",
                                  op.op, c.d.label_a, op.count.sa.mean, c.d.label_b,
                                  op.count.sb.mean, op.count.q),
          op.op);
  }
}

}  // namespace

std::string_view warning_name(WarningKind k) {
  switch (k) {
#define FSCOST_X(id, name) \
  case WarningKind::id:    \
    return name;
    FSCOST_WARNING_KINDS(FSCOST_X)
#undef FSCOST_X
  }
  return "?";
}

std::vector<Warning> diff_warnings(const Diff& d, const RunSet& a, const RunSet& b,
                                   const std::vector<RunMetrics>& ma,
                                   const std::vector<RunMetrics>& mb) {
  std::vector<Warning> out;
  Ctx c{d, a, b, ma, mb, out};
  few_runs(c);
  full_fs_warnings(a, d.label_a, out);
  full_fs_warnings(b, d.label_b, out);
  config_mismatch(c);
  calibration(c);
  drops_of(c, a, ma);
  drops_of(c, b, mb);
  user_share(c);
  wall_vs_sys(c);
  background(c);
  op_count(c);
  noise(c);
  run_warnings(d, a, b, out);
  return out;
}

}  // namespace fscost
