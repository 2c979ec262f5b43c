// Private to io/: the pieces of io/pprof.h's reader.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "model/file_io.h"  // Status
#include "model/profile.h"

namespace fscost::pprof {

// A comment metadata_comments() wrote ("fscost.KEY: VALUE").
bool is_metadata_comment(std::string_view comment);
// Sets what such a comment says in `p`; an unknown KEY (a later fscost's)
// is ignored, a bad VALUE is an error.
Status apply_metadata_comment(std::string_view comment, Profile& p);

// About what libprotobuf allocates to parse `raw` (a raw profile.proto),
// from one pass over its wire format that allocates nothing: a 5-byte
// sample parses into a 150-byte message, so a few hundred KB of gzip can
// ask for tens of GB. nullopt when `raw` is not well-formed protobuf.
std::optional<std::uint64_t> parse_cost(std::string_view raw);

}  // namespace fscost::pprof
