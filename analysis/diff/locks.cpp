// Locks and off-CPU waits in the diff: whether a lock is a new contention
// point or the same lock contended worse, and the op's off-CPU delta split
// per wait class and, for sleeping contention, per lock.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "diff/callgraph.h"
#include "diff/internal.h"
#include "model/frame_match.h"
#include "diff/mean_stacks.h"

namespace fscost {

namespace {

// The mean is above 0 beyond noise: its interval excludes 0 (one run: any
// cost at all).
bool clearly_positive(const stats::Summary& s) {
  if (s.n == 0) return false;
  return s.n >= 2 ? s.ci_lo > 0 : s.mean > 0;
}

bool every_run(const std::vector<double>& v) {
  return !v.empty() && std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
}
bool no_run(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return x == 0; });
}

// The figure a lock's change is read from: the traced wait, or, for a lock
// whose cost is mostly optimistic spinning the tracepoints never time, the
// sampled spin.
const Comparison& deciding(const LockDiff& l) {
  return std::fabs(l.optimistic_spin.delta()) > std::fabs(l.wait.delta()) ? l.optimistic_spin
                                                                          : l.wait;
}

// Whether a lock's change weighs on the op: by its deciding figure.
bool weighs(const LockDiff& l, const OpDiff& op) { return weighs_on(deciding(l), op); }

// New or gone by presence, as new code is: contended in every run of one
// side and in no run of the other (traced contentions are counted, not
// sampled: presence is exact); else by the deciding figure's verdict.
LockChange change_of(const LockDiff& l, const OpDiff& op) {
  if (!weighs(l, op)) return LockChange::NoChange;
  const Comparison& c = deciding(l);
  if (&c == &l.wait) {
    if (every_run(l.contentions.b) && no_run(l.contentions.a)) return LockChange::New;
    if (every_run(l.contentions.a) && no_run(l.contentions.b)) return LockChange::Gone;
  }
  bool in_a = clearly_positive(c.sa), in_b = clearly_positive(c.sb);
  if (c.verdict == Verdict::More) return in_a ? LockChange::Worse : LockChange::New;
  if (c.verdict == Verdict::Less) return in_b ? LockChange::Better : LockChange::Gone;
  return LockChange::NoChange;
}

// "0.30 contentions/op, 2.0 µs each" for one side.
std::string side_text(const LockDiff& l, bool b) {
  const auto& c = b ? l.contentions.sb : l.contentions.sa;
  const auto& w = b ? l.per_contention.sb : l.per_contention.sa;
  return fmt::format("{:.2f} contentions/op, {} each", c.mean, ns_text(w.mean));
}

// "2.1× contentions/op, 1.3× wait per contention"; ratios that are
// undefined are left out.
std::string ratios(const LockDiff& l) {
  std::string out;
  std::string c = ratio_text(l.contentions.sb.mean, l.contentions.sa.mean);
  std::string w = ratio_text(l.per_contention.sb.mean, l.per_contention.sa.mean);
  if (!c.empty()) out = c + " contentions/op";
  if (!w.empty()) out += (out.empty() ? "" : ", ") + w + " wait per contention";
  std::string o = ratio_text(l.optimistic_spin.sb.mean, l.optimistic_spin.sa.mean);
  if (!o.empty() && std::fabs(l.optimistic_spin.delta()) > std::fabs(l.wait.delta()))
    out = o + " optimistic spin" + (out.empty() ? "" : ", " + out);
  return out;
}

std::string lock_detail(const LockDiff& l) {
  switch (l.change) {
    case LockChange::New: return "a new contention point: " + side_text(l, true);
    case LockChange::Gone: return "no longer contended (A: " + side_text(l, false) + ")";
    default: return ratios(l);
  }
}

std::string class_detail(const std::string& cls) {
  if (cls == "io") return "I/O waits";
  if (cls == "log-reserve") return "log waits: log space reservation (grant head)";
  if (cls == "log-force") return "log waits: log force / iclog I/O";
  if (cls == "runqueue") return "run-queue waits: runnable, waiting for a CPU";
  return "other sleeps";
}

double share_of(double part, double total) { return total != 0 ? part / total : 0; }

bool any_cost(const Comparison& c) {
  auto nonzero = [](double x) { return x != 0; };
  return std::any_of(c.a.begin(), c.a.end(), nonzero) ||
         std::any_of(c.b.begin(), c.b.end(), nonzero);
}

DeltaPart lock_part(const LockDiff& l, double total) {
  DeltaPart p;
  p.kind = "lock";
  p.delta_ns = l.sleep.delta();
  p.share = share_of(p.delta_ns, total);
  p.where = l.name;
  p.detail = lock_phrase(l);
  p.significant = l.sleep.significant();
  return p;
}

// The scheduler entry every blocked stack ends in: left off, so a wait is
// placed at the code that waited, not at schedule().
constexpr std::array<std::string_view, 5> kSchedulerTail = {
    "schedule*", "__schedule*", "io_schedule*", "__cond_resched", "preempt_schedule*"};

// One wait class's blocked stacks, op root first, without the class frame,
// the scheduler tail, and the waker after "--" (views/stacks.h: the off-CPU stacks).
std::vector<FlameStack> blocked_stacks(const FlameInput& in, const std::string& cls) {
  std::string tag = "[" + cls + "]";
  std::vector<FlameStack> out;
  for (const auto& [frames, value] : in.stacks) {
    if (frames.size() < 2 || frames[1] != tag) continue;
    Stack blocked{frames[0]};
    for (std::size_t i = 2; i < frames.size() && frames[i] != "--"; ++i)
      blocked.push_back(frames[i]);
    while (blocked.size() > 1 && frame_matches_any(blocked.back().str(), kSchedulerTail))
      blocked.pop_back();
    out.emplace_back(std::move(blocked), value);
  }
  return out;
}

// The narrowest function carrying `share` of the class's delta.
std::string narrowest_wait(const FlameInput& a, const FlameInput& b, const std::string& op,
                           const std::string& cls, double share) {
  auto sa = blocked_stacks(a, cls), sb = blocked_stacks(b, cls);
  if (sa.empty() && sb.empty()) return {};
  CallGraph cg = CallGraph::build(sa, sb, op);
  return cg.vertex(narrowest_flow(cg, share).through).name;
}

}  // namespace

double surely_moved(const Comparison& c) {
  if (!c.tested()) return std::fabs(c.delta());
  if (c.ci_lo() > 0 || c.ci_hi() < 0) return std::min(std::fabs(c.ci_lo()), std::fabs(c.ci_hi()));
  return 0;
}

bool weighs_on(const Comparison& wait, const OpDiff& op) {
  if (!op.latency.tested()) return true;
  // Both figures at their least favourable end. Neither test's pass
  // enters: that is what flips between two compares of the same case.
  double sure = surely_moved(wait);
  return sure > 0 && sure >= kLockShare * latency_reach(op);
}

bool holder_wait_changed(const OpDiff& op) {
  return !op.hop_waits.empty() && op.hop_waits.front().significant() &&
         weighs_on(op.hop_waits.front(), op);
}

double latency_reach(const OpDiff& op) {
  const Comparison& c = op.latency;
  if (!c.tested()) return std::numeric_limits<double>::quiet_NaN();
  return std::max(std::fabs(c.ci_lo()), std::fabs(c.ci_hi()));
}

std::string lock_phrase(const LockDiff& l) {
  std::string r = ratios(l);
  switch (l.change) {
    case LockChange::New: return "a new contention point";
    case LockChange::Gone: return "contention point gone";
    case LockChange::Worse: return "same lock, worse" + (r.empty() ? "" : ": " + r);
    case LockChange::Better: return "same lock, better" + (r.empty() ? "" : ": " + r);
    case LockChange::NoChange: break;
  }
  if (l.slight) return "same lock, a change too small to weigh on the op" + (r.empty() ? "" : ": " + r);
  return "same lock, no significant change" + (r.empty() ? "" : ": " + r);
}

void classify_locks(OpDiff& op) {
  for (auto& l : op.locks) {
    l.change = change_of(l, op);
    l.slight = l.change == LockChange::NoChange && deciding(l).significant() && !weighs(l, op);
    l.detail = lock_detail(l);
  }
}

void explain_offcpu(OpDiff& op, const MeanStacks& a, const MeanStacks& b, const DiffConfig& cfg) {
  double total = op.offcpu.delta();
  const FlameInput& fa = a.get(View::OffCpu, op.op);
  const FlameInput& fb = b.get(View::OffCpu, op.op);
  std::vector<DeltaPart> parts;
  for (const auto& [cls, c] : op.offcpu_by_class) {
    if (cls == "lock" || !any_cost(c)) continue;
    DeltaPart p{cls,
                c.delta(),
                share_of(c.delta(), total),
                narrowest_wait(fa, fb, op.op, cls, cfg.flow_share),
                class_detail(cls),
                c.significant()};
    parts.push_back(std::move(p));
  }
  for (const auto& l : op.locks)
    if (any_cost(l.sleep)) parts.push_back(lock_part(l, total));
  std::stable_sort(parts.begin(), parts.end(), [](const DeltaPart& x, const DeltaPart& y) {
    return std::fabs(x.delta_ns) > std::fabs(y.delta_ns);
  });
  op.offcpu_parts = std::move(parts);
  shares_of_gross(op.offcpu_parts);
}

}  // namespace fscost
