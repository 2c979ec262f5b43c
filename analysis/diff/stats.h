// Statistics for comparing a few runs of configuration A with a few of B.
//
// Benchmarks of filesystem configurations give 3–10 runs per side, with
// unequal variance, so the tests are the ones that fit: Welch's t (means,
// unequal variances), a quasi-Poisson test for sampled counts, and
// Mann–Whitney U (ranks, no normality), with Hedges'
// g as the effect size and Benjamini–Hochberg over the many per-function and
// per-lock comparisons of one diff. Distributions come from Boost.Math.
// Every function is pure; NaN marks "undefined" (too few values), never 0.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace fscost::stats {

// One configuration's values of one metric.
struct Summary {
  std::size_t n = 0;
  double mean = 0;  // NaN if n == 0
  double sd = 0;    // sample standard deviation (n − 1); NaN if n < 2
  // Two-sided t interval for the mean at `level`; NaN if n < 2. Equal to
  // the mean when sd == 0.
  double ci_lo = 0;
  double ci_hi = 0;
};
Summary summarize(std::span<const double> x, double level = 0.95);

// Quantile of Student's t with `df` degrees of freedom (df may be
// fractional, as Welch's is), p in (0, 1).
double t_quantile(double p, double df);
// P(|T| ≥ |t|) for Student's t with df degrees of freedom; NaN for a NaN t
// or df ≤ 0.
double t_two_sided_p(double t, double df);

// Welch's two-sample t test of mean(b) − mean(a).
struct Welch {
  bool valid = false;  // false if either side has n < 2; then all else NaN
  double diff = 0;     // mean(b) − mean(a)
  double se = 0;       // standard error of diff
  double df = 0;       // Welch–Satterthwaite degrees of freedom
  double t = 0;
  double p = 1;        // two-sided
  double ci_lo = 0;    // interval for diff at `level`
  double ci_hi = 0;
};
// Both standard deviations 0 (deterministic counts): p = 0 if the means
// differ, 1 if not, with the interval [diff, diff] and df = NaN, t = ±inf/0.
Welch welch_test(std::span<const double> a, std::span<const double> b, double level = 0.95);
// welch_test for a verdict only (the jackknife's retests): no interval
// (ci_lo, ci_hi NaN, but where both deviations are 0), and p exact only
// where it can be at most `p_max`; a p certainly above it reads 1
// (count_screen says why that decides the same).
Welch welch_screen(std::span<const double> a, std::span<const double> b, double p_max);

// A test on sample counts for figures that come from cpu-clock samples:
// run i of a side saw k_i samples over exposure e_i (its operations ×
// samples per ns, so the rate k/e is in ns/op). Quasi-Poisson: the rate of
// a side is Σk / Σe; the dispersion φ = Pearson χ² of both sides around
// their own rates / (n_a + n_b − 2), at least 1, since counts vary at
// least as a Poisson process does and more when runs differ. The score
// statistic (r_b − r_a) / √(φ r₀ (1/E_a + 1/E_b)), r₀ the pooled rate,
// is referred to Student's t with n_a + n_b − 2 degrees of freedom. It
// pools the dispersion of both sides where Welch's t estimates each
// side's variance from its own 5 runs (and from none when A never saw
// the function), so it has the power to call thousands of samples against
// dozens significant under an FDR over thousands of functions.
struct CountTest {
  bool valid = false;  // false if either side has < 2 runs or no exposure
  double rate_a = 0, rate_b = 0;  // Σk / Σe
  double diff = 0;                // rate_b − rate_a
  double dispersion = 1;          // φ ≥ 1
  double df = 0;
  double t = 0;
  double p = 1;                   // two-sided
  double ci_lo = 0, ci_hi = 0;    // Wald interval for diff, √(φ (r_a/E_a + r_b/E_b))
  double exposure_a = 0, exposure_b = 0;  // Σe of each side: samples = rate × exposure
  double chi2 = 0;  // Pearson χ² of both sides around their own rates (on n_a + n_b − 2 df)
};
// With `prior_df` > 0 the dispersion is moderated toward `prior_dispersion`
// (a family's common one), as limma moderates variances: φ = max(1, (χ² +
// prior_df · prior_dispersion) / (df + prior_df)) on df + prior_df degrees
// of freedom. Eight runs' χ² alone is a noisy dispersion (it reads 2 for a
// Poisson count as often as not); the siblings of one call-tree node share
// their sampling process and lend it their df (diff/descent.cpp).
CountTest count_test(std::span<const double> ka, std::span<const double> ea,
                     std::span<const double> kb, std::span<const double> eb,
                     double level = 0.95, double prior_dispersion = 1, double prior_df = 0);

// count_test for a family that only keeps what is significant (the
// descents' BH, diff/descent.cpp): no interval (ci_lo, ci_hi NaN), and p
// exact only where it can be at most `p_max`; a p certainly above it
// reads 1. Benjamini–Hochberg's q of a p at most p_max does not depend on
// the values of the p-values above p_max, only on how many there are
// (each of their terms p·m/j exceeds p_max), so every q < p_max, and which
// ones those are, stay what count_test's p would give.
CountTest count_screen(std::span<const double> ka, std::span<const double> ea,
                       std::span<const double> kb, std::span<const double> eb,
                       double prior_dispersion, double prior_df, double p_max);

// count_screen from one side's sums instead of its runs: `runs` runs,
// Σk samples, Σe exposure and Σ k²/e over the runs with e > 0 (k is 0
// where e is). χ² is then Σk²/(e r) − 2Σk + rΣe, which equals count_test's
// sum of (k − e r)²/(e r) up to rounding (not to the bit): for a test done
// many times with one run left out of the same sums (the call-tree
// descents of the jackknife, diff/descent.cpp), where only p ≤ p_max is
// read. `p_max` 0: no p (NaN), as count_t.
struct CountSums {
  std::size_t runs = 0;
  double samples = 0, exposure = 0, squares = 0;
};
CountTest count_screen_sums(const CountSums& a, const CountSums& b, double prior_dispersion,
                            double prior_df, double p_max);

// count_test up to its statistic: rates, χ², dispersion, df and t, with
// p and the interval NaN (p 1 and the interval [0, 0] where neither side
// has a sample, as count_test's). count_test's p is NaN exactly where t is.
CountTest count_t(std::span<const double> ka, std::span<const double> ea,
                  std::span<const double> kb, std::span<const double> eb, double prior_dispersion,
                  double prior_df);

// z with P(|Z| ≥ z) = p for the standard normal: a lower bound of every
// Student's t critical value at p.
double normal_critical(double p);

// A test whose standard error is floored from outside: `se` is a noise
// measured between compares on this host (fscost calibrate), wider than
// what the compare's own runs show, on `df` degrees of freedom (the
// calibration's compares). p is 2 (1 − T_df(|diff| / se)); the interval
// diff ± t_df((1 + level) / 2) · se. valid = false (all else NaN) when se
// is not positive and finite or df is not positive.
struct Floored {
  bool valid = false;
  double se = 0;
  double df = 0;
  double t = 0;
  double p = 1;
  double ci_lo = 0, ci_hi = 0;
};
Floored floored_test(double diff, double se, double df, double level = 0.95);

// Two-sided Mann–Whitney U test. u is U of b (number of pairs with
// b > a, ties counting 1/2). Exact distribution when there are no ties and
// n_a, n_b ≤ 20 (what few runs give); otherwise the normal approximation
// with tie and continuity corrections. valid = false (p NaN) if a side is
// empty or holds a NaN. Note: with 3 runs per side the smallest possible p is 0.1, so U
// alone can never call a difference significant at 0.05 there.
struct MannWhitney {
  bool valid = false;
  double u = 0;
  double p = 1;
  bool exact = false;
};
MannWhitney mann_whitney(std::span<const double> a, std::span<const double> b);

// Hedges' g: (mean(b) − mean(a)) / pooled sd, times the small-sample
// correction J = 1 − 3 / (4 (n_a + n_b) − 9). NaN if a side has n < 2;
// ±inf if the pooled sd is 0 and the means differ; 0 if both are equal.
double hedges_g(std::span<const double> a, std::span<const double> b);

// What a two-sided t test at `alpha` with `power` can resolve at the
// noise of a and b (their pooled sd): the smallest |mean difference| at
// these run counts, and the runs per side that would resolve `delta`
// ((t_{1−α/2} + t_power) · sd · √(1/n_a + 1/n_b) with df n_a + n_b − 2,
// the usual design approximation). NaN / 0 when a side has < 2 runs or
// the sd is undefined; runs_needed is 0 when delta is 0 and capped at
// kMaxRunsNeeded (more than that: say "over").
inline constexpr std::size_t kMaxRunsNeeded = 1000;
struct Resolution {
  double sd = 0;          // pooled
  double min_effect = 0;  // at n_a, n_b
  std::size_t runs_needed = 0;
};
Resolution resolution(std::span<const double> a, std::span<const double> b, double delta,
                      double alpha = 0.05, double power = 0.8);

// Benjamini–Hochberg adjusted p-values (q-values), in the input's order:
// q_i = min over j with rank ≥ rank_i of p_j · m / rank_j, capped at 1.
// NaN inputs stay NaN and do not count in m.
std::vector<double> benjamini_hochberg(std::span<const double> p);

}  // namespace fscost::stats
