// Small self-contained SVG line charts for the compare report: a few series
// over thread counts, with confidence bars and marked points. Written by
// hand because a chart library would mean JavaScript in an offline page.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fscost {

struct ChartPoint {
  double x = 0, y = 0;
  std::optional<double> lo, hi;  // interval drawn as a bar (e.g. 95% CI)
};

struct ChartSeries {
  std::string name;
  std::string color;               // CSS colour
  std::vector<ChartPoint> points;  // x ascending
  std::optional<double> mark_x;    // ringed point with a dashed drop line
  std::string mark_label;          // legend text for the mark
};

struct Chart {
  std::string title;
  std::string x_label, y_label;
  bool log2_x = true;  // thread counts: 1, 2, 4, … 64 evenly spaced
  std::vector<ChartSeries> series;
  int width = 520, height = 280;
};

// "<svg …>…</svg>"; every text escaped. NaN points are skipped. The y
// scale follows the points (not their intervals, which are clipped).
std::string line_chart_svg(const Chart& c);

// Up to ~6 round tick values spanning [0, max].
std::vector<double> nice_ticks(double max);

// "12.3k", "4.5M", "950": short axis labels.
std::string short_number(double v);

}  // namespace fscost
