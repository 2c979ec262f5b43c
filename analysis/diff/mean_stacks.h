// The mean per-operation stacks of a configuration's runs: each run's
// stacks as views/stacks.h makes them, divided by the run's operation
// count, summed over the runs and divided by their number. diff_runs makes
// every view's once per side and keeps them in the Diff, so the explanation
// and the HTML report read the same stacks.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "diff/diff.h"

namespace fscost {

// Every view's mean stacks of one configuration, by operation.
class MeanStacks {
 public:
  // Computes `view` from `runs`. Views are independent: different views
  // may be built from different threads at once.
  void build(const RunSet& runs, View view);
  // The mean stacks of `op` in `view`; an empty FlameInput if the op has
  // none or the view was not built.
  const FlameInput& get(View view, const std::string& op) const;
  // The kernel threads' mean stacks of `view` per run (not per op): roots
  // "[kthread:<bucket>]".
  const FlameInput& background(View view) const {
    return background_[static_cast<std::size_t>(view)];
  }

 private:
  std::array<std::map<std::string, FlameInput>, 3> by_view_;  // by operation name
  std::array<FlameInput, 3> background_;
};

// Every view of `runs`.
MeanStacks mean_stacks_of(const RunSet& runs);

// One op's mean stacks of `view` over a side's runs, each run's part kept
// apart: the mean without any one run (the jackknife's) is then the sum
// MeanStacks makes over the other runs, in the same order, to the bit.
class RunStacks {
 public:
  RunStacks(const RunSet& runs, View view, const std::string& op);
  ~RunStacks();
  RunStacks(RunStacks&&) noexcept;
  RunStacks& operator=(RunStacks&&) noexcept;
  // The op's mean stacks without run `skip` (an index in `runs`).
  FlameInput mean_without(std::size_t skip) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string op_;
};

// With per_op, each operation's mean stacks of `view` (root = that
// operation, by operation name); without, one FlameInput of every root
// under the name "".
std::map<std::string, FlameInput> build_mean_stacks(const RunSet& runs, View view, bool per_op);

// The kernel threads' stacks of `view`, each run's values as they are (per
// run, ns), summed and divided by the number of runs.
FlameInput build_background_stacks(const RunSet& runs, View view);

}  // namespace fscost
