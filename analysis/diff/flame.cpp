// The mean per-operation stacks of a configuration's runs: what the diff's
// call graph and differential flame graphs are built from (mean_stacks.h).
#include "diff/diff.h"
#include "diff/mean_stacks.h"

namespace fscost {

FlameInput mean_flame_input(const RunSet& runs, View view,
                            const std::optional<std::string>& op) {
  auto all = build_mean_stacks(runs, view, op.has_value());
  if (op) {
    auto it = all.find(*op);
    return it == all.end() ? FlameInput{} : std::move(it->second);
  }
  return all.empty() ? FlameInput{} : std::move(all.begin()->second);
}

}  // namespace fscost
