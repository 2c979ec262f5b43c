// The mean per-operation stacks of a configuration's runs
// (mean_flame_input, diff.h): each run's stacks as views/stacks.h makes
// them, divided by the run's operation count, summed over the runs and
// divided by their number; memoised in the RunSet, so the diff, its
// explanations and its HTML report derive each (side, view) once.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "diff/diff.h"

namespace fscost {

// RunSet::memo: each view's mean stacks of every operation, computed in one
// pass over the runs on first use. Valid while the runs it was made from
// are unchanged (a fingerprint of their sizes and buffers decides).
class MeanStackMemo {
 public:
  explicit MeanStackMemo(std::vector<const void*> fingerprint)
      : fingerprint_(std::move(fingerprint)) {}
  const std::vector<const void*>& fingerprint() const { return fingerprint_; }

  // The mean stacks of `op` in `view` (an empty FlameInput if the op has
  // none). Safe to call from several threads at once.
  const FlameInput& get(const RunSet& runs, View view, const std::string& op);

 private:
  std::vector<const void*> fingerprint_;
  std::array<std::once_flag, 3> once_;
  std::array<std::map<std::string, FlameInput>, 3> by_view_;  // by operation name
};

// The memo of `runs`, made (or remade, if the runs changed) here. Not
// thread-safe: call it before handing the memo to worker threads.
std::shared_ptr<MeanStackMemo> mean_stack_memo(const RunSet& runs);

// mean_stack_memo(runs)->get(runs, view, op): the memoised mean stacks.
// Thread-safe once the memo is made (diff_runs makes it first).
const FlameInput& mean_stacks(const RunSet& runs, View view, const std::string& op);

// With per_op, each operation's mean stacks of `view` (root = that
// operation, by operation name); without, one FlameInput of every root
// under the name "". Not memoised.
std::map<std::string, FlameInput> build_mean_stacks(const RunSet& runs, View view, bool per_op);

}  // namespace fscost
