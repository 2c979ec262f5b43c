// Welch's t, the quasi-Poisson count test, Mann–Whitney U, Hedges' g and
// Benjamini–Hochberg (stats.h).
// Distributions are Boost.Math's; the exact U distribution is counted here
// because Boost.Math has none.
#include "diff/stats.h"

#include <algorithm>
// Boost.Math's factorial table as a static array, not a constexpr local:
// GCC 12 builds the local's 171 long doubles on the stack at every call,
// and the t distribution's incomplete beta (beta_small_b_large_a_series)
// calls it in its loop: 2.5% of a 2 × 10 × 100k-stack diff (perf). The
// same literals, so the same values. This is the one file that includes
// Boost.Math, so no other definition of the table's function exists.
#include <boost/math/tools/config.hpp>
#undef BOOST_MATH_HAVE_CONSTEXPR_TABLES
#undef BOOST_MATH_CONSTEXPR_TABLE_FUNCTION
#define BOOST_MATH_CONSTEXPR_TABLE_FUNCTION
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <utility>

namespace fscost::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Return NaN/inf instead of throwing: callers treat NaN as "undefined".
// In double throughout: boost's default promotes a double's t and beta
// functions to long double (x87 powl, expl, logl), which was a fifth of a
// small diff's CPU (perf, 2 × 5 × 5k stacks) for digits past the 1e-9 the
// goldens keep (issue 43).
using Policy = boost::math::policies::policy<
    boost::math::policies::domain_error<boost::math::policies::ignore_error>,
    boost::math::policies::overflow_error<boost::math::policies::ignore_error>,
    boost::math::policies::evaluation_error<boost::math::policies::ignore_error>,
    boost::math::policies::promote_double<false>>;
using StudentT = boost::math::students_t_distribution<double, Policy>;
using Normal = boost::math::normal_distribution<double, Policy>;

struct Moments {
  std::size_t n = 0;
  double mean = kNaN;
  double var = kNaN;  // sample variance (n − 1)
};

Moments moments(std::span<const double> x) {
  Moments m{.n = x.size()};
  if (m.n == 0) return m;
  m.mean = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(m.n);
  if (m.n < 2) return m;
  double ss = 0;  // two-pass: no cancellation for large, close values (ns counts)
  for (double v : x) ss += (v - m.mean) * (v - m.mean);
  m.var = ss / static_cast<double>(m.n - 1);
  return m;
}

// Counts of U = 0..m·n over all C(m+n, m) orderings without ties: the
// coefficients of the Gaussian binomial [m+n choose m]_q, built as
// ∏_{k=1..m} (1 − q^(n+k)) / (1 − q^k). After step k the polynomial is
// [n+k choose k]_q, so every division is exact. C(40, 20) < 2^63.
std::vector<std::int64_t> u_counts(std::size_t m, std::size_t n) {
  std::vector<std::int64_t> c(m * n + 1, 0);
  c[0] = 1;
  for (std::size_t k = 1; k <= m; ++k) {
    // [n+k choose k]_q has degree k·n. The product's terms above that are
    // never stored: the division runs upward, so they cannot feed lower ones.
    std::size_t deg = k * n;
    for (std::size_t u = deg; u >= n + k; --u) c[u] -= c[u - n - k];  // × (1 − q^(n+k))
    for (std::size_t u = k; u <= deg; ++u) c[u] += c[u - k];          // ÷ (1 − q^k)
  }
  return c;
}

// A diff asks for the same few (m, n) tens of thousands of times.
const std::vector<std::int64_t>& u_counts_cached(std::size_t m, std::size_t n) {
  thread_local std::map<std::pair<std::size_t, std::size_t>, std::vector<std::int64_t>> cache;
  auto it = cache.find({m, n});
  if (it == cache.end()) it = cache.emplace(std::pair{m, n}, u_counts(m, n)).first;
  return it->second;
}

double exact_u_p(double u, std::size_t m, std::size_t n) {
  const std::vector<std::int64_t>& c = u_counts_cached(m, n);
  auto k = static_cast<std::size_t>(u);  // no ties: u is an integer
  double total = 0, le = 0, ge = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    auto ci = static_cast<double>(c[i]);
    total += ci;
    if (i <= k) le += ci;
    if (i >= k) ge += ci;
  }
  return std::min(1.0, 2 * std::min(le, ge) / total);
}

// Normal approximation with tie and continuity corrections, as
// scipy.stats.mannwhitneyu(method='asymptotic', use_continuity=True) and
// R's wilcox.test(exact = FALSE, correct = TRUE).
double normal_u_p(double u, std::size_t m, std::size_t n, double tie_sum) {
  double nm = static_cast<double>(m), nn = static_cast<double>(n), N = nm + nn;
  double mu = nm * nn / 2;
  double var = nm * nn / 12 * ((N + 1) - tie_sum / (N * (N - 1)));
  if (!(var > 0)) return 1.0;  // every value equal: no evidence of a shift
  double z = (std::abs(u - mu) - 0.5) / std::sqrt(var);
  return std::min(1.0, 2 * cdf(complement(Normal(), z)));
}

}  // namespace

double t_two_sided_p(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return kNaN;
  return std::min(1.0, 2 * cdf(complement(StudentT(df), std::abs(t))));
}

Summary summarize(std::span<const double> x, double level) {
  Moments m = moments(x);
  Summary s{.n = m.n, .mean = m.mean, .sd = std::sqrt(m.var), .ci_lo = kNaN, .ci_hi = kNaN};
  if (m.n < 2) return s;
  double half = 0;  // sd == 0: the interval is the mean, whatever t is
  if (s.sd > 0)  // whole df: t_quantile remembers it
    half = t_quantile((1 + level) / 2, static_cast<double>(m.n - 1)) * s.sd /
           std::sqrt(static_cast<double>(m.n));
  s.ci_lo = s.mean - half;
  s.ci_hi = s.mean + half;
  return s;
}

double t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) return kNaN;
  // A diff asks for the same few (level, df) pairs tens of thousands of
  // times (every count test's interval; whole degrees of freedom) and the
  // inverse is the dearest call in it: remembered per thread, by the
  // arguments' exact values. Welch's fractional df seldom repeat: not kept.
  if (df != std::floor(df)) return quantile(StudentT(df), p);
  thread_local std::map<std::pair<double, double>, double> known;
  auto [it, added] = known.try_emplace({p, df}, 0.0);
  if (added) it->second = quantile(StudentT(df), p);
  return it->second;
}

Resolution resolution(std::span<const double> a, std::span<const double> b, double delta,
                      double alpha, double power) {
  Moments ma = moments(a), mb = moments(b);
  if (ma.n < 2 || mb.n < 2) return {kNaN, kNaN, 0};
  double na = static_cast<double>(ma.n), nb = static_cast<double>(mb.n);
  double sd = std::sqrt(((na - 1) * ma.var + (nb - 1) * mb.var) / (na + nb - 2));
  auto factor = [&](double df) {
    return t_quantile(1 - alpha / 2, df) + t_quantile(power, df);
  };
  Resolution r{sd, factor(na + nb - 2) * sd * std::sqrt(1 / na + 1 / nb), 0};
  if (!(std::fabs(delta) > 0) || !std::isfinite(delta) || !std::isfinite(sd)) return r;
  for (std::size_t n = 2; n <= kMaxRunsNeeded; ++n) {
    double dn = static_cast<double>(n);
    if (factor(2 * dn - 2) * sd * std::sqrt(2 / dn) <= std::fabs(delta)) {
      r.runs_needed = n;
      return r;
    }
  }
  r.runs_needed = kMaxRunsNeeded + 1;
  return r;
}

namespace {

// welch_test up to its t and df. False where it is decided already
// (invalid, or both standard deviations 0): then `w` is complete.
bool welch_core(std::span<const double> a, std::span<const double> b, Welch& w) {
  Moments ma = moments(a), mb = moments(b);
  if (ma.n < 2 || mb.n < 2) {
    w = {false, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN};
    return false;
  }
  w = Welch{.valid = true, .diff = mb.mean - ma.mean};
  double va = ma.var / static_cast<double>(ma.n), vb = mb.var / static_cast<double>(mb.n);
  w.se = std::sqrt(va + vb);
  if (w.se == 0) {  // deterministic counts: any difference is certain
    w.df = kNaN;
    w.t = w.diff == 0 ? 0 : std::copysign(kInf, w.diff);
    w.p = w.diff == 0 ? 1 : 0;
    w.ci_lo = w.ci_hi = w.diff;
    return false;
  }
  w.df = (va + vb) * (va + vb) /
         (va * va / static_cast<double>(ma.n - 1) + vb * vb / static_cast<double>(mb.n - 1));
  w.t = w.diff / w.se;
  return true;
}

// A two-sided p that is only needed where it is at most p_max: 1 where it
// is certainly above. P(|T_df| ≥ t) > P(|Z| ≥ t) for every t > 0 and
// finite df (Student's t quantiles lie above the normal's), so below the
// normal's critical value p is above p_max and the incomplete beta
// function is not evaluated. The margin keeps rounding out of it.
double screened_p(double t, double df, double p_max) {
  if (p_max > 0 && p_max < 1 && std::fabs(t) < 0.999 * normal_critical(p_max)) return 1;
  return t_two_sided_p(t, df);
}

}  // namespace

Welch welch_test(std::span<const double> a, std::span<const double> b, double level) {
  Welch w;
  if (!welch_core(a, b, w)) return w;
  w.p = t_two_sided_p(w.t, w.df);
  double half = t_quantile((1 + level) / 2, w.df) * w.se;
  w.ci_lo = w.diff - half;
  w.ci_hi = w.diff + half;
  return w;
}

Welch welch_screen(std::span<const double> a, std::span<const double> b, double p_max) {
  Welch w;
  if (!welch_core(a, b, w)) return w;
  w.p = screened_p(w.t, w.df, p_max);
  w.ci_lo = w.ci_hi = kNaN;
  return w;
}

namespace {

// The count test's start, from each side's samples K and exposure E over
// `runs_a`, `runs_b` runs: false (and `c` count_test's invalid result)
// where it is undefined; else the rates and the runs' df.
bool count_start(double Ka, double Ea, double Kb, double Eb, std::size_t runs_a,
                 std::size_t runs_b, CountTest& c) {
  if (runs_a < 2 || runs_b < 2 || !(Ea > 0) || !(Eb > 0) || !std::isfinite(Ka + Kb)) {
    c = {false, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN};
    return false;
  }
  c.valid = true;
  c.exposure_a = Ea;
  c.exposure_b = Eb;
  c.rate_a = Ka / Ea;
  c.rate_b = Kb / Eb;
  c.diff = c.rate_b - c.rate_a;
  c.df = static_cast<double>(runs_a + runs_b - 2);
  return true;
}

// Its end, given Pearson's χ² of both sides: the moderated dispersion and
// df, and t. False where no sample was seen (then p = 1 and the interval
// [0, 0] are set).
bool count_finish(double chi2, double Ka, double Kb, double prior_dispersion, double prior_df,
                  CountTest& c) {
  c.chi2 = chi2;
  c.dispersion = std::max(1.0, (chi2 + prior_df * prior_dispersion) / (c.df + prior_df));
  c.df += prior_df;
  const double Ea = c.exposure_a, Eb = c.exposure_b;
  const double r0 = (Ka + Kb) / (Ea + Eb);
  if (r0 == 0) {  // no sample on either side
    c.t = 0;
    c.p = 1;
    c.ci_lo = c.ci_hi = 0;
    return false;
  }
  c.t = c.diff / std::sqrt(c.dispersion * r0 * (1 / Ea + 1 / Eb));
  return true;
}

// count_test up to its t: rates, χ², dispersion and df. False where the
// test is invalid or no sample was seen (count_start, count_finish).
bool count_core(std::span<const double> ka, std::span<const double> ea,
                std::span<const double> kb, std::span<const double> eb, double prior_dispersion,
                double prior_df, CountTest& c) {
  auto sum = [](std::span<const double> x) { return std::accumulate(x.begin(), x.end(), 0.0); };
  const double Ka = sum(ka), Ea = sum(ea), Kb = sum(kb), Eb = sum(eb);
  // Counts without an exposure each are no runs of the test.
  const std::size_t na = ka.size() == ea.size() ? ka.size() : 0;
  const std::size_t nb = kb.size() == eb.size() ? kb.size() : 0;
  if (!count_start(Ka, Ea, Kb, Eb, na, nb, c)) return false;
  double chi2 = 0;
  auto pearson = [&](std::span<const double> k, std::span<const double> e, double rate) {
    for (std::size_t i = 0; i < k.size(); ++i)
      if (double fit = e[i] * rate; fit > 0) chi2 += (k[i] - fit) * (k[i] - fit) / fit;
  };
  pearson(ka, ea, c.rate_a);
  pearson(kb, eb, c.rate_b);
  return count_finish(chi2, Ka, Kb, prior_dispersion, prior_df, c);
}

}  // namespace

CountTest count_test(std::span<const double> ka, std::span<const double> ea,
                     std::span<const double> kb, std::span<const double> eb, double level,
                     double prior_dispersion, double prior_df) {
  CountTest c;
  if (!count_core(ka, ea, kb, eb, prior_dispersion, prior_df, c)) return c;
  c.p = t_two_sided_p(c.t, c.df);
  double half = t_quantile((1 + level) / 2, c.df) *
                std::sqrt(c.dispersion * (c.rate_a / c.exposure_a + c.rate_b / c.exposure_b));
  c.ci_lo = c.diff - half;
  c.ci_hi = c.diff + half;
  return c;
}

CountTest count_t(std::span<const double> ka, std::span<const double> ea,
                  std::span<const double> kb, std::span<const double> eb, double prior_dispersion,
                  double prior_df) {
  CountTest c;
  if (count_core(ka, ea, kb, eb, prior_dispersion, prior_df, c)) c.p = c.ci_lo = c.ci_hi = kNaN;
  return c;
}

CountTest count_screen_sums(const CountSums& a, const CountSums& b, double prior_dispersion,
                            double prior_df, double p_max) {
  CountTest c;
  if (!count_start(a.samples, a.exposure, b.samples, b.exposure, a.runs, b.runs, c)) return c;
  // Σ (k − e r)² / (e r) over the runs with e r > 0 is Σ k²/(e r) − 2 Σ k
  // + r Σ e there: k is 0 where e is (a child has no samples its caller
  // lacks), so K and E may be the side's whole sums. No term where r is 0.
  auto pearson = [](const CountSums& s, double rate) {
    if (!(rate > 0)) return 0.0;
    return std::max(0.0, s.squares / rate - 2 * s.samples + rate * s.exposure);
  };
  if (!count_finish(pearson(a, c.rate_a) + pearson(b, c.rate_b), a.samples, b.samples,
                    prior_dispersion, prior_df, c))
    return c;
  c.ci_lo = c.ci_hi = kNaN;
  c.p = p_max > 0 ? screened_p(c.t, c.df, p_max) : kNaN;
  return c;
}

CountTest count_screen(std::span<const double> ka, std::span<const double> ea,
                       std::span<const double> kb, std::span<const double> eb,
                       double prior_dispersion, double prior_df, double p_max) {
  CountTest c;
  if (!count_core(ka, ea, kb, eb, prior_dispersion, prior_df, c)) return c;
  c.ci_lo = c.ci_hi = kNaN;
  c.p = screened_p(c.t, c.df, p_max);
  return c;
}

double normal_critical(double p_max) {
  // One value per thread: the descents ask with the same alpha throughout.
  thread_local double last_p = kNaN, last_z = kNaN;
  if (p_max != last_p) {
    last_z = quantile(complement(Normal(0, 1), p_max / 2));
    last_p = p_max;
  }
  return last_z;
}

Floored floored_test(double diff, double se, double df, double level) {
  if (!(se > 0) || !std::isfinite(se) || !(df > 0) || !std::isfinite(diff))
    return {false, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN};
  Floored f{.valid = true, .se = se, .df = df, .t = diff / se};
  f.p = t_two_sided_p(f.t, df);
  double half = t_quantile((1 + level) / 2, df) * se;
  f.ci_lo = diff - half;
  f.ci_hi = diff + half;
  return f;
}

MannWhitney mann_whitney(std::span<const double> a, std::span<const double> b) {
  MannWhitney r;
  auto has_nan = [](std::span<const double> x) {
    return std::any_of(x.begin(), x.end(), [](double v) { return std::isnan(v); });
  };
  // A NaN has no rank (and would break the sort's ordering): undefined.
  if (a.empty() || b.empty() || has_nan(a) || has_nan(b)) {
    r.u = r.p = kNaN;
    return r;
  }
  // Midranks of the pooled sample; flag 1 marks b.
  std::vector<std::pair<double, int>> all;
  for (double v : a) all.emplace_back(v, 0);
  for (double v : b) all.emplace_back(v, 1);
  std::sort(all.begin(), all.end());
  double rank_sum_b = 0, tie_sum = 0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    double t = static_cast<double>(j - i), midrank = static_cast<double>(i + j + 1) / 2;
    for (std::size_t k = i; k < j; ++k) rank_sum_b += all[k].second * midrank;
    tie_sum += t * t * t - t;
    i = j;
  }
  double nb = static_cast<double>(b.size());
  r.valid = true;
  r.u = rank_sum_b - nb * (nb + 1) / 2;
  r.exact = tie_sum == 0 && a.size() <= 20 && b.size() <= 20;
  r.p = r.exact ? exact_u_p(r.u, a.size(), b.size()) : normal_u_p(r.u, a.size(), b.size(), tie_sum);
  return r;
}

double hedges_g(std::span<const double> a, std::span<const double> b) {
  Moments ma = moments(a), mb = moments(b);
  if (ma.n < 2 || mb.n < 2) return kNaN;
  double na = static_cast<double>(ma.n), nb = static_cast<double>(mb.n);
  double diff = mb.mean - ma.mean;
  double pooled = std::sqrt(((na - 1) * ma.var + (nb - 1) * mb.var) / (na + nb - 2));
  if (pooled == 0) return diff == 0 ? 0 : std::copysign(kInf, diff);
  double j = 1 - 3 / (4 * (na + nb) - 9);
  return diff / pooled * j;
}

std::vector<double> benjamini_hochberg(std::span<const double> p) {
  std::vector<double> q(p.size(), kNaN);
  std::vector<std::size_t> order;  // indices of non-NaN p, ascending by p
  for (std::size_t i = 0; i < p.size(); ++i)
    if (!std::isnan(p[i])) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return p[x] < p[y]; });
  double m = static_cast<double>(order.size()), running = 1.0;
  for (std::size_t r = order.size(); r-- > 0;) {  // from the largest rank down
    running = std::min(running, p[order[r]] * m / static_cast<double>(r + 1));
    q[order[r]] = running;
  }
  return q;
}

}  // namespace fscost::stats
