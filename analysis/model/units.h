// Number formatting shared by the text renderers.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fscost {

// Counter sums saturate at 2^64 - 1 instead of wrapping: a corrupt or
// hostile profile's huge counters must not sum to a small, plausible value.
// A saturated sum is kSaturated; reports mark it "overflow".
inline constexpr std::uint64_t kSaturated = ~std::uint64_t{0};
inline void add_sat(std::uint64_t& into, std::uint64_t v) {
  into = into > kSaturated - v ? kSaturated : into + v;
}

inline std::string seconds(std::uint64_t ns) { return fmt::format("{:.3f} s", ns / 1e9); }

inline std::string millis(std::uint64_t ns) { return fmt::format("{:.3f} ms", ns / 1e6); }

// "1 lock", "2 locks".
inline std::string plural(std::uint64_t n, std::string_view noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

// A duration in ns as "850 ns", "1.9 µs", "3.40 ms", "236.0 ms", "1.20 s"; signed
// with `sign`; "-" when not finite. Every duration the reports print in
// words goes through here (the tables' aligned columns have their own,
// report/diff/format.h).
inline std::string ns_text(double ns, bool sign = false) {
  double a = std::fabs(ns);
  std::string s = !std::isfinite(ns) ? "-"
                  : a < 1e3          ? fmt::format("{:.0f} ns", a)
                  : a < 1e6          ? fmt::format("{:.1f} µs", a / 1e3)
                  : a < 1e7          ? fmt::format("{:.2f} ms", a / 1e6)
                  : a < 1e9          ? fmt::format("{:.1f} ms", a / 1e6)
                                     : fmt::format("{:.2f} s", a / 1e9);
  if (!std::isfinite(ns)) return s;
  if (ns < 0) return "-" + s;
  return sign ? "+" + s : s;
}

inline std::string percent(double ratio) { return fmt::format("{:.1f}%", ratio * 100); }

// "-" where a figure is undefined (no operations, no duration, no rusage).
inline std::string fixed1(std::optional<double> v) {
  return v ? fmt::format("{:.1f}", *v) : std::string("-");
}

inline std::string fixed_or_dash(std::optional<double> v, int digits) {
  return v ? fmt::format("{:.{}f}", *v, digits) : std::string("-");
}

// Microseconds per operation, one decimal; "-" if there are no operations.
inline std::string us_per_op(std::uint64_t total_ns, std::uint64_t count) {
  if (count == 0) return "-";
  return fmt::format("{:.1f}", static_cast<double>(total_ns) / static_cast<double>(count) / 1000);
}

inline std::string percent_or_dash(std::optional<double> ratio) {
  return ratio ? percent(*ratio) : std::string("-");
}

}  // namespace fscost
