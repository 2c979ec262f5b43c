// Comparisons: every per-run metric of A against B, then one
// Benjamini–Hochberg pass over the whole diff. A metric missing from a run
// is 0 there (an op or function that did not run cost nothing), except the
// wait per contention, which exists only in runs that had contentions.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <utility>

#include "diff/calibration.h"  // floor_intervals
#include "diff/internal.h"
#include "model/frame_match.h"  // function_family
#include "model/parallel.h"
#include "model/wait_class.h"

namespace fscost {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// q < alpha decides; a side with < 2 runs has no test at all.
void set_verdict(Comparison& c, double q, double alpha) {
  c.q = c.tested() ? q : kNaN;
  if (!c.tested())
    c.verdict = Verdict::TooFewRuns;
  else if (q < alpha)
    c.verdict = c.delta() > 0 ? Verdict::More : Verdict::Less;
  else
    c.verdict = Verdict::NoChange;
}

using OpGetter = std::function<double(const OpMetrics&)>;

// The per-run values of one op metric, 0 where the run lacks the op.
std::vector<double> op_values(const std::vector<RunMetrics>& runs, const std::string& op,
                              const OpGetter& get) {
  std::vector<double> v;
  v.reserve(runs.size());
  for (const auto& r : runs) {
    auto it = r.ops.find(op);
    v.push_back(it == r.ops.end() ? 0.0 : get(it->second));
  }
  return v;
}

// Wait per contention of one lock, from the runs that contended on it
// (`which`: their indices).
std::vector<double> per_contention(const std::vector<RunMetrics>& runs, const std::string& op,
                                   const LockKey& key, std::vector<std::uint32_t>& which) {
  std::vector<double> v;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto it = runs[i].ops.find(op);
    if (it == runs[i].ops.end()) continue;
    auto l = it->second.locks.find(key);
    if (l != it->second.locks.end() && l->second.count > 0) {
      v.push_back(l->second.per_contention);
      which.push_back(static_cast<std::uint32_t>(i));
    }
  }
  return v;
}

struct Sides {
  const std::vector<RunMetrics>& a;
  const std::vector<RunMetrics>& b;
  const DiffConfig& cfg;

  Comparison op(const std::string& name, const OpGetter& get, const char* unit) const {
    return compare(op_values(a, name, get), op_values(b, name, get), unit, cfg.level, cfg.alpha);
  }
  // A figure of cpu-clock samples under op `name`, in ns/op.
  Comparison sampled(const std::string& name, const OpGetter& get) const {
    return compare_samples(op_values(a, name, get), exposure(a, name), op_values(b, name, get),
                           exposure(b, name), cfg.level, cfg.alpha);
  }
  static std::vector<double> exposure(const std::vector<RunMetrics>& runs, const std::string& op) {
    std::vector<double> e;
    for (const auto& r : runs) {
      auto it = r.ops.find(op);
      e.push_back(it == r.ops.end() ? 0.0 : samples_exposure(it->second.count, r.identity.freq_hz));
    }
    return e;
  }
};

double from(const std::map<std::string, double>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? 0.0 : it->second;
}

template <typename Key, typename Pick>
std::set<Key> keys_of(const Sides& s, const std::string& op, Pick pick) {
  std::set<Key> keys;
  for (const auto* runs : {&s.a, &s.b})
    for (const auto& r : *runs)
      if (auto it = r.ops.find(op); it != r.ops.end())
        for (const auto& [k, v] : pick(it->second)) keys.insert(k);
  return keys;
}

// Every function some run of either side has under `op`, in name order.
std::vector<Frame> function_names(const Sides& s, const std::string& op) {
  std::vector<std::uint8_t> seen(Frame::pool_size(), 0);
  std::vector<Frame> names;
  for (const auto* runs : {&s.a, &s.b})
    for (const auto& r : *runs)
      if (auto it = r.ops.find(op); it != r.ops.end())
        for (const auto& [f, v] : it->second.incl)  // self's functions are all in incl
          if (!std::exchange(seen[f.id()], 1)) names.push_back(f);
  std::sort(names.begin(), names.end());
  return names;
}

// Each of `names`' per-run values in incl or self, 0 where a run lacks it:
// a merge walk of each run's sorted values along the sorted names, not a
// lookup per function and run (thousands of functions × every run).
std::vector<std::vector<double>> function_values(const std::vector<RunMetrics>& runs,
                                                 const std::string& op,
                                                 const std::vector<Frame>& names,
                                                 FunctionValues OpMetrics::*values) {
  std::vector<std::vector<double>> v(names.size(), std::vector<double>(runs.size(), 0.0));
  for (std::size_t r = 0; r < runs.size(); ++r) {
    auto it = runs[r].ops.find(op);
    if (it == runs[r].ops.end()) continue;
    assert(std::ranges::is_sorted(it->second.*values, {}, [](const auto& v) { return v.first; }));
    std::size_t i = 0;
    for (const auto& [name, value] : it->second.*values) {
      while (i < names.size() && names[i] < name) ++i;
      if (i < names.size() && names[i] == name) v[i][r] = value;
    }
  }
  return v;
}

// `v` by |Δ| of its inclusive comparison, largest first, equal ones in
// their order: std::stable_sort's order, but each element moved once (a
// FunctionDiff is ~900 bytes; stable_sort's buffer copied every one).
template <class T>
std::vector<T> by_inclusive_delta(std::vector<T> v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return std::fabs(v[x].inclusive.delta()) > std::fabs(v[y].inclusive.delta());
  });
  std::vector<T> out;
  out.reserve(v.size());
  for (std::size_t i : order) out.push_back(std::move(v[i]));
  return out;
}

std::vector<FunctionDiff> compare_functions(const Sides& s, const std::string& op) {
  const std::vector<Frame> names = function_names(s, op);
  const std::vector<double> ea = Sides::exposure(s.a, op), eb = Sides::exposure(s.b, op);
  auto incl_a = function_values(s.a, op, names, &OpMetrics::incl);
  auto incl_b = function_values(s.b, op, names, &OpMetrics::incl);
  auto self_a = function_values(s.a, op, names, &OpMetrics::self);
  auto self_b = function_values(s.b, op, names, &OpMetrics::self);
  std::vector<FunctionDiff> out(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    FunctionDiff& d = out[i];
    d.name = names[i].str();
    d.inclusive = compare_samples(std::move(incl_a[i]), ea, std::move(incl_b[i]), eb,
                                  s.cfg.level, s.cfg.alpha);
    d.self = compare_samples(std::move(self_a[i]), ea, std::move(self_b[i]), eb, s.cfg.level,
                             s.cfg.alpha);
  }
  return by_inclusive_delta(std::move(out));
}

std::vector<FamilyDiff> compare_families(const Sides& s, const std::string& op,
                                         const std::vector<FunctionDiff>& functions) {
  std::map<std::string, std::size_t> members;
  for (const auto& f : functions)
    if (auto fam = function_family(f.name); !fam.empty()) ++members[std::string(fam)];
  std::vector<FamilyDiff> out;
  for (const auto& [fam_key, n] : members) {
    if (n < 2) continue;
    // A reference, not the binding: clang before 16 cannot capture a
    // structured binding in a lambda (the FSCOST_FUZZ build is clang's).
    const std::string& fam = fam_key;
    auto value = [&](const OpMetrics& m) {
      auto it = std::lower_bound(m.families.begin(), m.families.end(), fam,
                                 [](const auto& e, const std::string& k) { return e.first < k; });
      return it != m.families.end() && it->first == fam ? it->second : 0.0;
    };
    FamilyDiff d;
    d.name = fam + "_*";
    d.functions = n;
    d.inclusive = s.sampled(op, value);
    out.push_back(std::move(d));
  }
  return by_inclusive_delta(std::move(out));
}

LockDiff compare_lock(const Sides& s, const std::string& op, const LockKey& key) {
  auto field = [&](double LockMetrics::*f) {
    return [&key, f](const OpMetrics& m) {
      auto it = m.locks.find(key);
      return it == m.locks.end() ? 0.0 : it->second.*f;
    };
  };
  LockDiff d;
  d.name = key.first;
  d.type = key.second;
  d.contentions = s.op(op, field(&LockMetrics::contentions), "/op");
  d.wait = s.op(op, field(&LockMetrics::wait), "ns/op");
  d.spin = s.op(op, field(&LockMetrics::spin), "ns/op");
  d.sleep = s.op(op, field(&LockMetrics::sleep), "ns/op");
  d.optimistic_spin = s.sampled(op, field(&LockMetrics::optimistic_spin));
  std::vector<std::uint32_t> run_a, run_b;
  auto va = per_contention(s.a, op, key, run_a), vb = per_contention(s.b, op, key, run_b);
  d.per_contention = compare(std::move(va), std::move(vb), "ns", s.cfg.level, s.cfg.alpha);
  d.per_contention.run_a = std::move(run_a);
  d.per_contention.run_b = std::move(run_b);
  return d;
}

std::vector<LockDiff> compare_locks(const Sides& s, const std::string& op) {
  auto keys = keys_of<LockKey>(s, op, [](const OpMetrics& m) -> const auto& { return m.locks; });
  std::vector<LockDiff> out;
  for (const auto& key : keys) out.push_back(compare_lock(s, op, key));
  // Optimistic spin is a lock's cost the wait does not include.
  auto weight = [](const LockDiff& l) {
    return std::max(std::fabs(l.wait.delta()), std::fabs(l.optimistic_spin.delta()));
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const auto& x, const auto& y) { return weight(x) > weight(y); });
  return out;
}

OpDiff compare_op(const Sides& s, const std::string& op) {
  OpDiff d;
  d.op = op;
  d.count = s.op(op, [](const OpMetrics& m) { return m.count; }, "ops");
  d.oncpu = s.op(op, [](const OpMetrics& m) { return m.oncpu; }, "ns/op");
  d.offcpu = s.op(op, [](const OpMetrics& m) { return m.offcpu; }, "ns/op");
  d.spin = s.op(op, [](const OpMetrics& m) { return m.spin; }, "ns/op");
  d.sleep = s.op(op, [](const OpMetrics& m) { return m.sleep; }, "ns/op");
  d.optimistic_spin = s.sampled(op, [](const OpMetrics& m) {
    double ns = 0;
    for (const auto& [key, l] : m.locks) ns += l.optimistic_spin;
    return ns;
  });
  d.latency = s.op(op, [](const OpMetrics& m) { return m.latency; }, "ns/op");
  d.rate = s.op(op, [](const OpMetrics& m) { return m.rate; }, "ops/s");
  for (auto wc : kWaitClasses) {
    std::string cls(wc);
    d.offcpu_by_class[cls] =
        s.op(op, [&](const OpMetrics& m) { return from(m.offcpu_class, cls); }, "ns/op");
  }
  for (const auto& name : keys_of<std::string>(
           s, op, [](const OpMetrics& m) -> const auto& { return m.fs_events; }))
    d.fs_events[name] = s.op(
        op, [&](const OpMetrics& m) { return from(m.fs_events, name); }, "/op");
  d.functions = compare_functions(s, op);
  d.families = compare_families(s, op, d.functions);
  d.locks = compare_locks(s, op);
  return d;
}

Comparison compare_runs(const std::vector<RunMetrics>& a, const std::vector<RunMetrics>& b,
                        double RunMetrics::*f, const char* unit, const DiffConfig& cfg) {
  std::vector<double> va, vb;
  std::vector<std::uint32_t> run_a, run_b;
  auto take = [f](const std::vector<RunMetrics>& runs, std::vector<double>& v,
                  std::vector<std::uint32_t>& which) {
    for (std::size_t i = 0; i < runs.size(); ++i)
      if (runs[i].rusage_valid || f == &RunMetrics::kthread_ns) {
        v.push_back(runs[i].*f);
        which.push_back(static_cast<std::uint32_t>(i));
      }
    if (v.size() == runs.size()) which.clear();  // every run's: aligned
  };
  take(a, va, run_a);
  take(b, vb, run_b);
  Comparison c = compare(std::move(va), std::move(vb), unit, cfg.level, cfg.alpha);
  c.run_a = std::move(run_a);
  c.run_b = std::move(run_b);
  return c;
}

// The diff's comparisons in three Benjamini–Hochberg families. One family
// of thousands of per-function tests would drown the handful of per-op
// figures the explanation rests on (a real create diff has ~2000 function
// comparisons and ~40 metrics), so each level controls its own FDR.
struct Families {
  std::vector<Comparison*> metrics, functions, locks, background;
};

// Every comparison of the ops `tested` selects (whole-run figures with
// them), or of the others.
Families every_comparison(Diff& d, bool tested) {
  Families f;
  if (tested) {
    f.metrics = {&d.sys_ns, &d.user_ns, &d.wall_ns, &d.user_share, &d.kthread_ns,
                 &d.fs_kthread_ns};
    if (d.device_bytes.sa.n > 0) f.metrics.push_back(&d.device_bytes);
    for (auto& [kind, c] : d.device_bytes_by_kind) f.metrics.push_back(&c);
  }
  // A figure zero in every run is no test (a worker that never slept).
  for (auto& bg : d.background) {
    for (Comparison* c : {&bg.cpu, &bg.offcpu, &bg.lock_wait})
      if ((c->sa.mean != 0 || c->sb.mean != 0) == tested) f.background.push_back(c);
    if (tested)
      for (auto& [event, c] : bg.fs_events) f.background.push_back(&c);
  }
  for (auto& op : d.ops) {
    if (op.tested != tested) continue;
    for (const auto& m : kOpMetrics) f.metrics.push_back(&(op.*m.field));
    for (auto& [cls, c] : op.offcpu_by_class) f.metrics.push_back(&c);
    for (auto& [name, c] : op.fs_events) f.metrics.push_back(&c);
    for (auto& fn : op.functions) {
      f.functions.push_back(&fn.inclusive);
      f.functions.push_back(&fn.self);
    }
    for (auto& path : op.paths) f.functions.push_back(&path.inclusive);
    for (auto& fam : op.families) f.functions.push_back(&fam.inclusive);
    for (auto& l : op.locks)
      for (const auto& m : kLockMetrics) f.locks.push_back(&(l.*m.field));
    for (auto& c : op.hop_waits) f.locks.push_back(&c);
  }
  return f;
}

// BH over one family; returns how many comparisons had a valid test.
std::size_t control_family(const std::vector<Comparison*>& all, double alpha) {
  std::vector<Comparison*> family;
  std::vector<double> p;
  for (Comparison* c : all) {
    if (!c->tested() || !std::isfinite(c->p())) {
      set_verdict(*c, kNaN, alpha);
      continue;
    }
    family.push_back(c);
    p.push_back(c->p());
  }
  std::vector<double> q = stats::benjamini_hochberg(p);
  for (std::size_t i = 0; i < family.size(); ++i) set_verdict(*family[i], q[i], alpha);
  return family.size();
}

}  // namespace

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::More: return "more";
    case Verdict::Less: return "less";
    case Verdict::NoChange: return "no change";
    case Verdict::TooFewRuns: return "too few runs";
  }
  return "?";
}

const char* to_string(StatTest t) {
  switch (t) {
    case StatTest::Welch: return "welch";
    case StatTest::Counts: return "quasi-poisson";
  }
  return "?";
}

const char* to_string(LockChange c) {
  switch (c) {
    case LockChange::New: return "new";
    case LockChange::Worse: return "worse";
    case LockChange::Better: return "better";
    case LockChange::Gone: return "gone";
    case LockChange::NoChange: return "no change";
  }
  return "?";
}

Comparison compare(std::vector<double> a, std::vector<double> b, std::string unit, double level,
                   double alpha) {
  Comparison c;
  c.unit = std::move(unit);
  c.sa = stats::summarize(a, level);
  c.sb = stats::summarize(b, level);
  c.welch = stats::welch_test(a, b, level);
  c.mwu = stats::mann_whitney(a, b);
  c.effect = stats::hedges_g(a, b);
  c.rel = c.sa.mean != 0 && std::isfinite(c.sa.mean) ? c.delta() / c.sa.mean : kNaN;
  c.a = std::move(a);
  c.b = std::move(b);
  set_verdict(c, c.welch.p, alpha);
  return c;
}

namespace {

// Back to counts: the count test needs them, the values are ns/op. False
// where a run has samples without a known exposure.
bool sample_counts(const std::vector<double>& v, const std::vector<double>& e,
                   std::vector<double>& k) {
  if (v.size() != e.size()) return false;
  k.reserve(k.size() + v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!(e[i] > 0) && v[i] != 0) return false;  // samples without a known exposure
    k.push_back(std::round(v[i] * e[i]));
  }
  return true;
}

// Side `mine`'s values (or exposures) without its run `r`, the other's
// whole; `which`: the run of each value, empty where value i is run i's.
std::vector<double> side_without(const std::vector<double>& v,
                                 const std::vector<std::uint32_t>& which, bool mine,
                                 std::size_t r) {
  std::vector<double> out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!mine || (which.empty() ? i : which[i]) != r) out.push_back(v[i]);
  return out;
}

}  // namespace

Comparison compare_samples(std::vector<double> a, const std::vector<double>& exposure_a,
                           std::vector<double> b, const std::vector<double>& exposure_b,
                           double level, double alpha, std::string unit) {
  std::vector<double> ka, kb;
  bool known = sample_counts(a, exposure_a, ka) && sample_counts(b, exposure_b, kb);
  Comparison c = compare(std::move(a), std::move(b), std::move(unit), level, alpha);
  c.sampled = true;
  c.exposure_a = exposure_a;
  c.exposure_b = exposure_b;
  if (!known) return c;
  c.test = StatTest::Counts;
  c.counts = stats::count_test(ka, exposure_a, kb, exposure_b, level);
  set_verdict(c, c.counts.p, alpha);
  return c;
}

Comparison without_run(const Comparison& c, std::size_t run, std::size_t runs_a,
                       const DiffConfig& cfg) {
  const bool in_b = run >= runs_a;
  const std::size_t r = in_b ? run - runs_a : run;
  std::vector<double> a = side_without(c.a, c.run_a, !in_b, r);
  std::vector<double> b = side_without(c.b, c.run_b, in_b, r);
  if (c.sampled)
    return compare_samples(std::move(a), side_without(c.exposure_a, {}, !in_b, r), std::move(b),
                           side_without(c.exposure_b, {}, in_b, r), cfg.level, cfg.alpha, c.unit);
  return compare(std::move(a), std::move(b), c.unit, cfg.level, cfg.alpha);
}

Comparison retest_without_run(const Comparison& c, std::size_t run, std::size_t runs_a,
                              const DiffConfig& cfg) {
  const bool in_b = run >= runs_a;
  const std::size_t r = in_b ? run - runs_a : run;
  Comparison out;
  out.unit = c.unit;
  out.a = side_without(c.a, c.run_a, !in_b, r);
  out.b = side_without(c.b, c.run_b, in_b, r);
  out.sa = stats::summarize(out.a, cfg.level);
  out.sb = stats::summarize(out.b, cfg.level);
  out.welch = stats::welch_screen(out.a, out.b, cfg.alpha);
  out.effect = kNaN;  // not computed, nor Mann–Whitney
  out.mwu.u = out.mwu.p = kNaN;
  out.rel = out.sa.mean != 0 && std::isfinite(out.sa.mean) ? out.delta() / out.sa.mean : kNaN;
  set_verdict(out, out.welch.p, cfg.alpha);
  if (!c.sampled) return out;
  out.sampled = true;
  out.exposure_a = side_without(c.exposure_a, {}, !in_b, r);
  out.exposure_b = side_without(c.exposure_b, {}, in_b, r);
  std::vector<double> ka, kb;
  if (!sample_counts(out.a, out.exposure_a, ka) || !sample_counts(out.b, out.exposure_b, kb))
    return out;
  out.test = StatTest::Counts;
  out.counts = stats::count_screen(ka, out.exposure_a, kb, out.exposure_b, 1, 0, cfg.alpha);
  set_verdict(out, out.counts.p, cfg.alpha);
  return out;
}

std::vector<OpDiff> compare_ops(const std::vector<RunMetrics>& a, const std::vector<RunMetrics>& b,
                                const DiffConfig& cfg) {
  std::set<std::string> names;
  for (const auto* runs : {&a, &b})
    for (const auto& r : *runs)
      for (const auto& [name, m] : r.ops) names.insert(name);
  Sides s{a, b, cfg};
  std::vector<std::string> order(names.begin(), names.end());
  std::vector<OpDiff> out(order.size());
  parallel_for(order.size(), [&](std::size_t i) { out[i] = compare_op(s, order[i]); });
  return out;
}

// The test device's writes by kind, when every run recorded them (--fs).
void compare_device_kinds(Diff& d, const std::vector<RunMetrics>& a,
                          const std::vector<RunMetrics>& b) {
  auto known = [](const std::vector<RunMetrics>& runs) {
    return std::all_of(runs.begin(), runs.end(),
                       [](const auto& r) { return !r.device_bytes_by_kind.empty(); });
  };
  if (!known(a) || !known(b)) return;
  for (std::string_view kind : {"data", "metadata", "log"}) {
    std::vector<double> va, vb;
    for (const auto& r : a) va.push_back(from(r.device_bytes_by_kind, std::string(kind)));
    for (const auto& r : b) vb.push_back(from(r.device_bytes_by_kind, std::string(kind)));
    d.device_bytes_by_kind.emplace_back(
        std::string(kind), compare(std::move(va), std::move(vb), "B", d.config.level, d.config.alpha));
  }
}

// A bucket is the test filesystem's when its device names it: XFS's
// workqueues and threads are "<name>/<dev>", ext4's journal thread
// "jbd2/<dev>-<journal inode>", the loop driver's "<dev>". (btrfs' threads
// and ext4's workqueues do not name their device.)
bool test_fs_bucket(const std::string& bucket, const std::string& device) {
  if (device.empty()) return false;
  std::string name = bucket.substr(0, bucket.find(": "));
  return name == device || name.ends_with("/" + device) ||
         name.starts_with("jbd2/" + device + "-");
}

// Kernel-thread work per bucket and work function, per run: CPU by the
// count test (samples, exposure = the run's rate), the exact figures by
// Welch's t. A bucket absent from a run did nothing there: 0.
void compare_background(Diff& d, const std::vector<RunMetrics>& a,
                        const std::vector<RunMetrics>& b) {
  std::set<std::string> names;
  for (const auto* runs : {&a, &b})
    for (const auto& r : *runs)
      for (const auto& [name, m] : r.background) names.insert(name);
  auto get = [](const RunMetrics& r, const std::string& name) {
    auto it = r.background.find(name);
    return it == r.background.end() ? BackgroundMetrics{} : it->second;
  };
  auto exact = [&](const std::string& name, auto field, const char* unit) {
    std::vector<double> va, vb;
    for (const auto& r : a) va.push_back(field(get(r, name)));
    for (const auto& r : b) vb.push_back(field(get(r, name)));
    return compare(std::move(va), std::move(vb), unit, d.config.level, d.config.alpha);
  };
  const std::string device = a.empty() ? "" : a.front().device;
  // The test filesystem's kernel-thread CPU per run: its buckets' summed.
  std::vector<double> fs_a(a.size()), fs_b(b.size());
  for (const auto& name : names) {
    BackgroundDiff bg;
    bg.name = name;
    bg.test_fs = test_fs_bucket(name, device);
    std::vector<double> va, ea, vb, eb;
    for (const auto& r : a) va.push_back(get(r, name).cpu), ea.push_back(samples_exposure(1, r.identity.freq_hz));
    for (const auto& r : b) vb.push_back(get(r, name).cpu), eb.push_back(samples_exposure(1, r.identity.freq_hz));
    if (bg.test_fs) {
      std::transform(va.begin(), va.end(), fs_a.begin(), fs_a.begin(), std::plus<>());
      std::transform(vb.begin(), vb.end(), fs_b.begin(), fs_b.begin(), std::plus<>());
    }
    bg.cpu = compare_samples(std::move(va), ea, std::move(vb), eb, d.config.level, d.config.alpha, "ns");
    bg.offcpu = exact(name, [](const BackgroundMetrics& m) { return m.offcpu; }, "ns");
    bg.lock_wait = exact(name, [](const BackgroundMetrics& m) { return m.lock_wait; }, "ns");
    std::map<std::string, double> moved;  // lock → B mean − A mean
    for (const auto* runs : {&a, &b})
      for (const auto& r : *runs)
        for (const auto& [lock, ns] : get(r, name).lock_by_name)
          moved[lock] += (runs == &b ? 1 : -1) * ns / static_cast<double>(runs->size());
    for (const auto& [lock, delta] : moved)
      if (bg.top_lock.empty() || std::fabs(delta) > std::fabs(moved[bg.top_lock])) bg.top_lock = lock;
    if (!bg.top_lock.empty() && bg.lock_wait.delta() != 0)
      bg.top_lock_share = moved[bg.top_lock] / bg.lock_wait.delta();
    std::set<std::string> events;
    for (const auto* runs : {&a, &b})
      for (const auto& r : *runs)
        for (const auto& [event, n] : get(r, name).fs_events) events.insert(event);
    for (const auto& event : events)
      bg.fs_events.emplace_back(
          event,
          exact(
              name, [&](const BackgroundMetrics& m) { return from(m.fs_events, event); }, ""));
    d.background.push_back(std::move(bg));
  }
  d.fs_kthread_ns = compare(std::move(fs_a), std::move(fs_b), "ns", d.config.level, d.config.alpha);
  std::stable_sort(d.background.begin(), d.background.end(), [](const auto& x, const auto& y) {
    return std::fabs(x.cpu.delta()) > std::fabs(y.cpu.delta());
  });
}

void compare_totals(Diff& d, const std::vector<RunMetrics>& a, const std::vector<RunMetrics>& b) {
  d.sys_ns = compare_runs(a, b, &RunMetrics::sys_ns, "ns", d.config);
  d.user_ns = compare_runs(a, b, &RunMetrics::user_ns, "ns", d.config);
  d.wall_ns = compare_runs(a, b, &RunMetrics::wall_ns, "ns", d.config);
  d.user_share = compare_runs(a, b, &RunMetrics::user_share, "%", d.config);
  d.kthread_ns = compare_runs(a, b, &RunMetrics::kthread_ns, "ns", d.config);
  auto known = [](const std::vector<RunMetrics>& runs) {
    return std::all_of(runs.begin(), runs.end(), [](const auto& r) { return r.device_bytes.has_value(); });
  };
  if (known(a) && known(b)) {
    std::vector<double> va, vb;
    for (const auto& r : a) va.push_back(*r.device_bytes);
    for (const auto& r : b) vb.push_back(*r.device_bytes);
    d.device_bytes = compare(std::move(va), std::move(vb), "B", d.config.level, d.config.alpha);
  }
  compare_device_kinds(d, a, b);
  compare_background(d, a, b);
  auto tracer = [](const std::vector<RunMetrics>& runs) {
    double sum = 0, n = 0;
    for (const auto& r : runs)
      if (r.tracer_ns_per_op) sum += *r.tracer_ns_per_op, ++n;
    return n > 0 ? sum / n : std::numeric_limits<double>::quiet_NaN();
  };
  d.tracer_a = tracer(a);
  d.tracer_b = tracer(b);
}

bool op_tested(const std::string& op, const Comparison& count, const DiffConfig& cfg) {
  bool phase = op == "sync" && count.sa.n > 0 && count.sb.n > 0 &&
               std::ranges::all_of(count.a, [](double c) { return c >= 1; }) &&
               std::ranges::all_of(count.b, [](double c) { return c >= 1; });
  return phase || (op != "other" && std::max(count.sa.mean, count.sb.mean) >= cfg.min_ops);
}

void control_fdr(Diff& d) {
  // "other" is every syscall outside the op table (futex, exec, the
  // harness's own), and an op called a few times a run cannot carry a
  // per-op figure: neither is a finding, nor may it dilute the FDR of those
  // that are. Their comparisons keep their intervals, with no verdict.
  // "sync" is the run's end-of-run writeback phase, once a run by design:
  // its per-run time is the figure, so it is tested whenever every run had it.
  for (auto& op : d.ops) op.tested = op_tested(op.op, op.count, d.config);
  // Before BH: a floored p is the one the family ranks.
  floor_intervals(d);
  Families untested = every_comparison(d, false);
  for (auto* v : {&untested.metrics, &untested.functions, &untested.locks, &untested.background})
    for (Comparison* c : *v) set_verdict(*c, kNaN, d.config.alpha);  // no change, or too few runs
  Families f = every_comparison(d, true);
  d.families.metrics = control_family(f.metrics, d.config.alpha);
  d.families.functions = control_family(f.functions, d.config.alpha);
  d.families.locks = control_family(f.locks, d.config.alpha);
  d.families.background = control_family(f.background, d.config.alpha);
  d.family = d.families.metrics + d.families.functions + d.families.locks + d.families.background;
}

}  // namespace fscost
