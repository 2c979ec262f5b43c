// Significance of sampled figures (docs/DIFF.md "Tests"): on synthetic runs
// drawn the way cpu-clock samples are — Poisson counts around a rate that
// itself moves from run to run — the quasi-Poisson count test finds a
// function at 31× A among two thousand, and on A against A it holds the
// false-positive rate Benjamini–Hochberg promises.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "diff/diff.h"
#include "diff/stats.h"
#include "diff_fixture.h"  // kCreatePath, frames_of
#include "synthetic_runs.h"  // Draw, make_side, background

namespace fscost::test {
namespace {

// The count test alone: synthetic drift of 15–30% between runs is what
// it must hold its rate under, not what the outlier rule should remove.
DiffConfig keep_all() {
  DiffConfig c;
  c.drop_outliers = false;
  return c;
}

const OpDiff& create_of(const Diff& diff) {
  for (const auto& o : diff.ops)
    if (o.op == "create") return o;
  throw std::runtime_error("no create");
}

// Significant sampled comparisons (functions, families, paths) under create.
std::size_t discoveries(const OpDiff& op) {
  std::size_t n = 0;
  for (const auto& f : op.functions) n += f.inclusive.significant() + f.self.significant();
  for (const auto& f : op.families) n += f.inclusive.significant();
  for (const auto& p : op.paths) n += p.inclusive.significant();
  return n;
}

const FunctionDiff* function_of(const OpDiff& op, const std::string& name) {
  for (const auto& f : op.functions)
    if (f.name == name) return &f;
  return nullptr;
}

TEST(CountTest, PoissonCountsAtEqualRatesHaveDispersionNearOne) {
  Draw d(7);
  std::vector<double> ka, kb, e(5, 1.0);
  for (int i = 0; i < 5; ++i) {
    ka.push_back(static_cast<double>(d.poisson(400)));
    kb.push_back(static_cast<double>(d.poisson(400)));
  }
  stats::CountTest c = stats::count_test(ka, e, kb, e);
  ASSERT_TRUE(c.valid);
  EXPECT_EQ(c.df, 8);
  EXPECT_LT(c.dispersion, 3);
  EXPECT_GT(c.p, 0.01);
  EXPECT_LE(c.ci_lo, c.diff);
  EXPECT_GE(c.ci_hi, c.diff);
}

TEST(CountTest, UndefinedWithoutRunsOrExposure) {
  std::vector<double> one{5}, two{5, 6}, zero{0, 0};
  EXPECT_FALSE(stats::count_test(one, one, two, two).valid);
  EXPECT_FALSE(stats::count_test(two, zero, two, two).valid);
  stats::CountTest none = stats::count_test(zero, two, zero, two);
  ASSERT_TRUE(none.valid);
  EXPECT_EQ(none.p, 1);
}

// The descents' screened test (count_screen): below the normal's critical
// value a Student's t p-value lies above p_max at every df the descents
// use (and fractional ones), so skipping it changes no decision.
TEST(CountScreen, NormalCriticalValueBoundsStudentsT) {
  for (double p_max : {0.05, 0.01, 0.05 / 40, 1e-6}) {
    const double z = stats::normal_critical(p_max);
    for (double df : {1.0, 2.0, 2.5, 3.0, 8.0, 18.0, 28.0, 38.0, 100.0, 1e4})
      for (double f = 0; f < 0.999; f += 0.01) {
        const double t = f * z;
        EXPECT_GT(stats::t_two_sided_p(t, df), p_max) << "t " << t << " df " << df;
      }
  }
}

// Every figure of count_screen is count_test's, but the interval, and p
// where it is above p_max; whether p ≤ p_max never differs.
TEST(CountScreen, SameTestWithoutTheIntervalOrPAboveTheBound) {
  Draw d(43);
  std::size_t exact = 0, screened = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<double> ka, kb, ea, eb;
    const double shift = 1 + 0.002 * (trial % 200);
    for (int r = 0; r < 5; ++r) {
      ea.push_back(1000 + 10 * r);
      eb.push_back(1000 + 7 * r);
      ka.push_back(static_cast<double>(d.poisson(40)));
      kb.push_back(static_cast<double>(d.poisson(40 * shift)));
    }
    const double phi = 1 + 0.01 * (trial % 50), prior_df = trial % 3 == 0 ? 0 : 20;
    const stats::CountTest c = stats::count_test(ka, ea, kb, eb, 0.95, phi, prior_df);
    const stats::CountTest s = stats::count_screen(ka, ea, kb, eb, phi, prior_df, 0.05);
    ASSERT_EQ(c.valid, s.valid);
    EXPECT_EQ(c.rate_a, s.rate_a);
    EXPECT_EQ(c.rate_b, s.rate_b);
    EXPECT_EQ(c.chi2, s.chi2);
    EXPECT_EQ(c.df, s.df);
    EXPECT_EQ(c.t, s.t);
    EXPECT_EQ(c.p <= 0.05, s.p <= 0.05);
    if (s.p == 1 && c.p != 1) {
      ++screened;
      EXPECT_GT(c.p, 0.05);
    } else {
      ++exact;
      EXPECT_EQ(c.p, s.p);
    }
  }
  // The draws reach both branches.
  EXPECT_GT(exact, 100u);
  EXPECT_GT(screened, 100u);
}

// The jackknife descents' test from sums (count_screen_sums): a child's
// counts under its caller's, with a run's terms taken off the sums, give
// count_test's rates exactly and its χ² and t to rounding, and the same
// answer to whether p ≤ 0.05.
TEST(CountScreen, FromSumsLessARunIsTheTestWithoutIt) {
  Draw d(44);
  std::size_t significant = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<double> ka, kb, ea, eb;
    const double shift = 1 + 0.003 * (trial % 200);
    for (int r = 0; r < 6; ++r) {
      ea.push_back(static_cast<double>(d.poisson(2000)));
      eb.push_back(static_cast<double>(d.poisson(2000)));
      ka.push_back(std::min(ea.back(), static_cast<double>(d.poisson(60))));
      kb.push_back(std::min(eb.back(), static_cast<double>(d.poisson(60 * shift))));
    }
    if (trial % 7 == 0) ka[2] = ea[2] = 0;  // a run where the caller has no samples
    auto sums = [](const std::vector<double>& k, const std::vector<double>& e, std::size_t skip) {
      stats::CountSums s;
      for (std::size_t i = 0; i < k.size(); ++i) {
        s.samples += k[i];
        s.exposure += e[i];
        if (e[i] > 0) s.squares += k[i] * k[i] / e[i];
        ++s.runs;
      }
      if (skip < k.size()) {  // taken off, as the descent does
        s.samples -= k[skip];
        s.exposure -= e[skip];
        if (e[skip] > 0) s.squares -= k[skip] * k[skip] / e[skip];
        --s.runs;
      }
      return s;
    };
    const std::size_t skip = static_cast<std::size_t>(trial % 6);
    std::vector<double> ka1 = ka, ea1 = ea;
    ka1.erase(ka1.begin() + static_cast<std::ptrdiff_t>(skip));
    ea1.erase(ea1.begin() + static_cast<std::ptrdiff_t>(skip));
    const double phi = 1 + 0.02 * (trial % 30), prior_df = trial % 2 ? 20 : 0;
    const stats::CountTest c = stats::count_test(ka1, ea1, kb, eb, 0.95, phi, prior_df);
    const stats::CountTest s =
        stats::count_screen_sums(sums(ka, ea, skip), sums(kb, eb, 99), phi, prior_df, 0.05);
    ASSERT_EQ(c.valid, s.valid);
    EXPECT_EQ(c.rate_a, s.rate_a);
    EXPECT_EQ(c.rate_b, s.rate_b);
    EXPECT_EQ(c.df, s.df);
    EXPECT_NEAR(c.chi2, s.chi2, 1e-9 * std::max(1.0, c.chi2));
    EXPECT_NEAR(c.t, s.t, 1e-9 * std::max(1.0, std::fabs(c.t)));
    EXPECT_EQ(c.p <= 0.05, s.p <= 0.05) << "p " << c.p;
    significant += c.p <= 0.05;
  }
  EXPECT_GT(significant, 100u);  // both answers are reached
  EXPECT_LT(significant, 1900u);
}

// Exposure scales the rate: twice the samples over twice the operations is
// no change.
TEST(CountTest, RatesAreSamplesOverExposure) {
  std::vector<double> ka{100, 104, 98}, ea{1, 1, 1}, kb{200, 204, 199}, eb{2, 2, 2};
  stats::CountTest c = stats::count_test(ka, ea, kb, eb);
  ASSERT_TRUE(c.valid);
  EXPECT_NEAR(c.rate_a, 100.67, 0.01);
  EXPECT_NEAR(c.rate_b, 100.5, 0.01);
  EXPECT_GT(c.p, 0.5);
}

// The case: a function at 31× A (20 → 620 samples a run) among
// 2000 background functions, 5 runs a side with 15% drift between runs.
// Welch's t on the same runs has 4–8 degrees of freedom and A's variance
// from 20-sample counts; under BH over ~4000 function comparisons it needs
// p < 1e-5 and misses most times. The count test finds it every time.
TEST(DiffPower, AFunctionAt31TimesAIsSignificantAmongTwoThousand) {
  Draw d(2026);
  std::vector<Function> bg = background(2000, d);
  std::vector<Function> a = bg, b = bg;
  a.push_back({"xfs_defer_finish_noroll", 20});
  b.push_back({"xfs_defer_finish_noroll", 620});
  int found = 0, welch_found = 0;
  const int trials = 20;
  for (int t = 0; t < trials; ++t) {
    Diff diff =
        diff_runs(make_side(a, 0.15, 5, d, "A"), make_side(b, 0.15, 5, d, "B"), keep_all());
    const FunctionDiff* f = function_of(create_of(diff), "xfs_defer_finish_noroll");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->inclusive.test, StatTest::Counts);
    found += f->inclusive.significant();
    welch_found += f->inclusive.welch.p * static_cast<double>(diff.families.functions) < 0.05;
  }
  EXPECT_EQ(found, trials);
  // Not an assertion on Welch, a record of why the test changed.
  RecordProperty("welch_bonferroni_found", welch_found);
  std::printf("31x A among 2000: count test %d/%d, Welch (Bonferroni) %d/%d\n", found, trials,
              welch_found, trials);
}

// A against A: the same configuration on both sides, 100 diffs of 300
// functions each. Under the global null Benjamini–Hochberg's FDR is the
// chance of any discovery, so at most alpha = 5% of the diffs may report
// one; 10% allows for the binomial spread of 100 trials (sd 2.2).
TEST(DiffPower, AAgainstAHoldsTheFalsePositiveRate) {
  for (double run_sd : {0.05, 0.3}) {
    Draw d(run_sd < 0.1 ? 11 : 12);
    std::vector<Function> fns = background(300, d);
    int with_discovery = 0;
    std::size_t discovered = 0, tested = 0;
    const int trials = 100;
    for (int t = 0; t < trials; ++t) {
      Diff diff = diff_runs(make_side(fns, run_sd, 5, d, "A"), make_side(fns, run_sd, 5, d, "B"),
                           keep_all());
      std::size_t n = discoveries(create_of(diff));
      with_discovery += n > 0;
      discovered += n;
      tested += diff.families.functions;
    }
    EXPECT_LE(with_discovery, trials / 10) << "run sd " << run_sd;
    std::printf("A vs A, run sd %.2f: %d/%d diffs with a discovery, %zu of %zu comparisons\n",
                run_sd, with_discovery, trials, discovered, tested);
  }
}

}  // namespace
}  // namespace fscost::test
