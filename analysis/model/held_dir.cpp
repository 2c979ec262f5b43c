// Output directories reached without another user's symlink (file_io.h:
// open_dir, claim_output_dir). A path is walked one component at a time
// rather than with openat2(RESOLVE_NO_SYMLINKS), which refuses every link:
// root's own (/var/run → /run) and /proc/self/fd/N, the held directories
// compare writes through, must keep working.
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <deque>
#include <filesystem>
#include <system_error>

#include "model/fd.h"
#include "model/file_io.h"

namespace fscost {

namespace {

// As the kernel's MAXSYMLINKS.
constexpr int kMaxLinks = 40;

std::string errno_text(int err) { return std::generic_category().message(err); }

// The components of `path`, without "" and ".".
std::deque<std::string> components(std::string_view path) {
  std::deque<std::string> out;
  while (!path.empty()) {
    std::size_t slash = path.find('/');
    std::string_view c = path.substr(0, slash);
    if (!c.empty() && c != ".") out.emplace_back(c);
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
  }
  return out;
}

bool on_procfs(int fd) {
  struct statfs s {};
  return ::fstatfs(fd, &s) == 0 && s.f_type == PROC_SUPER_MAGIC;
}

Error dir_error(const std::string& path, const std::string& why, std::string hint = {}) {
  if (hint.empty()) hint = "check that the directory exists and is writable";
  return Error{fmt::format("cannot use directory '{}': {}", path, why), std::move(hint)};
}

// The link's text, read through its own descriptor: the link whose owner
// was checked, even if the name was re-pointed since.
Result<std::string> link_text(int link_fd, const std::string& shown) {
  std::string buf(4096, '\0');
  ssize_t n = ::readlinkat(link_fd, "", buf.data(), buf.size());
  if (n < 0 || static_cast<std::size_t>(n) >= buf.size())
    return dir_error(shown, "cannot read symbolic link: " + errno_text(n < 0 ? errno : ENAMETOOLONG));
  buf.resize(static_cast<std::size_t>(n));
  return buf;
}

// The walk's state: where it is, and that place's path for messages.
struct Walk {
  Fd cur;
  std::string here;       // "" = where it started: "/" or "."
  bool absolute = false;  // it started at "/"
  std::deque<std::string> rest;
  int links = 0;

  std::string at(const std::string& c) const {
    return here.empty() ? (absolute ? "/" : "") + c : here + "/" + c;
  }
  void restart_at_root() {
    cur = Fd(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
    here.clear();
    absolute = true;
  }
};

// Component `c` of the walk, opened O_PATH without following it; made
// first if missing and `make`.
Result<Fd> open_component(Walk& w, const std::string& c, bool make) {
  Fd next(::openat(w.cur.get(), c.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (next.get() < 0 && errno == ENOENT && make) {
    if (::mkdirat(w.cur.get(), c.c_str(), 0777) != 0 && errno != EEXIST)
      return dir_error(w.at(c), "cannot be made: " + errno_text(errno));
    next = Fd(::openat(w.cur.get(), c.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  }
  if (next.get() < 0) return dir_error(w.at(c), errno_text(errno));
  return next;
}

// Follows the link `next` (component `c`) if it is procfs's, root's or this
// user's: true when the walk goes on from `next` itself (a procfs link,
// opened by the kernel), false when its text was queued in `w.rest`.
Result<bool> follow(Walk& w, const std::string& c, Fd& next, const struct stat& st) {
  if (++w.links > kMaxLinks) return dir_error(w.at(c), errno_text(ELOOP));
  if (on_procfs(w.cur.get())) {
    next = Fd(::openat(w.cur.get(), c.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (next.get() < 0) return dir_error(w.at(c), errno_text(errno));
    return true;
  }
  if (st.st_uid != 0 && st.st_uid != ::geteuid())
    return dir_error(w.at(c),
                     fmt::format("it is a symbolic link owned by uid {}; fscost follows only "
                                 "root's and this user's links",
                                 st.st_uid),
                     "give the directory it points to, if it is meant (readlink -f)");
  auto text = link_text(next.get(), w.at(c));
  if (!text) return text.error();
  if (text.value().empty()) return dir_error(w.at(c), "empty symbolic link");
  if (text.value()[0] == '/') w.restart_at_root();
  auto parts = components(text.value());
  w.rest.insert(w.rest.begin(), parts.begin(), parts.end());
  return false;
}

}  // namespace

HeldDir::~HeldDir() {
  if (fd_ >= 0) ::close(fd_);
}

std::string HeldDir::shown(std::string_view name) const {
  if (shown_.empty() || shown_ == ".") return std::string(name);
  return shown_ + (shown_.back() == '/' ? "" : "/") + std::string(name);
}

Result<HeldDir> open_dir(const std::string& path, bool make_missing) {
  if (path.empty()) return dir_error(path, "empty path", "give a directory");
  Walk w;
  if (path[0] == '/') {
    w.restart_at_root();
  } else {
    w.cur = Fd(::open(".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  }
  if (w.cur.get() < 0) return dir_error(path, errno_text(errno));
  w.rest = components(path);
  while (!w.rest.empty()) {
    std::string c = std::move(w.rest.front());
    w.rest.pop_front();
    auto next = open_component(w, c, make_missing);
    if (!next) return next.error();
    struct stat st {};
    if (::fstat(next.value().get(), &st) != 0) return dir_error(w.at(c), errno_text(errno));
    if (S_ISLNK(st.st_mode)) {
      auto opened = follow(w, c, next.value(), st);
      if (!opened) return opened.error();
      if (!opened.value()) continue;  // its text is walked next
      if (::fstat(next.value().get(), &st) != 0) return dir_error(w.at(c), errno_text(errno));
    }
    if (!S_ISDIR(st.st_mode)) return dir_error(w.at(c), "not a directory");
    w.cur = std::move(next).value();
    w.here = w.at(c);
  }
  // O_PATH cannot be fsynced; the directory itself, reopened, can.
  Fd dir(::openat(w.cur.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) return dir_error(path, errno_text(errno));
  return HeldDir(dir.release(), path);
}

Result<HeldDir> claim_output_dir(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path p = fs::path(path).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();  // "out/" → "out"
  const std::string name = p.filename().string();
  const std::string parent = p.has_parent_path() ? p.parent_path().string() : ".";
  constexpr const char* kHint = "give -o a new directory, or one of your own";
  if (name.empty() || name == "." || name == "..")
    return Error{fmt::format("output directory '{}' is not a directory fscost can make", path), kHint};
  auto dir = open_dir(parent, true);
  if (!dir) return Error{fmt::format("cannot create output directory {}: {}", path, dir.error().message),
                         dir.error().hint};
  const bool made = ::mkdirat(dir.value().fd(), name.c_str(), 0777) == 0;
  if (!made && errno != EEXIST)
    return Error{fmt::format("cannot create output directory {}: {}", path, errno_text(errno)), kHint};
  Fd fd(::openat(dir.value().fd(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) {
    const int err = errno;
    struct stat st {};
    const bool link = ::fstatat(dir.value().fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                      S_ISLNK(st.st_mode);
    std::string why = link             ? "is a symbolic link; fscost does not write through one"
                      : err == ENOTDIR ? "exists and is not a directory"
                                       : "cannot be opened: " + errno_text(err);
    return Error{fmt::format("output directory '{}' {}", path, why), kHint};
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    return Error{fmt::format("output directory '{}' cannot be checked: {}", path, errno_text(errno)), kHint};
  // One fscost made is as the umask made it. A user's own directory may be
  // group-writable by their umask (user private groups: 002); only root's
  // writes are worth another user's turning.
  if (!made && st.st_uid != ::geteuid())
    return Error{fmt::format("output directory '{}' is owned by uid {}, not by this user", path,
                             st.st_uid),
                 kHint};
  if (!made && ::geteuid() == 0 && (st.st_mode & (S_IWGRP | S_IWOTH)))
    return Error{fmt::format("output directory '{}' is writable by others (mode {:o})", path,
                             st.st_mode & 07777),
                 "give -o a new directory, or chmod go-w it"};
  return HeldDir(fd.release(), path);
}

}  // namespace fscost
