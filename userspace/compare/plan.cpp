#include "compare/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <random>

namespace fscost {

namespace {

// One block's order of `n` configurations. Two: a coin flip (the top bit),
// as before there were more; more: a Fisher-Yates shuffle by the same bits.
std::vector<int> random_block(int n, std::mt19937_64& rng) {
  std::vector<int> block(static_cast<std::size_t>(n));
  for (int i = 0; i < n; i++) block[static_cast<std::size_t>(i)] = i;
  if (n == 2) {
    if ((rng() >> 63) != 0) std::swap(block[0], block[1]);
    return block;
  }
  for (int i = n - 1; i > 0; i--)
    std::swap(block[static_cast<std::size_t>(i)],
              block[static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(i + 1))]);
  return block;
}

}  // namespace

std::vector<PlannedRun> make_plan(const std::vector<int>& threads, int runs, RunOrder order,
                                  std::uint64_t seed, int configs) {
  std::vector<PlannedRun> plan;
  std::mt19937_64 rng(seed);
  for (int t : threads) {
    for (int rep = 1; rep <= runs; rep++) {
      std::vector<int> block;
      if (order == RunOrder::Random) {
        block = random_block(configs, rng);
      } else {
        for (int k = 0; k < configs; k++) block.push_back(k);
        if (order == RunOrder::Abba && rep % 2 == 0) std::reverse(block.begin(), block.end());
      }
      for (int config : block) plan.push_back(PlannedRun{plan.size(), t, config, rep});
    }
  }
  return plan;
}

char config_letter(int config) { return static_cast<char>('A' + config); }

std::string order_string(const std::vector<PlannedRun>& plan, int threads) {
  std::string s;
  int last_rep = -1;
  for (const PlannedRun& r : plan) {
    if (r.threads != threads) continue;
    if (last_rep != -1 && r.rep != last_rep) s += ' ';
    last_rep = r.rep;
    s += config_letter(r.config);
  }
  return s;
}

std::string config_dir(int threads, int config) {
  char side = static_cast<char>('a' + config);
  return threads > 0 ? fmt::format("runs/t{}/{}", threads, side) : fmt::format("runs/{}", side);
}

std::string run_stem(int rep) { return fmt::format("run-{:02}", rep); }

}  // namespace fscost
