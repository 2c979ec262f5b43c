#include "symbols/mapped_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "model/file_io.h"

namespace fscost {
namespace {

// openat2 has no glibc wrapper in Debian 12.
int openat2_fd(int dir, const std::string& path, std::uint64_t flags, std::uint64_t resolve) {
  open_how how{};
  how.flags = flags;
  how.resolve = resolve;
  return static_cast<int>(::syscall(SYS_openat2, dir, path.c_str(), &how, sizeof how));
}

// The mapped file by its name, resolved inside the process's root (its
// mount namespace and chroot, not fscost's) and never through a symlink
// at the end or a /proc magic link anywhere: what a name can still reach
// is a file the dev:inode check below must then match.
UniqueFd by_name(pid_t pid, const Mapping& m) {
  UniqueFd root(::open(fmt::format("/proc/{}/root", pid).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root) return root;
  return UniqueFd(openat2_fd(root.get(), m.path, O_PATH | O_NOFOLLOW | O_CLOEXEC,
                             RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS));
}

}  // namespace

std::string_view refusal_counter(MapRefusal r) {
  static constexpr std::string_view kNames[] = {
#define REFUSAL(id, name, what, hint) name,
      FSCOST_USER_MAPPING_DROP_TABLE(REFUSAL)
#undef REFUSAL
  };
  return kNames[static_cast<std::size_t>(r)];
}

std::variant<UniqueFd, MapRefusal> pin_mapped_file(pid_t pid, const Mapping& m) {
  // A magic link to the mapping's file: O_PATH follows it without opening
  // the file (O_NOFOLLOW would give the link itself).
  UniqueFd fd(::open(fmt::format("/proc/{}/map_files/{:x}-{:x}", pid, m.start, m.end).c_str(),
                     O_PATH | O_CLOEXEC));
  if (!fd && (errno == EPERM || errno == EACCES)) fd = by_name(pid, m);
  if (!fd) return MapRefusal::Unreadable;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return MapRefusal::Unreadable;
  // Identity first: a refusal for the type or size is then the mapped
  // file's own, not a stranger's under its name.
  if (st.st_dev != m.dev || st.st_ino != m.inode) return MapRefusal::Replaced;
  if (!S_ISREG(st.st_mode)) return MapRefusal::NotRegular;
  if (static_cast<std::uint64_t>(st.st_size) > max_input_bytes()) return MapRefusal::TooLarge;
  return fd;
}

UniqueFd open_pinned(const UniqueFd& pinned) {
  UniqueFd fd(::open(fmt::format("/proc/self/fd/{}", pinned.get()).c_str(),
                     O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  struct stat was {}, now {};
  if (!fd || ::fstat(pinned.get(), &was) != 0 || ::fstat(fd.get(), &now) != 0 ||
      !S_ISREG(now.st_mode) || now.st_dev != was.st_dev || now.st_ino != was.st_ino)
    return UniqueFd();
  return fd;
}

}  // namespace fscost
