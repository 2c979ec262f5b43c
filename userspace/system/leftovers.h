// Finding, and removing, what a killed fscost left behind (a SIGKILL runs
// no destructor): mounts, loop devices, RAM-disk images, mount directories.
// Only what a dead process's state file names (run_state.h) is considered,
// and each piece is re-identified just before it is acted on: the mount by
// its mount id through a descriptor opened without following symlinks, the
// loop device by its device number and the inode it is bound to, the image
// by its inode. A name alone is never enough.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/file_io.h"  // Status
#include "system/run_state.h"

namespace fscost {

struct Leftover {
  enum Kind { Mount, LoopDevice, Image, Directory };
  Kind kind;
  std::string path;  // the mountpoint, /dev/loopN, the image, the directory
  std::string line;  // printable, with the command that removes it by hand
  // What it must still be: mount id; loop rdev and backing dev/inode; image dev/inode.
  std::uint64_t id = 0, dev = 0, ino = 0;
};

// What dead fscost processes left, from their state files under
// state_base_dir(), in the order they must be removed (mounts, loop
// devices, images, directories). A live process's are skipped (pid and
// start time).
std::vector<Leftover> find_leftovers();

// Removes one (unmount and rmdir, detach, unlink, rmdir), after checking it
// is still what the state file named; one that is already gone is no error.
Status remove_leftover(const Leftover& l);

}  // namespace fscost
