#include "system/leftovers.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>

#include "system/sys_util.h"

namespace fscost {

std::vector<Leftover> find_leftovers() {
  std::vector<Leftover> found;
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
    found.push_back({Leftover::Mount, m.mountpoint,
                     "mount " + m.mountpoint + " of " + m.source + " (umount " + m.mountpoint + ")"});
  }
  for (const std::string& name : list_dir("/sys/block")) {
    if (name.rfind("loop", 0) != 0) continue;
    // Shows "<path> (deleted)" once the image was unlinked.
    std::string backing = read_first_line("/sys/block/" + name + "/loop/backing_file");
    if (stale_image(backing))
      found.push_back({Leftover::LoopDevice, "/dev/" + name,
                       "loop device /dev/" + name + " over " + backing + " (losetup -d /dev/" +
                           name + ")"});
  }
  for (const std::string& name : list_dir(kShmDir)) {
    std::string path = std::string(kShmDir) + "/" + name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".img") == 0 && stale_image(path))
      found.push_back({Leftover::Image, path, "image " + path + " (rm " + path + ")"});
  }
  for (const std::string& name : list_dir("/tmp")) {
    std::string path = "/tmp/" + name;
    pid_t pid = pid_after(path, kMountPrefix);
    bool mounted = std::find(stale_mounts.begin(), stale_mounts.end(), path) != stale_mounts.end();
    if (pid != 0 && !pid_alive(pid) && !mounted)
      found.push_back({Leftover::Directory, path, "directory " + path + " (rmdir " + path + ")"});
  }
  return found;
}

Status remove_leftover(const Leftover& l) {
  auto failed = [&](const char* what) -> Status {
    return Error{fmt::format("cannot {} {}: {}", what, l.path, errno_text()), ""};
  };
  switch (l.kind) {
    case Leftover::Mount:
      // A lazy unmount if it is busy: nothing of ours uses it any more.
      if (::umount2(l.path.c_str(), UMOUNT_NOFOLLOW) != 0 &&
          ::umount2(l.path.c_str(), UMOUNT_NOFOLLOW | MNT_DETACH) != 0)
        return failed("unmount");
      if (::rmdir(l.path.c_str()) != 0 && errno != ENOENT) return failed("remove the directory");
      break;
    case Leftover::LoopDevice: {
      int fd = ::open(l.path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) return failed("open");
      int rc = ::ioctl(fd, LOOP_CLR_FD, 0);
      int err = errno;
      ::close(fd);
      errno = err;
      if (rc != 0 && errno != ENXIO) return failed("detach");
      break;
    }
    case Leftover::Image:
      if (::unlink(l.path.c_str()) != 0 && errno != ENOENT) return failed("remove");
      break;
    case Leftover::Directory:
      if (::rmdir(l.path.c_str()) != 0 && errno != ENOENT) return failed("remove");
      break;
  }
  return std::monostate{};
}

}  // namespace fscost
