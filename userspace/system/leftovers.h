// Finding, and removing, what a killed fscost left behind (a SIGKILL runs
// no destructor): mounts, loop devices, RAM-disk images, mount directories.
#pragma once

#include <string>
#include <vector>

#include "model/file_io.h"  // Status

namespace fscost {

struct Leftover {
  enum Kind { Mount, LoopDevice, Image, Directory };
  Kind kind;
  std::string path;  // the mountpoint, /dev/loopN, the image, the directory
  std::string line;  // printable, with the command that removes it by hand
};

// What dead fscost processes left: mounts on and directories named
// /tmp/fscost-mnt-<dead pid>-*, images /dev/shm/fscost-<dead pid>-*.img and
// loop devices over them, in the order they must be removed. A live
// process's are skipped.
std::vector<Leftover> find_leftovers();

// Removes one (unmount and rmdir, detach, unlink, rmdir).
Status remove_leftover(const Leftover& l);

}  // namespace fscost
