// Whole-file reads and crash-safe whole-file writes, with errno-based Errors.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "model/result.h"

namespace fscost {

// Success without a value.
using Status = Result<std::monostate>;

// The most any reader takes in: 1 GiB, or $FSCOST_MAX_INPUT ("4G", "512M",
// bytes). A larger file is refused before it is read (fstat), a file
// growing past it once that much has been read.
std::size_t max_input_bytes();
// The error for input past that limit, naming it and how to raise it.
Error input_too_large(std::string_view what, const std::string& path, std::size_t limit);

// The contents of `path`; `what` names the file in messages ("profile").
// Refuses more than max_input_bytes(), and anything but a regular file
// (symlinks to one are followed) without opening it: a FIFO would block
// forever, a device's open runs its driver (/dev/watchdog arms). Callers
// that take `-` read standard input themselves.
Result<std::string> read_whole_file(const std::string& path, std::string_view what);
// Spare capacity after the text read_whole_file returns (unless the file
// grew while read): simdjson reads up to 64 bytes past a document, and
// with that room parses it in place rather than copying it.
inline constexpr std::size_t kReadSlack = 64;

// A directory held open: files are made in it by name relative to the
// descriptor (openat, renameat), so a component of its path renamed or
// swapped for a symlink after it was opened changes nothing.
class HeldDir {
 public:
  HeldDir(int fd, std::string shown) : fd_(fd), shown_(std::move(shown)) {}
  HeldDir(HeldDir&& o) noexcept : fd_(std::exchange(o.fd_, -1)), shown_(std::move(o.shown_)) {}
  HeldDir& operator=(HeldDir&&) = delete;
  ~HeldDir();
  int fd() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  // The path as the user gave it, and `name` in it: for messages only.
  const std::string& shown() const { return shown_; }
  std::string shown(std::string_view name) const;

 private:
  int fd_;
  std::string shown_;
};

// Directory `path`, opened one component at a time (O_NOFOLLOW), never
// through a symbolic link owned by anyone but root or this user: as root,
// an unprivileged user's link in the path cannot redirect root's writes
// (docs/HARDENING.md, "Outputs"). Root's and one's own links are followed
// by their text, component by component under the same rule (/var/run,
// a symlinked /home); procfs's own links by the kernel, so /proc/self/fd/N
// is the directory that descriptor holds, not the name readlink shows.
// With `make_missing`, missing components are made (0777 & ~umask), as by
// mkdir -p. The descriptor is O_RDONLY, so it can be fsynced.
Result<HeldDir> open_dir(const std::string& path, bool make_missing = false);

// Directory `path` as an output directory that holds several files (diff
// -o DIR): made with its parents (open_dir) if missing; an existing one
// only if it is a real directory (not a symlink) of this user's and, as
// root, not writable by group or others, whose files another user could
// otherwise replace after root wrote them. Files already in it are kept;
// write_file_atomic replaces those it writes.
Result<HeldDir> claim_output_dir(const std::string& path);

// Whether `path` may be written as an output, checked before any work is
// done: it is absent or a regular file (never a device node, FIFO, socket,
// symlink or directory: as root, `-o /dev/null` must not replace
// /dev/null), its directory exists, is reached without another user's
// symlink (open_dir) and is writable, and its filesystem has at least
// 1 MiB free.
Status check_output_path(const std::string& path);

// Replaces `name` in `dir` with `data` so that it holds either the old
// contents or all of `data`, even across a crash: a new temp file beside
// it (O_EXCL | O_NOFOLLOW, so the rename cannot cross filesystems and no
// link planted at the temp name is followed), fsync, renameat over `name`,
// fsync the directory. The final name is never opened: the rename replaces
// whatever entry has it, and writes through none. That holds in a
// directory others can write too (/tmp: sticky, world-writable), so a
// single output file may go there; a symlink, device or directory already
// at the name is refused (an error, not followed), a regular file
// replaced. The temp file is removed on failure.
Status write_file_atomic(std::string_view data, const HeldDir& dir, const std::string& name);
// The same for `path`: its directory opened by open_dir.
Status write_file_atomic(std::string_view data, const std::string& path);

}  // namespace fscost
