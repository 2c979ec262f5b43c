// fscost cleanup: removes what a killed fscost left behind (a SIGKILL runs
// no destructor): what its state file names (system/run_state.h), each
// piece re-identified before it is removed (system/leftovers.h).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "cli/commands.h"
#include "model/escape.h"
#include "system/leftovers.h"

namespace fscost {

namespace {

int cleanup(bool dry_run) {
  auto found = find_leftovers();
  if (found.empty()) {
    fmt::print("fscost cleanup: nothing left behind by a dead fscost\n");
    return 0;
  }
  int failed = 0;
  for (const auto& l : found) {
    if (dry_run) {
      fmt::print("would remove {}\n", terminal_safe(l.line));
      continue;
    }
    if (auto st = remove_leftover(l); !st) {
      fmt::print(stderr, "fscost cleanup: {}\n", terminal_safe(st.error().message));
      ++failed;
    } else {
      fmt::print("removed {}\n", terminal_safe(l.line));
    }
  }
  return failed ? 1 : 0;
}

}  // namespace

void add_cleanup(CLI::App& app, std::function<int()>& run) {
  auto dry = std::make_shared<bool>(false);
  auto* sub = app.add_subcommand(
      "cleanup", "Remove the mounts, loop devices and images a killed fscost left behind");
  sub->add_flag("-n,--dry-run", *dry, "Only list what would be removed");
  sub->callback([dry, &run] { run = [dry] { return cleanup(*dry); }; });
}

}  // namespace fscost
