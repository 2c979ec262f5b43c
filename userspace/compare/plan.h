// The order of a compare's runs. The configurations (A and B, or A, B, C…
// with --config) alternate so that machine drift (thermal state, page
// cache, background work) hits them alike; the order actually used is
// recorded in summary.json.
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
  int config = 0;         // 0 = A, 1 = B, 2 = C, … (CompareOptions::configs)
  int rep = 0;            // the config's run number at this thread count, from 1
};

// Thread counts ascending; at each, `runs` runs of every configuration, in
// blocks of one run each:
//   abab   — AB AB AB … (ABC ABC …)
//   abba   — AB BA AB BA … (ABC CBA ABC …: counterbalanced, a linear drift
//            cancels over every two blocks, and no configuration always
//            runs first or last)
//   random — each block AB or BA by a coin flip from `seed` (mt19937_64
//            bits, so the same seed gives the same order everywhere); with
//            more configurations a shuffle by the same bits
std::vector<PlannedRun> make_plan(const std::vector<int>& threads, int runs, RunOrder order,
                                  std::uint64_t seed, int configs = 2);

// 'A' for configuration 0, 'B' for 1, …
char config_letter(int config);

// "AB BA AB" (or "ABC CBA") for the runs of one thread count, in plan order.
std::string order_string(const std::vector<PlannedRun>& plan, int threads);

// "runs/t4/b" (or "runs/b" without a thread dimension; "c" for the third
// configuration), relative to -o DIR.
std::string config_dir(int threads, int config);

// "run-02" — the stem of a run's files in its config_dir.
std::string run_stem(int rep);

}  // namespace fscost
