// Runs that measured the machine rather than the filesystem (run_warnings,
// internal.h): a run far off its side's others on a whole-run or per-op
// figure (an outlier, by a robust rule), and figures that follow the runs'
// order on both sides (drift: the VM handing memory back to its host, a
// neighbour's load), and the host's marks on each run (steal, other work,
// page zeroing). All are named, never silently dropped; diff_runs leaves
// out only an outlier the host marked.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <optional>

#include "diff/internal.h"
#include "model/frame_match.h"

namespace fscost {

namespace {

// An outlier is this many robust sds (1.4826 × MAD) from its side's median,
// and at least kOutlierShare of the median (of the op's latency, for a
// per-op figure) away: with 5 runs the MAD can be tiny, and a 3% wobble is
// no outlier however tight the rest. Slow runs on this VM came 13–48% slow
// (a create's on-CPU time in repeated compares), ordinary runs within about
// 5% of each other: 10%. A per-op figure's deviation must also be worth
// kOutlierRunShare of the time the run spent in its tested ops: +0.5 µs on
// each of 20,000 2 µs writes (10 ms of a run's 500 ms, 22% of the write) is
// a blip of the host, not a run to drop.
constexpr double kOutlierZ = 3.5;
constexpr double kOutlierShare = 0.10;
constexpr double kOutlierRunShare = 0.05;
// Drift: Spearman's ρ of a figure against run order, on both sides alike.
constexpr double kDriftRho = 0.9;
constexpr std::size_t kMinRuns = 4;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Figure {
  std::string name;  // "wall clock", "create on-CPU"
  const Comparison* c;
  bool per_op;       // ns/op (else ns per run)
  // What a deviation must be a share of to matter: the figure itself for
  // whole-run times, the op's latency for a per-op part of it (a few ns of
  // off-CPU time in a 20 µs create is no outlier, however rare).
  const Comparison* scale;
  const Comparison* count = nullptr;  // the op's operations per run (per-op figures)
};

std::vector<Figure> figures(const Diff& d) {
  std::vector<Figure> f{{"wall clock", &d.wall_ns, false, &d.wall_ns},
                        {"system CPU", &d.sys_ns, false, &d.sys_ns}};
  for (const auto& op : d.ops) {
    // The sync phase is one writeback a run, as variable as the device:
    // its spread says nothing about the machine.
    if (!op.tested || op.op == "sync") continue;
    f.push_back({op.op + " latency", &op.latency, true, &op.latency, &op.count});
    f.push_back({op.op + " on-CPU", &op.oncpu, true, &op.latency, &op.count});
  }
  return f;
}

std::string value(double ns, bool per_op) { return ns_text(ns) + (per_op ? "/op" : ""); }

// run index → "wall clock 9.2 s (median 0.45 s)" items.
std::map<std::size_t, std::vector<std::string>> outliers(const std::vector<Figure>& fs,
                                                         bool side_b) {
  std::map<std::size_t, std::vector<std::string>> out;
  auto side = [&](const Comparison& c) -> const std::vector<double>& { return side_b ? c.b : c.a; };
  // The time a run spent in its tested ops (latency × count), by medians.
  double op_time = 0;
  for (const auto& f : fs)
    if (f.count && f.c == f.scale && !side(*f.c).empty() && !side(*f.count).empty())
      op_time += median(side(*f.c)) * median(side(*f.count));
  for (const auto& f : fs) {
    const std::vector<double>& x = side(*f.c);
    const std::vector<double>& scale = side(*f.scale);
    if (x.size() < kMinRuns || scale.empty()) continue;
    double med = median(x), matters = kOutlierShare * std::fabs(median(scale));
    if (f.count && !side(*f.count).empty())  // per op: worth a share of the run's op time
      matters = std::max(matters, kOutlierRunShare * op_time / std::max(1.0, median(side(*f.count))));
    std::vector<double> dev;
    for (double v : x) dev.push_back(std::fabs(v - med));
    double sd = 1.4826 * median(dev);
    for (std::size_t i = 0; i < x.size(); ++i) {
      double d = std::fabs(x[i] - med);
      if (d > kOutlierZ * sd && d > matters && d > 0)
        out[i].push_back(fmt::format("{} {} (median {})", f.name, value(x[i], f.per_op),
                                     value(med, f.per_op)));
    }
  }
  return out;
}

// Spearman's ρ of x against its order 0..n−1 (ties: midranks).
double rho_with_order(const std::vector<double>& x, const std::vector<std::size_t>& order) {
  const std::size_t n = x.size();
  std::vector<double> rank(n);
  std::vector<std::size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](auto i, auto j) { return x[i] < x[j]; });
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && x[idx[j]] == x[idx[i]]) ++j;
    for (std::size_t k = i; k < j; ++k) rank[idx[k]] = (static_cast<double>(i + j) - 1) / 2;
    i = j;
  }
  double mo = (static_cast<double>(n) - 1) / 2, sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double a = static_cast<double>(order[i]) - mo, b = rank[i] - mo;
    sxy += a * b, sxx += a * a, syy += b * b;
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0;
}

// Each run's position among its side's runs by start time.
std::vector<std::size_t> order_of(const RunSet& s) {
  std::vector<std::size_t> idx(s.runs.size()), pos(s.runs.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](auto i, auto j) {
    return s.runs[i].meta.start_unix_ns < s.runs[j].meta.start_unix_ns;
  });
  for (std::size_t k = 0; k < idx.size(); ++k) pos[idx[k]] = k;
  return pos;
}

bool timed(const RunSet& s) {
  return std::all_of(s.runs.begin(), s.runs.end(),
                     [](const Profile& p) { return p.meta.start_unix_ns != 0; });
}

constexpr double kOtherShare = 0.10;

// Sampled on-CPU time of the ops spent zeroing pages (clear_page*): high in
// a run whose memory the host had taken back (virtio-balloon free page
// reporting hands it over about 2 s after the guest frees it), which then
// faults it in again at about 1 s per GiB.
constexpr std::string_view kZeroing[] = {"clear_page*", "clear_huge_page", "folio_zero_user"};
constexpr double kZeroingPoints = 0.05;

// What the machine did around each run besides the workload, from
// /proc/stat (compare keeps it in the profile's setup) and the run's own
// samples. A share is nullopt when the run has no such record (a profile
// made by `fscost record`, an import).
struct HostMarks {
  std::optional<double> other;  // CPU neither the recording nor kernel threads, of the machine's
  std::optional<double> steal;  // time the host took from the vCPUs, of the machine's
  double zeroing = 0;           // share of the ops' samples in page zeroing
};

std::vector<HostMarks> host_marks(const RunSet& s) {
  std::vector<HostMarks> out(s.runs.size());
  std::vector<std::int8_t> zeroing;  // frame id → is a zeroing function; -1 not asked yet
  StackMemo<std::int8_t> stack_zeroes(-1);  // has one; -1 not asked yet
  auto zeroes = [&](const InternedStack& stack) {
    std::int8_t& known = stack_zeroes[stack];
    if (known >= 0) return known == 1;
    known = 0;
    for (const Frame& f : stack) {
      if (f.id() >= zeroing.size()) zeroing.resize(Frame::pool_size(), -1);
      std::int8_t& z = zeroing[f.id()];
      if (z < 0) z = frame_matches_any(f.str(), kZeroing);
      if (z) return (known = 1) == 1;
    }
    return false;
  };
  for (std::size_t i = 0; i < s.runs.size(); ++i) {
    const Profile& p = s.runs[i];
    double all = 0, zero = 0, kthreads = 0;
    for (const auto& smp : p.samples) {
      if (smp.kind == SampleKind::Kthread)
        kthreads += samples_to_ns(static_cast<double>(smp.count), p.meta.freq_hz);
      if (smp.kind != SampleKind::Op) continue;
      all += static_cast<double>(smp.count);
      if (zeroes(smp.frames)) zero += static_cast<double>(smp.count);
    }
    out[i].zeroing = all > 0 ? zero / all : 0;
    auto total = setup_number(p, "machine_total_ns"), busy = setup_number(p, "machine_busy_ns"),
         stolen = setup_number(p, "machine_steal_ns"), own = setup_number(p, "record_cpu_ns");
    if (!total || !(*total > 0)) continue;
    if (busy && own) out[i].other = std::max(0.0, *busy - *own - kthreads) / *total;
    if (stolen) out[i].steal = *stolen / *total;
  }
  return out;
}

// Runs whose ops zeroed pages kZeroingPoints more than the side's median:
// "run2.profile 10%" by run index.
std::map<std::size_t, std::string> zeroing_runs(const RunSet& s,
                                                const std::vector<HostMarks>& marks) {
  std::map<std::size_t, std::string> out;
  if (marks.size() < 2) return out;
  std::vector<double> share;
  for (const auto& m : marks) share.push_back(m.zeroing);
  const double med = median(share);
  for (std::size_t i = 0; i < share.size(); ++i)
    if (share[i] - med > kZeroingPoints)
      out[i] = fmt::format("{} {:.0f}%", run_file(s, i), 100 * share[i]);
  return out;
}

// The host's mark on run i, if it has one ("steal 20%", "other work 42% of
// the CPU", "page zeroing 10% of its ops' CPU"); "" if none, or none
// recorded. Steal and other work mark a run when above their share and as
// far above the median of every run of both sides (`steal_med`,
// `other_med`): a host busy through the whole compare (another session's
// build at half the CPUs in each run) marks no run, since it is no more
// the cause of one run's figures than of the rest.
std::string host_mark(const std::vector<HostMarks>& marks,
                      const std::map<std::size_t, std::string>& zeroing, std::size_t i,
                      double steal_med, double other_med) {
  std::vector<std::string> m;
  if (marks[i].steal && *marks[i].steal > kStealShare && *marks[i].steal - steal_med > kStealShare)
    m.push_back(fmt::format("steal {:.0f}%", 100 * *marks[i].steal));
  if (marks[i].other && *marks[i].other > kOtherShare && *marks[i].other - other_med > kOtherShare)
    m.push_back(fmt::format("other work {:.0f}% of the CPU", 100 * *marks[i].other));
  if (zeroing.count(i))
    m.push_back(fmt::format("page zeroing {:.0f}% of its ops' CPU", 100 * marks[i].zeroing));
  return fmt::format("{}", fmt::join(m, ", "));
}

// What was seen of the host in run i when it left no mark: "steal 2%,
// other work 1%", or "" when the run has no record of the machine.
std::string host_seen(const std::vector<HostMarks>& marks, std::size_t i) {
  std::vector<std::string> m;
  if (marks[i].steal) m.push_back(fmt::format("steal {:.0f}%", 100 * *marks[i].steal));
  if (marks[i].other) m.push_back(fmt::format("other work {:.0f}%", 100 * *marks[i].other));
  return fmt::format("{}", fmt::join(m, ", "));
}

// Runs during which the machine did much besides the workload: CPU that was
// neither the recording (fscost record and its workload) nor kernel
// threads, or time the host stole from the guest's vCPUs.
void busy_machine(const RunSet& s, const std::vector<HostMarks>& marks,
                  std::vector<Warning>& out) {
  std::vector<std::string> other, steal;
  for (std::size_t i = 0; i < marks.size(); ++i) {
    if (marks[i].other && *marks[i].other > kOtherShare)
      other.push_back(fmt::format("{} {:.0f}%", run_file(s, i), 100 * *marks[i].other));
    if (marks[i].steal && *marks[i].steal > kStealShare)
      steal.push_back(fmt::format("{} {:.0f}%", run_file(s, i), 100 * *marks[i].steal));
  }
  if (!other.empty())
    out.push_back({WarningKind::BusyMachine,
                   fmt::format("{}: other work used more than {:.0f}% of the machine's CPU "
                               "during {} (besides the workload, fscost and kernel threads): "
                               "the runs shared the CPUs",
                               s.label, 100 * kOtherShare, fmt::join(other, ", "))});
  if (!steal.empty())
    out.push_back({WarningKind::Steal,
                   fmt::format("{}: the host took more than {:.0f}% of the vCPUs' time during "
                               "{} (steal): those runs' times include waits for the host",
                               s.label, 100 * kStealShare, fmt::join(steal, ", "))});
}

void page_zeroing(const RunSet& s, const std::vector<HostMarks>& marks,
                  const std::map<std::size_t, std::string>& runs, std::vector<Warning>& out) {
  if (runs.empty()) return;
  std::vector<double> share;
  for (const auto& m : marks) share.push_back(m.zeroing);
  std::vector<std::string> named;
  for (const auto& [i, text] : runs) named.push_back(text);
  out.push_back({WarningKind::PageZeroing,
                 fmt::format("{}: the ops spent more of their CPU zeroing pages in {} than "
                             "in the side's other runs (median {:.0f}%): memory the host had "
                             "taken back was faulted in again, a cost of the machine",
                             s.label, fmt::join(named, ", "), 100 * median(share))});
}

// Both sides' marks, found once: each run's, the runs that zeroed pages,
// and the medians a mark is measured against.
struct Machine {
  std::vector<HostMarks> a, b;
  std::map<std::size_t, std::string> zeroing_a, zeroing_b;
  double steal_med = 0, other_med = 0;
};

Machine machine(const RunSet& a, const RunSet& b) {
  Machine m{host_marks(a), host_marks(b), {}, {}, 0, 0};
  m.zeroing_a = zeroing_runs(a, m.a);
  m.zeroing_b = zeroing_runs(b, m.b);
  std::vector<double> steal, other;
  for (const auto* side : {&m.a, &m.b})
    for (const auto& h : *side) {
      if (h.steal) steal.push_back(*h.steal);
      if (h.other) other.push_back(*h.other);
    }
  if (!steal.empty()) m.steal_med = median(steal);
  if (!other.empty()) m.other_med = median(other);
  return m;
}

std::vector<OutlierRun> side_outliers(const std::vector<Figure>& fs, const Machine& m,
                                      bool side_b) {
  const std::vector<HostMarks>& marks = side_b ? m.b : m.a;
  std::vector<OutlierRun> out;
  for (auto& [i, items] : outliers(fs, side_b)) {
    OutlierRun o{.run = i, .items = std::move(items)};
    if (i < marks.size()) {
      o.host = host_mark(marks, side_b ? m.zeroing_b : m.zeroing_a, i, m.steal_med, m.other_med);
      if (o.host.empty()) o.seen = host_seen(marks, i);
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace

std::array<std::vector<OutlierRun>, 2> outlier_runs(const Diff& d, const RunSet& a,
                                                    const RunSet& b) {
  const Machine m = machine(a, b);
  const std::vector<Figure> fs = figures(d);
  return {side_outliers(fs, m, false), side_outliers(fs, m, true)};
}


namespace {

// "B run3.profile is an outlier": how an outlier's warning opens.
std::string outlier_prefix(const RunSet& s, std::size_t run) {
  return fmt::format("{} {} is an outlier", s.label, run_file(s, run));
}

}  // namespace

void run_warnings(const Diff& d, const RunSet& a, const RunSet& b, std::vector<Warning>& out) {
  const Machine m = machine(a, b);
  busy_machine(a, m.a, out);
  busy_machine(b, m.b, out);
  page_zeroing(a, m.a, m.zeroing_a, out);
  page_zeroing(b, m.b, m.zeroing_b, out);
  const std::vector<Figure> fs = figures(d);
  for (bool side_b : {false, true}) {
    const RunSet& s = side_b ? b : a;
    for (const auto& o : side_outliers(fs, m, side_b)) {
      std::string about = fmt::format("{}: {}", outlier_prefix(s, o.run), fmt::join(o.items, ", "));
      std::string kept;
      if (!o.host.empty()) {
        about += fmt::format(", with the host's mark on it ({})", o.host);
        kept = "; it is kept in every figure, so judge the diff with it in mind (or rerun)";
      } else {
        kept = o.seen.empty()
                   ? "; the recording kept no record of the machine, so it stays in every "
                     "figure"
                   : fmt::format("; no more of the host in it than in the other runs ({}), so "
                                 "it stays in every figure: leaving out a run nothing marked "
                                 "can bias the difference",
                                 o.seen);
      }
      out.push_back({WarningKind::Outlier, about + kept, {}, side_b ? 'B' : 'A', o.run, about});
    }
  }
  if (a.runs.size() < kMinRuns || b.runs.size() < kMinRuns || !timed(a) || !timed(b)) return;
  const auto oa = order_of(a), ob = order_of(b);
  std::vector<std::string> drift;
  for (const auto& f : fs) {
    if (f.c->a.size() != a.runs.size() || f.c->b.size() != b.runs.size()) continue;
    double ra = rho_with_order(f.c->a, oa), rb = rho_with_order(f.c->b, ob);
    if (std::fabs(ra) >= kDriftRho && std::fabs(rb) >= kDriftRho && (ra > 0) == (rb > 0))
      drift.push_back(fmt::format("{} {} (Spearman ρ {:.1f} in A, {:.1f} in B)", f.name,
                                  ra > 0 ? "rises" : "falls", ra, rb));
  }
  if (!drift.empty())
    out.push_back({WarningKind::RunOrder,
                   fmt::format("figures follow the order of the runs on both sides: {}; the "
                               "machine drifted during the compare, and interleaving cancels "
                               "only a steady drift",
                               fmt::join(drift, "; "))});
}

}  // namespace fscost
