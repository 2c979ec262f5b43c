#include "model/file_io.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdlib>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <system_error>
#include <utility>

#include "model/fd.h"
#include "model/huge_pages.h"

namespace fscost {

namespace {

std::string errno_text(int err) { return std::generic_category().message(err); }

constexpr const char* kWriteHint =
    "check that the directory exists, is writable and has free space";

Error write_error(std::string_view what, const std::string& path, int err) {
  return Error{fmt::format("cannot {} '{}': {}", what, path, errno_text(err)), kWriteHint};
}

// A temporary file `name` in the directory `dir` (not owned), removed unless
// kept; `shown` names it in messages.
class TempFile {
 public:
  TempFile(int dir, std::string name, std::string shown, int fd)
      : dir_(dir), name_(std::move(name)), shown_(std::move(shown)), fd_(fd) {}
  TempFile(TempFile&& o) noexcept
      : dir_(o.dir_), name_(std::exchange(o.name_, {})), shown_(std::move(o.shown_)),
        fd_(std::move(o.fd_)) {}
  ~TempFile() {
    if (!name_.empty()) ::unlinkat(dir_, name_.c_str(), 0);
  }
  const std::string& name() const { return name_; }
  const std::string& path() const { return shown_; }
  Fd& fd() { return fd_; }
  void keep() { name_.clear(); }

 private:
  int dir_;
  std::string name_, shown_;
  Fd fd_;
};

// O_EXCL with a unique name rather than mkstemp so the kernel applies the
// umask to mode 0666, as for any file the user creates. O_EXCL creates a new
// file or fails: a name someone planted (a symlink too) is never opened.
Result<TempFile> create_temp_beside(int dir, const std::string& name, const std::string& shown) {
  auto salt =
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  for (int attempt = 0;; ++attempt) {
    std::string suffix = fmt::format(".tmp.{}.{:x}", ::getpid(), salt + attempt);
    std::string tmp = name + suffix;
    int fd = ::openat(dir, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) return TempFile(dir, std::move(tmp), shown + suffix, fd);
    if (errno != EEXIST || attempt == 100) return write_error("create temporary file", shown + suffix, errno);
  }
}

Status write_all_and_sync(TempFile& t, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(t.fd().get(), data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return write_error("write", t.path(), errno);
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  if (::fsync(t.fd().get()) != 0) return write_error("fsync", t.path(), errno);
  if (t.fd().close() != 0) return write_error("close", t.path(), errno);
  return std::monostate{};
}

const char* file_kind(mode_t m) {
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISLNK(m)) return "a symbolic link";
  if (S_ISDIR(m)) return "a directory";
  return "not a regular file";
}

// Only a regular file may be replaced: rename() over a device node or a
// symlink would replace the node itself.
Status replaceable(int dir, const std::string& name, const std::string& shown) {
  struct stat st {};
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return std::monostate{};
    return write_error("check", shown, errno);
  }
  if (S_ISREG(st.st_mode)) return std::monostate{};
  return Error{fmt::format("'{}' exists and is {}; fscost replaces only regular files", shown,
                           file_kind(st.st_mode)),
               "write to a new file name (or `-` where the command allows standard output)"};
}

// "dir/name" → {"dir", "name"}; {"", "name"} for a bare name.
std::pair<std::string, std::string> split_file(const std::string& path) {
  std::filesystem::path p(path);
  return {p.parent_path().string(), p.filename().string()};
}

Result<HeldDir> open_parent(const std::string& path) {
  auto [dir, name] = split_file(path);
  if (name.empty() || name == "." || name == "..")
    return Error{fmt::format("cannot write '{}': not a file name", path), "give a file name"};
  auto held = open_dir(dir.empty() ? "." : dir);
  if (!held) return held.error();
  return HeldDir(held.value().release(), dir);
}

constexpr const char* kReadHint = "check the path and its permissions";

Error open_error(std::string_view what, const std::string& path, int err) {
  return Error{fmt::format("cannot open {} '{}': {}", what, path, errno_text(err)), kReadHint};
}

// The refusal of anything but a regular file. A directory keeps the
// kernel's own words, as read() said them before.
Error not_regular(std::string_view what, const std::string& path, mode_t mode) {
  if (S_ISDIR(mode))
    return Error{fmt::format("cannot read {} '{}': {}", what, path, errno_text(EISDIR)), kReadHint};
  return Error{fmt::format("cannot read {} '{}': it is {}; fscost reads only regular files", what,
                           path, file_kind(mode)),
               "copy it to a regular file first; `fscost import` also reads standard input "
               "(`... | fscost import FORMAT -`)"};
}

bool same_inode(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// `path` opened for reading if, and only if, it is a regular file; `st` is
// its fstat. Opening is itself the danger: a FIFO blocks open() until a
// writer comes, and a device node's open runs its driver (as root,
// opening /dev/watchdog arms it). So the file is first looked at through
// an O_PATH descriptor, which opens nothing, and then reopened through
// /proc/self/fd, which opens that same inode even if the path was swapped
// for a symlink to a device meanwhile. O_NONBLOCK and O_NOCTTY are only a
// second line: neither keeps a driver's open from running.
Result<Fd> open_regular(const std::string& path, std::string_view what, struct stat& st) {
  Fd probe(::open(path.c_str(), O_PATH | O_CLOEXEC));
  if (probe.get() < 0) return open_error(what, path, errno);
  struct stat first {};
  if (::fstat(probe.get(), &first) != 0) return open_error(what, path, errno);
  if (!S_ISREG(first.st_mode)) return not_regular(what, path, first.st_mode);
  constexpr int kFlags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
  int raw = ::open(fmt::format("/proc/self/fd/{}", probe.get()).c_str(), kFlags);
  // Without /proc (a bare chroot), by the path again; the checks below then
  // catch a swap, if only after the open.
  if (raw < 0 && errno == ENOENT) raw = ::open(path.c_str(), kFlags);
  Fd fd(raw);
  if (fd.get() < 0) return open_error(what, path, errno);
  if (::fstat(fd.get(), &st) != 0) return open_error(what, path, errno);
  if (!S_ISREG(st.st_mode)) return not_regular(what, path, st.st_mode);
  if (!same_inode(first, st))
    return Error{fmt::format("cannot read {} '{}': it was replaced while being opened", what, path),
                 "try again once nothing is changing the file"};
  return fd;
}

}  // namespace

std::size_t max_input_bytes() {
  constexpr std::size_t kDefault = std::size_t{1} << 30;
  const char* env = std::getenv("FSCOST_MAX_INPUT");
  if (!env || !*env) return kDefault;
  char* end = nullptr;
  unsigned long long v = std::strtoull(env, &end, 10);
  int shift = 0;
  switch (end && *end ? *end : 0) {
    case 'K': case 'k': shift = 10; break;
    case 'M': case 'm': shift = 20; break;
    case 'G': case 'g': shift = 30; break;
    case 'T': case 't': shift = 40; break;
    default: break;
  }
  if (v == 0 || v > (~0ull >> shift)) return kDefault;
  return static_cast<std::size_t>(v << shift);
}

Error input_too_large(std::string_view what, const std::string& path, std::size_t limit) {
  std::string size = limit % (1 << 30) == 0 ? fmt::format("{} GiB", limit >> 30)
                     : limit % (1 << 20) == 0 ? fmt::format("{} MiB", limit >> 20)
                     : limit % (1 << 10) == 0 ? fmt::format("{} KiB", limit >> 10)
                                              : fmt::format("{} bytes", limit);
  return Error{fmt::format("{} '{}' is larger than the input limit of {}", what, path, size),
               "raise it with FSCOST_MAX_INPUT (e.g. FSCOST_MAX_INPUT=8G) if the file is real"};
}

Status check_output_path(const std::string& path) {
  if (path.empty()) return Error{"empty output path", "give a file name"};
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))  // for the message only
    return Error{fmt::format("cannot write '{}': its directory '{}' does not exist", path,
                             dir.string()),
                 "create the directory first, or choose another path"};
  auto held = open_parent(path);
  if (!held) return held.error();
  const int fd = held.value().fd();
  if (auto s = replaceable(fd, split_file(path).second, path); !s) return s;
  if (::faccessat(fd, ".", W_OK | X_OK, 0) != 0)
    return Error{fmt::format("cannot write '{}': directory '{}': {}", path, dir.string(),
                             errno_text(errno)),
                 kWriteHint};
  struct statvfs vfs {};
  if (::fstatvfs(fd, &vfs) == 0 &&
      static_cast<unsigned long long>(vfs.f_bavail) * vfs.f_frsize < (1ull << 20))
    return Error{fmt::format("cannot write '{}': {} has less than 1 MiB free", path,
                             dir.string()),
                 "free some space or write elsewhere"};
  return std::monostate{};
}

Result<std::string> read_whole_file(const std::string& path, std::string_view what) {
  struct stat st {};
  auto fd = open_regular(path, what, st);
  if (!fd) return fd.error();
  const std::size_t limit = max_input_bytes();
  if (static_cast<std::uint64_t>(st.st_size) > limit) return input_too_large(what, path, limit);
  std::string text;
  // Room for simdjson's padding too, so a profile is parsed in place.
  text.reserve(static_cast<std::size_t>(st.st_size) + kReadSlack);
  advise_huge_pages(text.data(), text.capacity());
  char buf[1 << 16];
  for (;;) {
    // A regular file can still grow while it is read (a recording in progress).
    if (text.size() > limit) return input_too_large(what, path, limit);
    ssize_t n = ::read(fd.value().get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return Error{fmt::format("cannot read {} '{}': {}", what, path, errno_text(errno)),
                   "check the path and its permissions"};
    if (n == 0) return text;
    text.append(buf, static_cast<std::size_t>(n));
  }
}

Status write_file_atomic(std::string_view data, const HeldDir& dir, const std::string& name) {
  const std::string shown = dir.shown(name);
  if (auto s = replaceable(dir.fd(), name, shown); !s) return s;
  auto tmp = create_temp_beside(dir.fd(), name, shown);
  if (!tmp) return tmp.error();
  if (auto s = write_all_and_sync(tmp.value(), data); !s) return s;
  if (::renameat(dir.fd(), tmp.value().name().c_str(), dir.fd(), name.c_str()) != 0)
    return write_error("rename temporary file over", shown, errno);
  tmp.value().keep();
  // Makes the rename itself durable.
  if (::fsync(dir.fd()) != 0)
    return Error{fmt::format("wrote '{}', but cannot sync its directory '{}': {}", shown,
                             dir.shown().empty() ? "." : dir.shown(), errno_text(errno)),
                 kWriteHint};
  return std::monostate{};
}

Status write_file_atomic(std::string_view data, const std::string& path) {
  auto dir = open_parent(path);
  if (!dir) return dir.error();
  return write_file_atomic(data, dir.value(), split_file(path).second);
}

}  // namespace fscost
