// Number formatting shared by the text renderers.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>

namespace fscost {

inline std::string seconds(std::uint64_t ns) { return fmt::format("{:.3f} s", ns / 1e9); }

inline std::string percent(double ratio) { return fmt::format("{:.1f}%", ratio * 100); }

// "-" where a figure is undefined (no operations, no duration, no rusage).
inline std::string fixed1(std::optional<double> v) {
  return v ? fmt::format("{:.1f}", *v) : std::string("-");
}

inline std::string percent_or_dash(std::optional<double> ratio) {
  return ratio ? percent(*ratio) : std::string("-");
}

}  // namespace fscost
