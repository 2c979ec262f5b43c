// Expected values come from outside Boost: closed forms, exhaustive
// enumeration, R's printed output, and stats_reference.py (mpmath, 40
// digits; written from the textbook formulas, not from stats.cpp). Neither R
// nor scipy is installed here, so R numbers are its documented outputs.
#include "diff/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace fscost::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// R's `sleep` data set: extra hours of sleep, group 1 and group 2.
const std::vector<double> kSleep1 = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
const std::vector<double> kSleep2 = {1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};

TEST(Stats, SummarizeEmptyAndSingle) {
  Summary s0 = summarize({});
  EXPECT_EQ(s0.n, 0u);
  EXPECT_TRUE(std::isnan(s0.mean));
  EXPECT_TRUE(std::isnan(s0.sd));
  EXPECT_TRUE(std::isnan(s0.ci_lo));
  EXPECT_TRUE(std::isnan(s0.ci_hi));

  std::vector<double> one = {4.5};
  Summary s1 = summarize(one);
  EXPECT_EQ(s1.n, 1u);
  EXPECT_DOUBLE_EQ(s1.mean, 4.5);
  EXPECT_TRUE(std::isnan(s1.sd));
  EXPECT_TRUE(std::isnan(s1.ci_lo));
  EXPECT_TRUE(std::isnan(s1.ci_hi));
}

TEST(Stats, SummarizeTwoAndFive) {
  // By hand: mean 2, sd √2, half-width t(0.975, 1)·√2/√2 = 12.7062047362.
  std::vector<double> two = {1, 3};
  Summary s2 = summarize(two);
  EXPECT_EQ(s2.n, 2u);
  EXPECT_DOUBLE_EQ(s2.mean, 2);
  EXPECT_NEAR(s2.sd, std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(s2.ci_lo, -10.7062047361747, 1e-9);
  EXPECT_NEAR(s2.ci_hi, 14.7062047361747, 1e-9);

  // R: t.test(1:5)$conf.int = 1.036757 4.963243; mpmath for the digits.
  std::vector<double> five = {4, 2, 5, 1, 3};
  Summary s5 = summarize(five);
  EXPECT_EQ(s5.n, 5u);
  EXPECT_DOUBLE_EQ(s5.mean, 3);
  EXPECT_NEAR(s5.sd, 1.58113883008419, 1e-12);
  EXPECT_NEAR(s5.ci_lo, 1.03675683852244, 1e-9);
  EXPECT_NEAR(s5.ci_hi, 4.96324316147756, 1e-9);
  // mpmath: 90% interval 3 ∓ t(0.95, 4)·√2.5/√5.
  Summary s90 = summarize(five, 0.90);
  EXPECT_NEAR(s90.ci_lo, 1.49255668093768, 1e-9);
  EXPECT_NEAR(s90.ci_hi, 4.50744331906232, 1e-9);
}

TEST(Stats, SummarizeZeroSpreadIntervalIsTheMean) {
  std::vector<double> same = {7, 7, 7};
  Summary s = summarize(same);
  EXPECT_DOUBLE_EQ(s.sd, 0);
  EXPECT_DOUBLE_EQ(s.ci_lo, 7);
  EXPECT_DOUBLE_EQ(s.ci_hi, 7);
}

TEST(Stats, TQuantile) {
  // df = 1 is Cauchy: tan(π (p − ½)) = 12.7062047361747 for p = 0.975.
  EXPECT_NEAR(t_quantile(0.975, 1), 12.7062047361747, 1e-9);
  // Printed t tables: 2.2281 (df 10), 2.7764 (df 4); digits from mpmath.
  EXPECT_NEAR(t_quantile(0.975, 10), 2.22813885198627, 1e-10);
  EXPECT_NEAR(t_quantile(0.975, 4), 2.77644510519779, 1e-10);
  // Fractional df, as Welch's: mpmath (R: qt(0.975, 4.5) = 2.658912).
  EXPECT_NEAR(t_quantile(0.975, 4.5), 2.65891234720440, 1e-10);
  // df = 2 closed form (2p − 1)/√(2p(1 − p)) = 1.88561808316413 at p = 0.9.
  EXPECT_NEAR(t_quantile(0.9, 2), 1.88561808316413, 1e-10);
  EXPECT_NEAR(t_quantile(0.05, 3), -2.35336343480182, 1e-10);  // table: −2.353
  EXPECT_TRUE(std::isnan(t_quantile(0, 5)));
  EXPECT_TRUE(std::isnan(t_quantile(1, 5)));
  EXPECT_TRUE(std::isnan(t_quantile(0.5, 0)));
  EXPECT_TRUE(std::isnan(t_quantile(kNaN, 5)));
}

TEST(Stats, WelchSleepData) {
  // R: t.test(extra ~ group, data = sleep) prints t = -1.8608, df = 17.776,
  // p-value = 0.07939, 95% CI -3.3654832 0.2054832 for group 1 − group 2;
  // b − a flips the signs. Further digits from mpmath.
  Welch w = welch_test(kSleep1, kSleep2);
  ASSERT_TRUE(w.valid);
  EXPECT_NEAR(w.diff, 1.58, 1e-12);
  EXPECT_NEAR(w.se, 0.849091017238762, 1e-12);
  EXPECT_NEAR(w.df, 17.7764735161785, 1e-9);
  EXPECT_NEAR(w.t, 1.86081346748685, 1e-9);
  EXPECT_NEAR(w.p, 0.0793941401873581, 1e-9);
  EXPECT_NEAR(w.ci_lo, -0.205483230711711, 1e-9);
  EXPECT_NEAR(w.ci_hi, 3.36548323071171, 1e-9);
}

TEST(Stats, WelchUnequalSizesFractionalDfAndLevel) {
  // mpmath: a = {12, 13, 11, 14}, b = {20, 30, 25}, 90% interval.
  std::vector<double> a = {12, 13, 11, 14}, b = {20, 30, 25};
  Welch w = welch_test(a, b, 0.90);
  ASSERT_TRUE(w.valid);
  EXPECT_NEAR(w.diff, 12.5, 1e-12);
  EXPECT_NEAR(w.df, 2.20133111480865, 1e-9);
  EXPECT_NEAR(w.t, 4.22577127364258, 1e-9);
  EXPECT_NEAR(w.p, 0.0436028392762622, 1e-9);
  EXPECT_NEAR(w.ci_lo, 4.37790650755538, 1e-8);
  EXPECT_NEAR(w.ci_hi, 20.6220934924446, 1e-8);
}

TEST(Stats, WelchOneSideConstant) {
  // sd(a) = 0: df = n_b − 1 = 2, t = 2/√(1/3) = √12, and for df = 2 the
  // two-sided p is 1 − t/√(2 + t²) = 1 − √(6/7) = 0.0741799002274485.
  std::vector<double> a = {5, 5, 5}, b = {6, 7, 8};
  Welch w = welch_test(a, b);
  ASSERT_TRUE(w.valid);
  EXPECT_NEAR(w.df, 2, 1e-12);
  EXPECT_NEAR(w.t, std::sqrt(12.0), 1e-12);
  EXPECT_NEAR(w.p, 1 - std::sqrt(6.0 / 7.0), 1e-10);
}

TEST(Stats, WelchBothConstant) {
  std::vector<double> a = {3, 3, 3}, b = {5, 5}, c = {3, 3};
  Welch up = welch_test(a, b);
  ASSERT_TRUE(up.valid);
  EXPECT_DOUBLE_EQ(up.diff, 2);
  EXPECT_DOUBLE_EQ(up.se, 0);
  EXPECT_TRUE(std::isnan(up.df));
  EXPECT_EQ(up.t, kInf);
  EXPECT_DOUBLE_EQ(up.p, 0);
  EXPECT_DOUBLE_EQ(up.ci_lo, 2);
  EXPECT_DOUBLE_EQ(up.ci_hi, 2);
  EXPECT_EQ(welch_test(b, a).t, -kInf);

  Welch same = welch_test(a, c);
  EXPECT_TRUE(same.valid);
  EXPECT_DOUBLE_EQ(same.t, 0);
  EXPECT_DOUBLE_EQ(same.p, 1);
  EXPECT_DOUBLE_EQ(same.ci_lo, 0);
  EXPECT_DOUBLE_EQ(same.ci_hi, 0);
}

TEST(Stats, WelchTooFewValues) {
  std::vector<double> one = {1}, three = {1, 2, 3};
  for (const Welch& w : {welch_test(one, three), welch_test(three, one), welch_test({}, three)}) {
    EXPECT_FALSE(w.valid);
    EXPECT_TRUE(std::isnan(w.diff));
    EXPECT_TRUE(std::isnan(w.se));
    EXPECT_TRUE(std::isnan(w.df));
    EXPECT_TRUE(std::isnan(w.t));
    EXPECT_TRUE(std::isnan(w.p));
    EXPECT_TRUE(std::isnan(w.ci_lo));
    EXPECT_TRUE(std::isnan(w.ci_hi));
  }
}

TEST(Stats, MannWhitneyExactSeparated) {
  // 3 v 3 fully separated: 1 of C(6,3) = 20 orderings per tail, p = 2/20.
  std::vector<double> a3 = {1, 2, 3}, b3 = {4, 5, 6};
  MannWhitney m = mann_whitney(a3, b3);
  EXPECT_TRUE(m.valid);
  EXPECT_TRUE(m.exact);
  EXPECT_DOUBLE_EQ(m.u, 9);
  EXPECT_NEAR(m.p, 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(mann_whitney(b3, a3).u, 0);  // U counts b > a
  EXPECT_NEAR(mann_whitney(b3, a3).p, 0.1, 1e-12);

  // 5 v 5: p = 2/C(10,5) = 2/252 (R: wilcox.test(1:5, 6:10) p = 0.007937).
  std::vector<double> a5 = {1, 2, 3, 4, 5}, b5 = {6, 7, 8, 9, 10};
  MannWhitney m5 = mann_whitney(a5, b5);
  EXPECT_DOUBLE_EQ(m5.u, 25);
  EXPECT_NEAR(m5.p, 2.0 / 252, 1e-12);
}

TEST(Stats, MannWhitneyExactInterleaved) {
  // Exhaustive enumeration of the C(9,4) and C(13,6) rank sets.
  std::vector<double> a = {1, 3, 5, 7}, b = {2, 4, 6, 8, 9};
  MannWhitney m = mann_whitney(a, b);
  EXPECT_TRUE(m.exact);
  EXPECT_DOUBLE_EQ(m.u, 14);
  EXPECT_NEAR(m.p, 52.0 / 126, 1e-12);  // 0.412698…

  std::vector<double> c = {1.5, 2.5, 4, 8, 9, 13}, d = {3, 5, 6, 7, 10, 11, 12};
  MannWhitney m2 = mann_whitney(c, d);
  EXPECT_DOUBLE_EQ(m2.u, 26);
  EXPECT_NEAR(m2.p, 0.533799533799534, 1e-12);
}

TEST(Stats, MannWhitneyExactLargestSize) {
  // 20 v 20 (C(40,20) = 137846528820 orderings): each b sits between two a
  // values so U = 10·6 + 10·7 = 130. p from the U(m, n) recurrence in
  // stats_reference.py (a different algorithm from stats.cpp's).
  std::vector<double> a, b;
  for (int i = 1; i <= 20; ++i) a.push_back(i);
  for (int i = 1; i <= 10; ++i) b.push_back(6 + i / 20.0);
  for (int i = 1; i <= 10; ++i) b.push_back(7 + i / 20.0);
  MannWhitney m = mann_whitney(a, b);
  EXPECT_TRUE(m.exact);
  EXPECT_DOUBLE_EQ(m.u, 130);
  EXPECT_NEAR(m.p, 0.0595638315617036, 1e-12);
}

TEST(Stats, MannWhitneyTiesUseNormalApproximation) {
  // R: wilcox.test(extra ~ group, data = sleep) prints W = 25.5,
  // p-value = 0.06933 (ties, so normal with continuity correction); W is U
  // of group 1, so U of group 2 is 100 − 25.5. Digits from mpmath.
  MannWhitney m = mann_whitney(kSleep1, kSleep2);
  EXPECT_TRUE(m.valid);
  EXPECT_FALSE(m.exact);
  EXPECT_DOUBLE_EQ(m.u, 74.5);
  EXPECT_NEAR(m.p, 0.0693275754336266, 1e-10);

  // Small sample with a three-way tie: σ² = 9/12·(7 − 24/30), mpmath.
  std::vector<double> a = {1, 2, 2}, b = {2, 3, 4};
  MannWhitney t = mann_whitney(a, b);
  EXPECT_FALSE(t.exact);
  EXPECT_DOUBLE_EQ(t.u, 8);
  EXPECT_NEAR(t.p, 0.164159728478515, 1e-10);

  // Every value equal: no evidence either way.
  std::vector<double> same = {1, 1, 1};
  MannWhitney eq = mann_whitney(same, same);
  EXPECT_DOUBLE_EQ(eq.u, 4.5);
  EXPECT_DOUBLE_EQ(eq.p, 1);
}

TEST(Stats, MannWhitneyLargeSideUsesNormalApproximation) {
  // 21 v 3 without ties is past the exact table: z = (63 − 31.5 − 0.5)/√(63·25/12).
  std::vector<double> a, b = {21.5, 22, 23};
  for (int i = 1; i <= 21; ++i) a.push_back(i);
  MannWhitney m = mann_whitney(a, b);
  EXPECT_FALSE(m.exact);
  EXPECT_DOUBLE_EQ(m.u, 63);
  EXPECT_NEAR(m.p, 0.00681191781226696, 1e-10);
}

TEST(Stats, MannWhitneyEmptySide) {
  std::vector<double> a = {1, 2};
  MannWhitney m = mann_whitney(a, {});
  EXPECT_FALSE(m.valid);
  EXPECT_TRUE(std::isnan(m.p));
  EXPECT_FALSE(mann_whitney({}, a).valid);
  std::vector<double> with_nan = {1, kNaN, 3};
  EXPECT_FALSE(mann_whitney(a, with_nan).valid);
  EXPECT_TRUE(std::isnan(mann_whitney(with_nan, a).p));
}

TEST(Stats, HedgesG) {
  // mpmath: sleep data, d = 1.58/pooled sd, J = 1 − 3/71.
  EXPECT_NEAR(hedges_g(kSleep1, kSleep2), 0.797018500447446, 1e-12);
  EXPECT_NEAR(hedges_g(kSleep2, kSleep1), -0.797018500447446, 1e-12);
  // mpmath: unequal sizes, J = 1 − 3/19.
  std::vector<double> a = {12, 13, 11, 14}, b = {20, 30, 25};
  EXPECT_NEAR(hedges_g(a, b), 3.17380362713435, 1e-12);

  std::vector<double> c3 = {3, 3, 3}, c5 = {5, 5}, one = {1};
  EXPECT_EQ(hedges_g(c3, c5), kInf);
  EXPECT_EQ(hedges_g(c5, c3), -kInf);
  EXPECT_DOUBLE_EQ(hedges_g(c3, c3), 0);
  EXPECT_TRUE(std::isnan(hedges_g(one, c3)));
  EXPECT_TRUE(std::isnan(hedges_g(c3, one)));
}

TEST(Stats, BenjaminiHochberg) {
  // R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "BH") = 0.02 0.04 0.04 0.02.
  std::vector<double> p = {0.01, 0.04, 0.03, 0.005};
  std::vector<double> q = benjamini_hochberg(p);
  ASSERT_EQ(q.size(), 4u);
  EXPECT_NEAR(q[0], 0.02, 1e-15);
  EXPECT_NEAR(q[1], 0.04, 1e-15);
  EXPECT_NEAR(q[2], 0.04, 1e-15);
  EXPECT_NEAR(q[3], 0.02, 1e-15);

  // By hand (R's p.adjust agrees): sorted 0.6, 0.7, 0.9 give 0.6·3/1,
  // 0.7·3/2, 0.9·3/3; the minimum from the top is 0.9 for all three.
  std::vector<double> big = {0.9, 0.6, 0.7};
  for (double v : benjamini_hochberg(big)) EXPECT_NEAR(v, 0.9, 1e-15);
  // Tied p: ranks 1 and 2 give 0.06 and 0.03, so both become 0.03.
  std::vector<double> tied = {0.02, 0.02, 0.5};
  q = benjamini_hochberg(tied);
  EXPECT_NEAR(q[0], 0.03, 1e-15);
  EXPECT_NEAR(q[1], 0.03, 1e-15);
  EXPECT_NEAR(q[2], 0.5, 1e-15);
  std::vector<double> ones = {1, 1};
  EXPECT_EQ(benjamini_hochberg(ones), ones);
  EXPECT_TRUE(benjamini_hochberg({}).empty());
}

TEST(Stats, BenjaminiHochbergNaNPassthrough) {
  // NaN stays NaN and m = 2: q = {0.02·2/2, 0.01·2/1} → {0.02, 0.02}.
  std::vector<double> p = {kNaN, 0.02, 0.01, kNaN};
  std::vector<double> q = benjamini_hochberg(p);
  ASSERT_EQ(q.size(), 4u);
  EXPECT_TRUE(std::isnan(q[0]));
  EXPECT_NEAR(q[1], 0.02, 1e-15);
  EXPECT_NEAR(q[2], 0.02, 1e-15);
  EXPECT_TRUE(std::isnan(q[3]));
}

}  // namespace
}  // namespace fscost::stats
