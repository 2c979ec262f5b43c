// The mean per-operation stacks of a configuration's runs: what the diff's
// call graph and differential flame graphs are built from.
#include <map>
#include <set>

#include "diff.h"
#include "diff_metrics.h"  // samples_to_ns

namespace fscost {

FlameInput mean_flame_input(const RunSet& runs, const std::string& view,
                            const std::optional<std::string>& op) {
  std::map<std::vector<std::string>, double> sum;  // sorted: a deterministic order
  std::set<std::string> skipped;
  for (const auto& p : runs.runs) {
    FlameInput in = flame_input(p, view, op, true);
    // Samples per op become ns per op with this run's own frequency.
    double scale = view == "oncpu" ? samples_to_ns(1, p.meta.freq_hz) : 1;
    for (auto& [frames, value] : in.stacks) sum[std::move(frames)] += value * scale;
    skipped.insert(in.skipped.begin(), in.skipped.end());
  }
  FlameInput out;
  double n = static_cast<double>(runs.runs.size());
  for (auto& [frames, value] : sum)
    if (value > 0) out.stacks.emplace_back(frames, value / n);
  out.skipped.assign(skipped.begin(), skipped.end());
  return out;
}

}  // namespace fscost
