// Intervals floored by a calibration (calibration.h): a compare's op-level
// time figures take as their standard error at least this host's
// between-compare noise, scaled to the compare's run count.
#include <cmath>
#include <limits>

#include "diff/calibration.h"

namespace fscost {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

double Comparison::own_se(double level) const {
  if (!tested()) return kNaN;
  if (test == StatTest::Welch) return welch.se;
  // The count test reports its Wald interval; its half-width over the
  // quantile it was drawn with is its standard error.
  double t = stats::t_quantile((1 + level) / 2, counts.df);
  return (counts.ci_hi - counts.ci_lo) / 2 / t;
}

double floor_se(const CalibratedFigure& f, std::size_t calibrated_runs, double mean_a,
                std::size_t n) {
  if (n == 0 || calibrated_runs == 0 || !std::isfinite(mean_a) || !std::isfinite(f.rel_sd))
    return 0;
  // The noise of a difference of two n-run means shrinks as 1/√n if the
  // blocks' noise does (its run-to-run part does; the host's slow drift
  // may not, which makes this floor a lower bound).
  return f.rel_sd * std::fabs(mean_a) *
         std::sqrt(static_cast<double>(calibrated_runs) / static_cast<double>(n));
}

bool apply_floor(Comparison& c, const CalibratedFigure& f, const Calibration& cal,
                 double level) {
  c.floor = {};
  if (!c.tested()) return false;
  double se = floor_se(f, cal.runs, c.sa.mean, std::min(c.sa.n, c.sb.n));
  double own = c.own_se(level);
  if (!(se > 0) || (std::isfinite(own) && se <= own)) return false;
  c.floor = stats::floored_test(c.delta(), se, static_cast<double>(cal.compares), level);
  return c.floor.valid;
}

void floor_intervals(Diff& d) {
  const Calibration* cal = d.config.calibration.get();
  if (!cal) return;
  for (auto& op : d.ops) {
    if (!op.tested) continue;
    for (std::string_view name : kCalibratedFigures)
      if (const CalibratedFigure* f = cal->find(op.op, name))
        apply_floor(*calibrated_figure(op, name), *f, *cal, d.config.level);
  }
}

double floor_rel_half(const Comparison& c) {
  if (!c.floored() || !(c.sa.mean != 0)) return kNaN;
  return (c.floor.ci_hi - c.floor.ci_lo) / 2 / std::fabs(c.sa.mean);
}

}  // namespace fscost
