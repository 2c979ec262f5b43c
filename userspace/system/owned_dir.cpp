#include "system/owned_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <filesystem>
#include <memory>
#include <utility>

#include "system/sys_util.h"

namespace fscost {

namespace {

namespace fs = std::filesystem;

// "dir/" → {"dir's parent", "dir"}; "" for the name of "/".
std::pair<std::string, std::string> split_last(const std::string& path) {
  fs::path p = fs::path(path).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();  // "out/" → "out"
  std::string parent = p.parent_path().string();
  return {parent.empty() ? "." : parent, p.filename().string()};
}

bool is_empty_dir(int fd) {
  std::unique_ptr<DIR, int (*)(DIR*)> d(::fdopendir(::dup(fd)), ::closedir);
  if (!d) return false;
  while (dirent* e = ::readdir(d.get()))
    if (std::string_view n = e->d_name; n != "." && n != "..") return false;
  return true;
}

Error dir_error(const std::string& what, const std::string& path, const std::string& why,
                const std::string& hint) {
  return Error{fmt::format("{} '{}' {}", what, path, why), hint};
}

}  // namespace

OwnedDir::OwnedDir(UniqueFd fd, UniqueFd parent, std::string name, std::string shown,
                   bool created)
    : fd_(std::move(fd)),
      parent_(std::move(parent)),
      name_(std::move(name)),
      shown_(std::move(shown)),
      io_(fmt::format("/proc/self/fd/{}", fd_.get())),
      created_(created) {}

Result<OwnedDir> OwnedDir::claim(const std::string& path, const std::string& what) {
  auto [parent_path, name] = split_last(path);
  if (name.empty() || name == "." || name == "..")
    return dir_error(what, path, "is not a directory fscost can make", "give a new directory");
  // The parent's path is walked without another user's symlinks: a link a
  // user planted above DIR would otherwise place it wherever they chose.
  auto held = open_dir(parent_path);
  if (!held)
    return dir_error(what, path, "cannot be made: " + held.error().message,
                     "create its parent directory first");
  UniqueFd parent(held.value().release());
  bool created = ::mkdirat(parent.get(), name.c_str(), 0777) == 0;
  if (!created && errno != EEXIST)
    return dir_error(what, path, "cannot be made: " + errno_text(), errno_hint(errno));
  // O_NOFOLLOW: a symlink someone planted under the name is refused, not
  // followed to where it points.
  UniqueFd fd(::openat(parent.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd)
    return dir_error(what, path,
                     errno == ELOOP || errno == ENOTDIR ? "exists and is not a directory"
                                                        : "cannot be opened: " + errno_text(),
                     "choose a new directory");
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return dir_error(what, path, "cannot be checked: " + errno_text(), {});
  if (st.st_uid != ::geteuid())
    return dir_error(what, path, fmt::format("is owned by uid {}, not by this user", st.st_uid),
                     "choose a new directory: fscost makes it itself");
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return dir_error(what, path, fmt::format("is writable by others (mode {:o})", st.st_mode & 07777),
                     "choose a new directory, or chmod go-w it");
  if (!created && !is_empty_dir(fd.get()))
    return dir_error(what, path, "is not empty; its runs would mix with this compare's",
                     "choose a new -o DIR, or remove the old one");
  return OwnedDir(std::move(fd), std::move(parent), name, path, created);
}

Result<OwnedDir> OwnedDir::open_private(const std::string& path, mode_t mode) {
  auto [parent_path, name] = split_last(path);
  auto held = open_dir(parent_path);
  if (!held) return dir_error("directory", path, "cannot be made: " + held.error().message, {});
  UniqueFd parent(held.value().release());
  bool created = ::mkdirat(parent.get(), name.c_str(), mode) == 0;
  if (!created && errno != EEXIST)
    return dir_error("directory", path, "cannot be made: " + errno_text(), errno_hint(errno));
  UniqueFd fd(::openat(parent.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0)
    return dir_error("directory", path, "is not a directory: " + errno_text(),
                     "remove it; fscost makes it itself");
  if (st.st_uid != ::geteuid())
    return dir_error("directory", path, fmt::format("is owned by uid {}, not by this user", st.st_uid),
                     "remove it; fscost makes it itself");
  if ((st.st_mode & 07777) != mode && ::fchmod(fd.get(), mode) != 0)
    return dir_error("directory", path, "cannot be made private: " + errno_text(), {});
  return OwnedDir(std::move(fd), std::move(parent), name, path, created);
}

Result<OwnedDir> OwnedDir::make_temp(const OwnedDir& parent, const std::string& prefix) {
  std::string tmpl = parent.path() + "/" + prefix + "XXXXXX";
  if (!::mkdtemp(tmpl.data()))
    return dir_error("directory", parent.shown(), "has no room for a new one: " + errno_text(),
                     errno_hint(errno));
  std::string name = tmpl.substr(parent.path().size() + 1);
  UniqueFd fd(::openat(parent.fd(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  UniqueFd parent_fd(::fcntl(parent.fd(), F_DUPFD_CLOEXEC, 0));
  if (!fd || !parent_fd) return dir_error("directory", parent.shown() + "/" + name, errno_text(), {});
  return OwnedDir(std::move(fd), std::move(parent_fd), name, parent.shown() + "/" + name, true);
}

OwnedDir::~OwnedDir() {
  if (remove_if_empty_ && fd_ && is_empty_dir(fd_.get())) {
    created_ = true;
    remove_all();
  }
}

std::string OwnedDir::shown(const std::string& io) const {
  std::string out;
  std::size_t from = 0;
  for (std::size_t at; (at = io.find(io_, from)) != std::string::npos; from = at + io_.size()) {
    // "/proc/self/fd/4" is not "/proc/self/fd/42"'s start.
    std::size_t end = at + io_.size();
    bool whole = end == io.size() || !std::isdigit(static_cast<unsigned char>(io[end]));
    out.append(io, from, at - from).append(whole ? shown_ : io_);
  }
  return out.append(io, from);
}

void OwnedDir::remove_all() {
  if (!fd_) return;
  std::error_code ec;
  // Inside the held directory nothing is anyone else's: remove by path.
  for (const auto& e : fs::directory_iterator(io_, ec)) fs::remove_all(e.path(), ec);
  if (!created_) return;
  // The name may now be someone else's directory: remove it only if it is
  // still the one we hold.
  struct stat held {}, named {};
  if (::fstat(fd_.get(), &held) == 0 &&
      ::fstatat(parent_.get(), name_.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
      held.st_dev == named.st_dev && held.st_ino == named.st_ino)
    ::unlinkat(parent_.get(), name_.c_str(), AT_REMOVEDIR);
  remove_if_empty_ = false;
}

}  // namespace fscost
