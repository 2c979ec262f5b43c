#include "compare/warmup.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace fscost {

bool first_run_was_warmup(double first, std::span<const double> later) {
  if (later.size() < 2) return false;
  std::vector<double> v(later.begin(), later.end());
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  const double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  const double margin = std::max(v.back() - v.front(), 0.1 * median);
  return first > v.back() + margin;
}

std::string late_warmup_reason(double first, std::span<const double> later) {
  auto [lo, hi] = std::minmax_element(later.begin(), later.end());
  if (lo == later.end()) return fmt::format("{:.2f} s", first);
  return fmt::format("{:.2f} s against {:.2f}–{:.2f} s of its later runs", first, *lo, *hi);
}

std::optional<WorkloadSpec> short_warmup_workload(const WorkloadSpec& w) {
  if (!w.builtin()) return std::nullopt;
  WorkloadSpec s = w;
  s.files = std::min(w.files, std::max(w.files / 10, kShortWarmupMinFiles));
  return s;
}

}  // namespace fscost
