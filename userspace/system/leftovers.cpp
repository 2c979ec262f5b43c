#include "system/leftovers.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/loop.h>
#include <linux/openat2.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include "model/escape.h"
#include "system/subprocess.h"
#include "system/sys_util.h"

namespace fscost {

namespace {

// "<pid>-XXXXXX" as mkdtemp made it: digits without a sign or leading zero,
// then six name characters. Anything else is not a state directory.
std::optional<pid_t> state_dir_pid(const std::string& name) {
  auto dash = name.find('-');
  if (dash == 0 || dash == std::string::npos || name[0] == '0' || name.size() != dash + 7)
    return std::nullopt;
  pid_t pid = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + dash, pid);
  if (ec != std::errc() || end != name.data() + dash || pid <= 0) return std::nullopt;
  for (std::size_t i = dash + 1; i < name.size(); ++i)
    if (!std::isalnum(static_cast<unsigned char>(name[i]))) return std::nullopt;
  return pid;
}

// A file or directory of ours: this user's, not writable by others.
bool ours(const struct stat& st) {
  return st.st_uid == ::geteuid() && !(st.st_mode & (S_IWGRP | S_IWOTH));
}

// The state file of one state directory, read through descriptors that
// follow no symlink; nullopt if it is not a state file of ours.
std::optional<RunStateData> read_state(int base, const std::string& name) {
  UniqueFd dir(::openat(base, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!dir || ::fstat(dir.get(), &st) != 0 || !ours(st)) return std::nullopt;
  UniqueFd f(::openat(dir.get(), "state", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!f) return RunStateData{};  // killed before its first write: an empty directory
  if (::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode) || !ours(st) || st.st_size > (1 << 20))
    return std::nullopt;
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  if (::read(f.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    return std::nullopt;
  auto s = parse_state_json(text);
  if (!s) return std::nullopt;
  return std::move(s).value();
}

bool mounted(std::uint64_t mnt_id, const std::string& dir) {
  for (const MountEntry& m : read_mountinfo())
    if (m.mount_id == mnt_id) return m.mountpoint == dir;
  return false;
}

// Whether the loop device with number `rdev` is still bound to inode dev:ino.
bool loop_bound_to(const std::string& path, std::uint64_t rdev, std::uint64_t dev,
                   std::uint64_t ino, UniqueFd* keep = nullptr) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISBLK(st.st_mode) || st.st_rdev != rdev)
    return false;
  loop_info64 info{};
  if (::ioctl(fd.get(), LOOP_GET_STATUS64, &info) != 0) return false;  // ENXIO: unbound
  if (info.lo_device != dev || info.lo_inode != ino) return false;
  if (keep) *keep = std::move(fd);
  return true;
}

bool same_file(const std::string& path, std::uint64_t dev, std::uint64_t ino) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
         st.st_dev == dev && st.st_ino == ino;
}

void add_pieces(const RunStateData& s, std::vector<Leftover>& found) {
  for (const MadeMount& m : s.mounts)
    if (m.mnt_id && mounted(m.mnt_id, m.dir))
      found.push_back({Leftover::Mount, m.dir,
                       fmt::format("mount {} (umount {})", m.dir, m.dir), m.mnt_id});
  for (const MadeLoop& l : s.loops)
    if (loop_bound_to(l.path, l.rdev, l.backing_dev, l.backing_ino))
      found.push_back({Leftover::LoopDevice, l.path,
                       fmt::format("loop device {} (losetup -d {})", l.path, l.path), l.rdev,
                       l.backing_dev, l.backing_ino});
  for (const MadeImage& i : s.images)
    if (same_file(i.path, i.dev, i.ino))
      found.push_back({Leftover::Image, i.path, fmt::format("image {} (rm {})", i.path, i.path),
                       0, i.dev, i.ino});
}

// openat2 has no glibc wrapper in Debian 12.
int open_no_symlinks(const std::string& path) {
  open_how how{};
  how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(::syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how));
}

Status unmount(const Leftover& l) {
  UniqueFd fd(open_no_symlinks(l.path));
  struct statx stx {};
  if (!fd || ::statx(fd.get(), "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) != 0 ||
      stx.stx_mnt_id != l.id)
    return Error{fmt::format("{} is no longer the mount fscost made (mount id {}); left alone",
                             l.path, l.id),
                 ""};
  fd.reset();  // an open descriptor would keep the mount busy
  // The path lies in a directory only root can write: nobody can have
  // swapped it since the check. Lazily if it is busy: nothing of ours uses it.
  if (::umount2(l.path.c_str(), UMOUNT_NOFOLLOW) != 0 &&
      ::umount2(l.path.c_str(), UMOUNT_NOFOLLOW | MNT_DETACH) != 0)
    return Error{fmt::format("cannot unmount {}: {}", l.path, errno_text()), ""};
  return std::monostate{};
}

// A mountpoint as make_mountpoint names it: <base>/m-XXXXXX. Anything else
// a state file says is not ours to remove.
bool is_our_mountpoint(const std::string& base, const std::string& dir) {
  std::string prefix = base + "/" + std::string(kMountpointPrefix);
  if (dir.size() != prefix.size() + 6 || dir.compare(0, prefix.size(), prefix) != 0) return false;
  return std::all_of(dir.begin() + static_cast<std::ptrdiff_t>(prefix.size()), dir.end(),
                     [](unsigned char c) { return std::isalnum(c); });
}

// The state directory and its empty mountpoints (beside it in the base;
// inside it for fscost before 2026-12-05), once nothing else of it is left.
// The base is root's and 0700: no one else can have put a name there.
Status remove_state_dir(const std::string& dir, const RunStateData& state) {
  for (const MadeMount& m : state.mounts) {
    if (!is_our_mountpoint(state_base_dir(), m.dir)) continue;
    if (::rmdir(m.dir.c_str()) != 0 && errno != ENOENT)
      return Error{fmt::format("cannot remove {}: {}", m.dir, errno_text()), ""};
  }
  for (const std::string& name : list_dir(dir)) {
    if (name == "state") continue;
    if (::rmdir((dir + "/" + name).c_str()) != 0 && errno != ENOENT)
      return Error{fmt::format("cannot remove {}/{}: {}", dir, name, errno_text()), ""};
  }
  if (::unlink((dir + "/state").c_str()) != 0 && errno != ENOENT)
    return Error{fmt::format("cannot remove {}/state: {}", dir, errno_text()), ""};
  if (::rmdir(dir.c_str()) != 0 && errno != ENOENT)
    return Error{fmt::format("cannot remove {}: {}", dir, errno_text()), ""};
  return std::monostate{};
}

// The dead processes' state directories, each with what it recorded.
std::vector<std::pair<std::string, RunStateData>> dead_states() {
  std::vector<std::pair<std::string, RunStateData>> dead;
  const std::string base = state_base_dir();
  UniqueFd fd(::open(base.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0 || !ours(st)) return dead;
  for (const std::string& name : list_dir(base)) {
    std::optional<pid_t> pid = state_dir_pid(name);
    if (!pid) continue;
    std::optional<RunStateData> s = read_state(fd.get(), name);
    if (!s || (s->pid && s->pid != *pid)) continue;
    std::uint64_t start = process_start_time(*pid);
    if (start != 0 && (s->start_time == 0 || start == s->start_time)) continue;  // alive
    dead.emplace_back(base + "/" + name, std::move(*s));
  }
  return dead;
}

}  // namespace

std::vector<Leftover> find_leftovers() {
  std::vector<Leftover> pieces, dirs;
  for (const auto& [dir, state] : dead_states()) {
    add_pieces(state, pieces);
    dirs.push_back({Leftover::Directory, dir, fmt::format("state directory {} (rm -r {})", dir, dir)});
  }
  // Mounts first (the loop devices autoclear with them), the directories last.
  std::stable_sort(pieces.begin(), pieces.end(),
                   [](const Leftover& a, const Leftover& b) { return a.kind < b.kind; });
  pieces.insert(pieces.end(), dirs.begin(), dirs.end());
  return pieces;
}

Status remove_leftover(const Leftover& l) {
  switch (l.kind) {
    case Leftover::Mount:
      if (!mounted(l.id, l.path)) return std::monostate{};
      if (auto ok = unmount(l); !ok) return ok;
      break;
    case Leftover::LoopDevice: {
      UniqueFd fd;
      if (!loop_bound_to(l.path, l.id, l.dev, l.ino, &fd)) return std::monostate{};
      if (::ioctl(fd.get(), LOOP_CLR_FD, 0) != 0 && errno != ENXIO)
        return Error{fmt::format("cannot detach {}: {}", l.path, errno_text()), ""};
      break;
    }
    case Leftover::Image:
      if (!same_file(l.path, l.dev, l.ino)) return std::monostate{};
      if (::unlink(l.path.c_str()) != 0 && errno != ENOENT)
        return Error{fmt::format("cannot remove {}: {}", l.path, errno_text()), ""};
      break;
    case Leftover::Directory:
      for (const auto& [dir, state] : dead_states()) {
        if (dir != l.path) continue;
        std::vector<Leftover> left;
        add_pieces(state, left);
        if (!left.empty())
          return Error{fmt::format("{} still names {}; left alone", l.path, left.front().path), ""};
        return remove_state_dir(l.path, state);
      }
      return std::monostate{};  // no longer a dead process's: gone already
  }
  return std::monostate{};
}

}  // namespace fscost
