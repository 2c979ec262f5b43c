// Whole-file reads and crash-safe whole-file writes, with errno-based Errors.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "model/result.h"

namespace fscost {

// Success without a value.
using Status = Result<std::monostate>;

// The contents of `path`; `what` names the file in messages ("profile").
Result<std::string> read_whole_file(const std::string& path, std::string_view what);

// Replaces `path` with `data` so that it holds either the old contents or all
// of `data`, even across a crash: a temp file in the same directory (so the
// rename cannot cross filesystems), fsync, rename over `path`, fsync the
// directory. The temp file is removed on failure.
Status write_file_atomic(std::string_view data, const std::string& path);

}  // namespace fscost
