#include "system/leftovers.h"

#include <sys/types.h>

#include <algorithm>

#include "system/sys_util.h"

namespace fscost {

std::vector<std::string> find_leftovers() {
  std::vector<std::string> found;
  const std::string shm_prefix = std::string(kShmDir) + "/" + kImagePrefix;
  auto stale_image = [&](const std::string& path) {
    pid_t pid = pid_after(path, shm_prefix);
    return pid != 0 && !pid_alive(pid);
  };
  std::vector<std::string> stale_mounts;
  for (const MountEntry& m : read_mountinfo()) {
    pid_t pid = pid_after(m.mountpoint, kMountPrefix);
    if (pid == 0 || pid_alive(pid)) continue;
    stale_mounts.push_back(m.mountpoint);
    found.push_back("mount " + m.mountpoint + " of " + m.source + " (umount " + m.mountpoint + ")");
  }
  for (const std::string& name : list_dir("/sys/block")) {
    if (name.rfind("loop", 0) != 0) continue;
    // Shows "<path> (deleted)" once the image was unlinked.
    std::string backing = read_first_line("/sys/block/" + name + "/loop/backing_file");
    if (stale_image(backing))
      found.push_back("loop device /dev/" + name + " over " + backing + " (losetup -d /dev/" +
                      name + ")");
  }
  for (const std::string& name : list_dir(kShmDir)) {
    std::string path = std::string(kShmDir) + "/" + name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".img") == 0 && stale_image(path))
      found.push_back("image " + path + " (rm " + path + ")");
  }
  for (const std::string& name : list_dir("/tmp")) {
    std::string path = "/tmp/" + name;
    pid_t pid = pid_after(path, kMountPrefix);
    bool mounted = std::find(stale_mounts.begin(), stale_mounts.end(), path) != stale_mounts.end();
    if (pid != 0 && !pid_alive(pid) && !mounted)
      found.push_back("directory " + path + " (rmdir " + path + ")");
  }
  return found;
}

}  // namespace fscost
