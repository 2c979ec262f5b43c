// fscost features: what the running kernel allows, from the feature probe.
#include <fmt/format.h>

#include "cli/commands.h"
#include "collector/kernel_features.h"

namespace fscost {

int cmd_features() {
  fmt::print("{}", describe(Features::get()));
  return 0;
}

}  // namespace fscost
