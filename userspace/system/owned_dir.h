// A directory fscost made, or one it checked nobody else can write, held
// open. Root writes into directories that unprivileged users may have
// named or pre-created (-o /tmp/out); each file is then reached through the
// held descriptor (/proc/self/fd/N/...), so renaming a path component or
// swapping it for a symlink after the check changes nothing.
#pragma once

#include <sys/types.h>

#include <string>

#include "model/file_io.h"  // Status
#include "model/result.h"
#include "system/subprocess.h"  // UniqueFd

namespace fscost {

class OwnedDir {
 public:
  // Makes `path` (mode 0777 & ~umask; 0700 under root's default umask), or
  // takes an existing one only if it is a real directory (not a symlink),
  // owned by this user, not writable by group or others, and empty. `what`
  // names it in errors ("output directory").
  static Result<OwnedDir> claim(const std::string& path, const std::string& what);
  // Like claim, but an existing directory keeps its contents (a state
  // directory such as /run/fscost); its mode is tightened to `mode`.
  static Result<OwnedDir> open_private(const std::string& path, mode_t mode);

  // A new directory "<prefix>XXXXXX" (mkdtemp) inside `parent`, made 0700.
  static Result<OwnedDir> make_temp(const OwnedDir& parent, const std::string& prefix);

  OwnedDir(OwnedDir&&) noexcept = default;
  OwnedDir& operator=(OwnedDir&&) noexcept = default;
  ~OwnedDir();

  // The path as the user gave it: for messages only.
  const std::string& shown() const { return shown_; }
  // The path to do I/O through: "/proc/self/fd/N", the held directory.
  const std::string& path() const { return io_; }
  int fd() const { return fd_.get(); }
  // `io` (a path, a message, a page) with every path() in it replaced by
  // shown(): the held directory's /proc/self/fd/N is no name of the user's.
  std::string shown(const std::string& io) const;

  // Removes the directory on destruction if fscost made it and it is still
  // empty (a compare that stopped before its first run).
  void remove_if_empty_at_exit() { remove_if_empty_ = created_; }
  // Removes everything in it, and the directory itself if fscost made it.
  void remove_all();
  bool created() const { return created_; }

 private:
  OwnedDir(UniqueFd fd, UniqueFd parent, std::string name, std::string shown, bool created);
  UniqueFd fd_;
  UniqueFd parent_;   // to rmdir the one we hold, not whatever has its name now
  std::string name_;  // in parent_
  std::string shown_, io_;
  bool created_ = false;
  bool remove_if_empty_ = false;
};

}  // namespace fscost
