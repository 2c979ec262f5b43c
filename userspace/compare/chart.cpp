#include "compare/chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "model/escape.h"  // append_escaped

namespace fscost {

std::vector<double> nice_ticks(double max) {
  if (!(max > 0) || !std::isfinite(max)) return {0, 1};
  double raw = max / 5;
  double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  for (double v = 0; v <= max + step * 0.5; v += step) ticks.push_back(v);
  return ticks;
}

std::string short_number(double v) {
  double a = std::fabs(v);
  if (a >= 1e9) return fmt::format("{:.3g}G", v / 1e9);
  if (a >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:.3g}k", v / 1e3);
  if (a >= 100) return fmt::format("{:.0f}", v);  // not "2.5e+03"
  return fmt::format("{:.3g}", v);
}

namespace {


struct Frame {
  double left = 64, right = 16, top = 28, bottom = 44;
  double w = 0, h = 0;
  double x_min = 1, x_max = 1, y_max = 1;
  bool log2 = true;

  double px(double x) const {
    double a = log2 ? std::log2(x) : x, lo = log2 ? std::log2(x_min) : x_min;
    double hi = log2 ? std::log2(x_max) : x_max;
    double f = hi > lo ? (a - lo) / (hi - lo) : 0.5;
    return left + f * (w - left - right);
  }
  double py(double y) const { return h - bottom - y / y_max * (h - top - bottom); }
};

Frame make_frame(const Chart& c, std::set<double>& xs) {
  Frame f;
  f.w = c.width, f.h = c.height;
  double y_max = 0;
  for (const auto& s : c.series)
    for (const auto& p : s.points) {
      if (!std::isfinite(p.y)) continue;
      xs.insert(p.x);
      // The means set the scale: with 2–3 runs a 95% interval can be ten
      // times the mean and would flatten every line. Bars are clipped.
      y_max = std::max(y_max, p.y);
    }
  f.log2 = c.log2_x && !xs.empty() && *xs.begin() > 0;
  if (!xs.empty()) f.x_min = *xs.begin(), f.x_max = *xs.rbegin();
  f.y_max = nice_ticks(y_max * 1.15).back();
  return f;
}

void axes(std::string& svg, const Chart& c, const Frame& f, const std::set<double>& xs) {
  for (double t : nice_ticks(f.y_max * 0.999)) {
    double y = f.py(t);
    svg += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#ddd"/>)",
                       f.left, y, f.w - f.right, y);
    svg += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="end">{}</text>)", f.left - 6,
                       y + 4, short_number(t));
  }
  for (double x : xs)
    svg += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="middle">{}</text>)", f.px(x),
                       f.h - f.bottom + 16, short_number(x));
  svg += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="middle">{}</text>)",
                     (f.left + f.w - f.right) / 2, f.h - 8, escaped(c.x_label));
  svg += fmt::format(
      R"svg(<text x="14" y="{:.1f}" text-anchor="middle" transform="rotate(-90 14 {:.1f})">{}</text>)svg",
      (f.top + f.h - f.bottom) / 2, (f.top + f.h - f.bottom) / 2, escaped(c.y_label));
  svg +=
      fmt::format(R"(<text x="{:.1f}" y="16" font-weight="bold">{}</text>)", f.left, escaped(c.title));
}

void series(std::string& svg, const ChartSeries& s, const Frame& f) {
  std::string path;
  for (const auto& p : s.points) {
    if (!std::isfinite(p.y)) continue;
    path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", f.px(p.x), f.py(p.y));
    if (p.lo && p.hi && std::isfinite(*p.lo) && std::isfinite(*p.hi))
      svg += fmt::format(
          R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="{3}" opacity="0.5"/>)",
          f.px(p.x), f.py(std::clamp(*p.lo, 0.0, f.y_max)), f.py(std::clamp(*p.hi, 0.0, f.y_max)),
          escaped(s.color));
    svg += fmt::format(
        R"(<circle cx="{:.1f}" cy="{:.1f}" r="3" fill="{}"><title>{}: {} at {}</title></circle>)",
        f.px(p.x), f.py(p.y), escaped(s.color), escaped(s.name), short_number(p.y), short_number(p.x));
    if (s.mark_x && *s.mark_x == p.x) {
      svg += fmt::format(
          R"(<circle cx="{:.1f}" cy="{:.1f}" r="7" fill="none" stroke="{}" stroke-width="2"/>)",
          f.px(p.x), f.py(p.y), escaped(s.color));
      svg += fmt::format(
          R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="{3}" stroke-dasharray="4 3"/>)",
          f.px(p.x), f.py(p.y), f.h - f.bottom, escaped(s.color));
    }
  }
  if (!path.empty())
    svg += fmt::format(R"(<path d="{}" fill="none" stroke="{}" stroke-width="2"/>)", path,
                       escaped(s.color));
}

void legend(std::string& svg, const Chart& c, const Frame& f) {
  double x = f.w - f.right - 8, y = f.top + 6;
  for (const auto& s : c.series) {
    std::string text = s.name + (s.mark_x ? " — " + s.mark_label : "");
    svg += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="end" fill="{}">{}</text>)", x,
                       y + 4, escaped(s.color), escaped(text));
    y += 16;
  }
}

}  // namespace

std::string line_chart_svg(const Chart& c) {
  std::set<double> xs;
  auto f = make_frame(c, xs);
  std::string svg = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" font-family="sans-serif" font-size="11" role="img"><title>{2}</title>)",
      c.width, c.height, escaped(c.title));
  axes(svg, c, f, xs);
  for (const auto& s : c.series) series(svg, s, f);
  legend(svg, c, f);
  return svg + "</svg>";
}

}  // namespace fscost
