#include "compare/scaling.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "compare/chart.h"
#include "model/escape.h"  // append_escaped_lines
#include "views/lock_names.h"

namespace fscost {

RunFigures run_figures(const Profile& p, int threads, int config, std::optional<double> ops_per_s) {
  RunFigures f;
  f.threads = threads;
  f.config = config;
  f.ops_per_s = ops_per_s;
  std::uint64_t ops = 0, wall = 0;
  for (const OpStats& op : p.ops) ops += op.count, wall += op.wall_ns;
  if (ops == 0) return f;
  f.latency_ns = static_cast<double>(wall) / static_cast<double>(ops);
  // Locks waited on inside operations, merged by name over ops and types.
  for (const LockRow& row : lock_rows(p, std::nullopt))
    if (row.kind == SampleKind::Op)
      f.lock_wait_ns[row.name] += static_cast<double>(row.total_ns) / static_cast<double>(ops);
  // And the optimistic spin no traced wait includes (rwsem owner spin,
  // sampled), charged to the lock it spins on: an i_rwsem's onset is often
  // all spin.
  if (p.meta.freq_hz > 0)
    for (const auto& s : p.samples) {
      if (s.kind != SampleKind::Op || s.count == 0) continue;
      if (auto l = spinning_lock(s.frames); l && l->optimistic)
        f.lock_wait_ns[l->name] += static_cast<double>(s.count) * 1e9 / p.meta.freq_hz /
                                   static_cast<double>(ops);
    }
  return f;
}

namespace {

struct Values {
  std::vector<double> ops, latency;
  std::map<std::string, std::vector<double>> locks;
  std::size_t runs = 0;
};

ScalingSide summarize_side(Values& v, const std::set<std::string>& all_locks) {
  ScalingSide s;
  s.ops_per_s = stats::summarize(v.ops);
  s.latency_ns = stats::summarize(v.latency);
  for (const std::string& lock : all_locks) {
    std::vector<double>& w = v.locks[lock];
    w.resize(v.runs, 0.0);  // a run without contention on it waited 0
    s.lock_wait_ns[lock] = stats::summarize(w);
  }
  return s;
}

double share(const ScalingSide& s, const std::string& lock) {
  auto it = s.lock_wait_ns.find(lock);
  if (it == s.lock_wait_ns.end() || !(s.latency_ns.mean > 0)) return 0;
  return it->second.mean / s.latency_ns.mean;
}

std::vector<std::string> top_locks(const std::vector<ScalingPoint>& points,
                                   const std::set<std::string>& all, std::size_t top) {
  std::vector<std::pair<double, std::string>> ranked;
  for (const std::string& lock : all) {
    double best = 0;
    for (const auto& p : points)
      for (const auto& side : p.side) best = std::max(best, share(side, lock));
    if (best > 0) ranked.emplace_back(best, lock);
  }
  std::sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) {
    return x.first != y.first ? x.first > y.first : x.second < y.second;
  });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < ranked.size() && i < top; i++) out.push_back(ranked[i].second);
  return out;
}

}  // namespace

Scaling compute_scaling(const std::vector<RunFigures>& runs, std::size_t top, double threshold) {
  std::map<int, Values[2]> by_threads;
  std::set<std::string> all_locks;
  for (const RunFigures& r : runs) {
    Values& v = by_threads[r.threads][r.config];
    // A run carries lock values in run order; pad earlier runs without the lock.
    for (const auto& [lock, w] : r.lock_wait_ns) {
      all_locks.insert(lock);
      v.locks[lock].resize(v.runs, 0.0);
      v.locks[lock].push_back(w);
    }
    v.runs++;
    for (auto& [lock, w] : v.locks) w.resize(v.runs, 0.0);
    if (r.ops_per_s) v.ops.push_back(*r.ops_per_s);
    v.latency.push_back(r.latency_ns);
  }
  Scaling s;
  s.threshold = threshold;
  std::vector<double> p_values;
  for (auto& [t, sides] : by_threads) {
    ScalingPoint p;
    p.threads = t;
    for (int c = 0; c < 2; c++) p.side[c] = summarize_side(sides[c], all_locks);
    stats::Welch w = stats::welch_test(sides[0].ops, sides[1].ops);
    p_values.push_back(w.valid ? w.p : std::nan(""));
    s.points.push_back(std::move(p));
  }
  std::vector<double> q = stats::benjamini_hochberg(p_values);
  for (std::size_t i = 0; i < s.points.size(); i++) s.points[i].ops_q = q[i];
  s.locks = top_locks(s.points, all_locks, top);
  for (const std::string& lock : s.locks) {
    LockOnset o{lock, {0, 0}};
    for (int c = 0; c < 2; c++) o.threads[c] = onset_threads(s, lock, c);
    s.onsets.push_back(o);
  }
  return s;
}

int onset_threads(const Scaling& s, const std::string& lock, int config) {
  for (const ScalingPoint& p : s.points) {
    const ScalingSide& side = p.side[config];
    if (side.latency_ns.n > 0 && share(side, lock) >= s.threshold) return std::max(p.threads, 1);
  }
  return 0;
}

namespace {

std::string rate(const stats::Summary& s) {
  return s.n > 0 && std::isfinite(s.mean) ? fmt::format("{:.0f}", s.mean) : "-";
}

std::string change(const stats::Summary& a, const stats::Summary& b) {
  if (a.n == 0 || b.n == 0 || !(a.mean > 0)) return "-";
  return fmt::format("{:+.1f}%", (b.mean / a.mean - 1) * 100);
}

// "0.012*" (significant), "0.430~", or "-" without a test.
std::string q_text(double q) {
  if (!std::isfinite(q)) return "-";
  return fmt::format("{:.3f}{}", q, q < kScalingAlpha ? '*' : '~');
}

std::string onset_text(int t) { return t > 0 ? fmt::format("t={}", t) : "never"; }

std::string share_text(const Scaling& s, const ScalingSide& side, const std::string& lock) {
  if (side.latency_ns.n == 0) return "-";
  double v = share(side, lock);
  return fmt::format("{:.1f}%{}", v * 100, v >= s.threshold ? "*" : " ");
}

// Cut to `n` columns (lock names can be long), "~" marking the cut.
std::string fit(const std::string& s, std::size_t n) {
  if (s.size() <= n) return s;
  return s.substr(0, n > 1 ? n - 1 : 0) + "~";
}

// No sweep: each lock's share of the operation latency, * = significant;
// locks under 0.1% on both sides (which would print as 0.0%) left out.
std::string one_point_locks(const Scaling& s, std::size_t name_w) {
  const ScalingPoint& p = s.points[0];
  std::string rows;
  for (const std::string& lock : s.locks) {
    if (std::max(share(p.side[0], lock), share(p.side[1], lock)) < 0.0005) continue;
    std::string row = fmt::format("{:<{}}  {:>8}  {:>8}", fit(lock, name_w), name_w,
                                  share_text(s, p.side[0], lock), share_text(s, p.side[1], lock));
    rows += row.substr(0, row.find_last_not_of(' ') + 1) + "\n";
  }
  if (rows.empty()) return "\nNo lock's wait reached 0.1% of op latency.\n";
  return fmt::format("\nLock wait per op as a share of op latency (* >= {:.0f}%)\n",
                     s.threshold * 100) +
         fmt::format("{:<{}}  {:>8}  {:>8}\n", "lock", name_w, "A", "B") + rows;
}

}  // namespace

std::string render_scaling_text(const Scaling& s, const std::string& label_a,
                                const std::string& label_b, std::size_t width) {
  std::string out = fmt::format(
      "Scaling: ops/s by thread count (mean of runs); q: Welch's t,\n"
      "Benjamini-Hochberg over the thread counts, '*' below {}\n",
      kScalingAlpha);
  // Columns as wide as the labels (within the width), at least a number's.
  std::size_t col =
      std::clamp<std::size_t>(std::max(label_a.size(), label_b.size()) + 2, 10, (width - 30) / 2);
  out += fmt::format("{:>7}  {:>{}}  {:>{}}  {:>7}  {:>6}\n", "threads", fit("A " + label_a, col),
                     col, fit("B " + label_b, col), col, "B vs A", "q");
  for (const ScalingPoint& p : s.points)
    out += fmt::format("{:>7}  {:>{}}  {:>{}}  {:>7}  {:>6}\n",
                       p.threads > 0 ? std::to_string(p.threads) : "-", rate(p.side[0].ops_per_s),
                       col, rate(p.side[1].ops_per_s), col,
                       change(p.side[0].ops_per_s, p.side[1].ops_per_s), q_text(p.ops_q));
  if (s.locks.empty()) return out + "No lock contention inside operations.\n";
  std::size_t name_w = width - 22;
  if (s.points.size() == 1) return out + one_point_locks(s, name_w);
  // Only the locks that matter somewhere; the report charts the rest.
  std::vector<const LockOnset*> shown;
  for (const LockOnset& o : s.onsets)
    if (o.threads[0] > 0 || o.threads[1] > 0) shown.push_back(&o);
  if (shown.empty())
    return out +
           fmt::format("\nNo lock's wait reached {:.0f}% of op latency at any thread count.\n",
                       s.threshold * 100);
  out += fmt::format(
      "\nLock contention significant (wait >= {:.0f}% of op latency)\n"
      "from thread count:\n",
      s.threshold * 100);
  out += fmt::format("{:<{}}  {:>8}  {:>8}\n", "lock", name_w, "A", "B");
  for (const LockOnset* o : shown)
    out += fmt::format("{:<{}}  {:>8}  {:>8}\n", fit(o->lock, name_w), name_w,
                       onset_text(o->threads[0]), onset_text(o->threads[1]));
  return out;
}

namespace {

nlohmann::json summary_json(const stats::Summary& s) {
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
  return {{"n", s.n},
          {"mean", num(s.mean)},
          {"sd", num(s.sd)},
          {"ci_lo", num(s.ci_lo)},
          {"ci_hi", num(s.ci_hi)}};
}

nlohmann::json side_json(const ScalingSide& side, const std::vector<std::string>& locks) {
  nlohmann::json lj = nlohmann::json::object();
  for (const std::string& l : locks) lj[l] = summary_json(side.lock_wait_ns.at(l));
  return {{"ops_per_s", summary_json(side.ops_per_s)},
          {"latency_ns_per_op", summary_json(side.latency_ns)},
          {"lock_wait_ns_per_op", lj}};
}

}  // namespace

nlohmann::json scaling_json(const Scaling& s) {
  nlohmann::json points = nlohmann::json::array(), onsets = nlohmann::json::array();
  for (const ScalingPoint& p : s.points)
    points.push_back(
        {{"threads", p.threads > 0 ? nlohmann::json(p.threads) : nlohmann::json()},
         {"ops_per_s_q", std::isfinite(p.ops_q) ? nlohmann::json(p.ops_q) : nlohmann::json()},
         {"a", side_json(p.side[0], s.locks)},
         {"b", side_json(p.side[1], s.locks)}});
  auto onset = [](int t) { return t > 0 ? nlohmann::json(t) : nlohmann::json(); };
  for (const LockOnset& o : s.onsets)
    onsets.push_back({{"lock", o.lock}, {"a", onset(o.threads[0])}, {"b", onset(o.threads[1])}});
  return {{"significant_share_of_latency", s.threshold}, {"points", points}, {"onsets", onsets}};
}

namespace {

constexpr const char* kColors[2] = {"#1f6fb4", "#d9480f"};

ChartSeries ops_series(const Scaling& s, int c, const std::string& name) {
  ChartSeries cs{name, kColors[c], {}, std::nullopt, {}};
  for (const ScalingPoint& p : s.points) {
    const stats::Summary& o = p.side[c].ops_per_s;
    if (o.n > 0) cs.points.push_back({double(std::max(p.threads, 1)), o.mean, o.ci_lo, o.ci_hi});
  }
  return cs;
}

ChartSeries lock_series(const Scaling& s, const LockOnset& o, int c, const std::string& name) {
  ChartSeries cs{name, kColors[c], {}, std::nullopt, {}};
  for (const ScalingPoint& p : s.points) {
    const stats::Summary& w = p.side[c].lock_wait_ns.at(o.lock);
    if (w.n > 0) cs.points.push_back({double(std::max(p.threads, 1)), w.mean, w.ci_lo, w.ci_hi});
  }
  if (o.threads[c] > 0) {
    cs.mark_x = double(o.threads[c]);
    cs.mark_label = fmt::format("significant from t={}", o.threads[c]);
  }
  return cs;
}


}  // namespace

std::string render_scaling_html(const Scaling& s, const std::string& label_a,
                                const std::string& label_b) {
  std::string a = "A " + label_a, b = "B " + label_b;
  std::string html = fmt::format(
      "<p>Lock contention counts as significant from the first thread count where the mean wait "
      "on the lock per operation reaches {:.0f}% of the mean operation latency (ringed). Points "
      "are means over the runs, bars their 95% intervals (clipped to the chart).</p>\n",
      s.threshold * 100);
  Chart ops{"Operations per second",
            "threads",
            "ops/s",
            true,
            {ops_series(s, 0, a), ops_series(s, 1, b)}};
  html += "<div class=\"charts\">" + line_chart_svg(ops);
  for (const LockOnset& o : s.onsets) {
    Chart c{
        o.lock, "threads", "wait ns/op", true, {lock_series(s, o, 0, a), lock_series(s, o, 1, b)}};
    html += line_chart_svg(c);
  }
  html += "</div>\n<pre class=\"diff-text\">" +
          escaped_lines(render_scaling_text(s, label_a, label_b, 100)) + "</pre>\n";
  return html;
}

}  // namespace fscost
