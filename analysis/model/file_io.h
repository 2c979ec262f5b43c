// Whole-file reads and crash-safe whole-file writes, with errno-based Errors.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
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

// Whether `path` may be written as an output, checked before any work is
// done: it is absent or a regular file (never a device node, FIFO, socket,
// symlink or directory: as root, `-o /dev/null` must not replace
// /dev/null), its directory exists and is writable, and its filesystem has
// at least 1 MiB free.
Status check_output_path(const std::string& path);

// Replaces `path` with `data` so that it holds either the old contents or all
// of `data`, even across a crash: a temp file in the same directory (so the
// rename cannot cross filesystems), fsync, rename over `path`, fsync the
// directory. The temp file is removed on failure.
Status write_file_atomic(std::string_view data, const std::string& path);

}  // namespace fscost
