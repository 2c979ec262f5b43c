#include "compare/plan.h"

#include <fmt/format.h>

#include <random>

namespace fscost {

std::vector<PlannedRun> make_plan(const std::vector<int>& threads, int runs, RunOrder order,
                                  std::uint64_t seed) {
  std::vector<PlannedRun> plan;
  std::mt19937_64 rng(seed);
  for (int t : threads) {
    for (int rep = 1; rep <= runs; rep++) {
      bool b_first = order == RunOrder::Abba     ? rep % 2 == 0
                     : order == RunOrder::Random ? (rng() >> 63) != 0
                                                 : false;
      for (int k = 0; k < 2; k++) {
        int config = b_first ? 1 - k : k;
        plan.push_back(PlannedRun{plan.size(), t, config, rep});
      }
    }
  }
  return plan;
}

std::string order_string(const std::vector<PlannedRun>& plan, int threads) {
  std::string s;
  int in_block = 0;
  for (const PlannedRun& r : plan) {
    if (r.threads != threads) continue;
    if (in_block == 2) s += ' ', in_block = 0;
    s += r.config == 0 ? 'A' : 'B';
    in_block++;
  }
  return s;
}

std::string config_dir(int threads, int config) {
  const char* side = config == 0 ? "a" : "b";
  return threads > 0 ? fmt::format("runs/t{}/{}", threads, side) : fmt::format("runs/{}", side);
}

std::string run_stem(int rep) { return fmt::format("run-{:02}", rep); }

}  // namespace fscost
