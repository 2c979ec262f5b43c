// The lines on a calibration (DiffConfig::calibration): that
// intervals were floored by this host's between-compare noise, by which
// measurement, and which figures it widened.
#include <fmt/format.h>

#include <cmath>

#include "diff/calibration.h"
#include "report/diff/text_parts.h"

namespace fscost::diff_text {

namespace {

// "create on-CPU ±4.1%": each floored figure of the tested ops, in the
// diff's order; at most `max`, then "and N more".
std::string floored_items(const Diff& d, std::size_t max) {
  std::string s;
  std::size_t n = 0;
  for (const auto& op : d.ops) {
    if (!op.tested) continue;
    for (std::string_view name : kCalibratedFigures) {
      const Comparison& c = *calibrated_figure(op, name);
      if (!c.floored()) continue;
      if (n++ < max)
        s += fmt::format("{}{} {} ±{:.1f}%", s.empty() ? "" : ", ", op.op, figure_text(name),
                         100 * floor_rel_half(c));
    }
  }
  if (n > max) s += fmt::format(", and {} more", n - max);
  return s.empty() ? "no tested interval was narrower than it" : s;
}

}  // namespace

std::string calibration_line(const Diff& d) {
  const Calibration* cal = d.config.calibration.get();
  if (!cal) return {};
  return fmt::format("intervals floored by this host's between-compare noise (fscost calibrate "
                     "{}, {} compares of {}+{} runs): {}.",
                     cal->date.substr(0, 10), cal->compares, cal->runs, cal->runs,
                     floored_items(d, 3));
}

std::string calibration_brief(const Diff& d) {
  if (!d.config.calibration) return {};
  return fmt::format("intervals floored by this host's between-compare noise (calibrate): {}.",
                     floored_items(d, 1));
}

}  // namespace fscost::diff_text
