// What this process made (RAM-disk images, loop devices, mountpoints,
// mounts), written down where only root can write: a state file
// /run/fscost/<pid>-XXXXXX/state (0600, in 0700 directories), rewritten
// atomically at every change. A SIGKILL runs no destructor; `fscost
// cleanup` then removes exactly what a dead process's state file names,
// each piece re-identified first (leftovers.h) — never anything found by
// its name alone.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/file_io.h"  // Status
#include "model/result.h"

namespace fscost {

struct MadeImage {
  std::string path;  // /dev/shm/fscost-<pid>-<random>.img
  std::uint64_t dev = 0, ino = 0;
};
struct MadeLoop {
  std::string path;  // /dev/loopN
  std::uint64_t rdev = 0;
  std::uint64_t backing_dev = 0, backing_ino = 0;  // the image it was bound to
};
// Mountpoints are <state base>/m-XXXXXX (mkdtemp): see make_mountpoint.
inline constexpr std::string_view kMountpointPrefix = "m-";

struct MadeMount {
  std::string dir;            // <state base>/m-XXXXXX
  std::uint64_t mnt_id = 0;   // statx STATX_MNT_ID; 0 while only the directory exists
};

struct RunStateData {
  pid_t pid = 0;
  std::uint64_t start_time = 0;  // /proc/<pid>/stat field 22: tells a reused pid
  std::vector<MadeImage> images;
  std::vector<MadeLoop> loops;
  std::vector<MadeMount> mounts;
  bool empty() const { return images.empty() && loops.empty() && mounts.empty(); }
};

// Where state directories live: /run/fscost as root, else
// /tmp/fscost-state-<uid>; made 0700, refused if someone else owns it.
std::string state_base_dir();

// This process's start time in clock ticks since boot, as /proc/<pid>/stat
// gives it; 0 if the process does not exist.
std::uint64_t process_start_time(pid_t pid);

// This process's record. Every call rewrites the state file; an Error means
// it could not, and the caller must not go on making things.
namespace run_state {
// A new empty directory for a mount, <state base>/m-XXXXXX (20 characters
// as root): the base is 0700, so the filesystem mounted on it is reachable
// by root only.
Result<std::string> make_mountpoint();
Status add_image(const MadeImage& m);
Status add_loop(const MadeLoop& m);
Status set_mount(const std::string& dir, std::uint64_t mnt_id);
// Forgotten once released; the last one removes the state directory.
void forget_image(const std::string& path);
void forget_loop(const std::string& path);
void forget_mount(const std::string& dir);  // after rmdir
}  // namespace run_state

// The JSON of a state file, and back (Error on anything malformed).
std::string state_json(const RunStateData& s);
Result<RunStateData> parse_state_json(const std::string& text);

}  // namespace fscost
