// The profile file: JSON with a format tag and version (docs/PROFILE.md).
//
// Reading never throws and never crashes on bad input: every problem comes
// back as an Error naming the file and the JSON path ("ops[3].count: ...").
#pragma once

#include <string>
#include <string_view>

#include "model/file_io.h"  // Status
#include "model/profile.h"
#include "model/result.h"

namespace fscost {

inline constexpr std::string_view kProfileFormatTag = "fscost-profile";

// Parses profile text; `origin` (usually the path) prefixes every message.
Result<Profile> parse_profile(std::string_view text, const std::string& origin);

// parse_profile by the checked reader alone (the DOM), without its fast path
// for the frames, stacks and samples: what that path must equal (tests).
Result<Profile> parse_profile_checked(std::string_view text, const std::string& origin);

// Reads and parses the file at `path`.
Result<Profile> read_profile(const std::string& path);

// Frees the calling thread's parse buffers (the fast path's structural
// index and strings, and the checked reader's DOM), which parse_profile
// keeps for the thread's next file: a batch load calls it when its last
// file is read, so the diff after it does not carry them.
void release_profile_parser();

// The file contents for `p`: compact JSON, frames and stacks interned, one
// trailing newline. Invalid UTF-8 in strings is replaced by U+FFFD rather
// than thrown. `version`: kProfileFormatVersion, or 2 (no stack table: what
// builds before format 3 read; bench/ writes it for them).
std::string serialize_profile(const Profile& p, int version = kProfileFormatVersion);

// Writes `p` so that `path` holds either its old contents or the complete
// new profile, even across a crash: temp file in the same directory, fsync,
// rename over `path`, fsync the directory.
Status write_profile_atomic(const Profile& p, const std::string& path);

}  // namespace fscost
