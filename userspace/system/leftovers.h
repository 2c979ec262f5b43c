// Finding what a crashed fscost left behind, so the user can clean it up.
#pragma once

#include <string>
#include <vector>

namespace fscost {

// What a crashed fscost left behind: images of dead pids, loop devices backed
// by them, mounts and directories /tmp/fscost-mnt-<dead pid>-*. Each entry is
// a printable line that says how to remove it. Live processes' are skipped.
std::vector<std::string> find_leftovers();

}  // namespace fscost
