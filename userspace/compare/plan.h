// The order of a compare's runs. A and B alternate so that machine drift
// (thermal state, page cache, background work) hits both sides alike; the
// order actually used is recorded in summary.json.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "compare/options.h"  // RunOrder

namespace fscost {

struct PlannedRun {
  std::size_t index = 0;  // position in the whole compare, from 0
  int threads = 0;        // 0 = the workload has no thread dimension
  int config = 0;         // 0 = A, 1 = B
  int rep = 0;            // the config's run number at this thread count, from 1
};

// Thread counts ascending; at each, `runs` runs of A and of B in blocks of
// one A and one B:
//   abab   — AB AB AB …
//   abba   — AB BA AB BA … (counterbalanced: a linear drift cancels over
//            every four runs, and neither side always runs first)
//   random — each block AB or BA by a coin flip from `seed` (mt19937_64
//            bits, so the same seed gives the same order everywhere)
std::vector<PlannedRun> make_plan(const std::vector<int>& threads, int runs, RunOrder order,
                                  std::uint64_t seed);

// "AB BA AB" for the runs of one thread count, in plan order.
std::string order_string(const std::vector<PlannedRun>& plan, int threads);

// "runs/t4/b" (or "runs/b" without a thread dimension), relative to -o DIR.
std::string config_dir(int threads, int config);

// "run-02" — the stem of a run's files in its config_dir.
std::string run_stem(int rep);

}  // namespace fscost
