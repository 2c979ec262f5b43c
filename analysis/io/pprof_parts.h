// Private to io/: the pieces of io/pprof.h's reader.
#pragma once

#include <string_view>

#include "model/file_io.h"  // Status
#include "model/profile.h"

namespace fscost::pprof {

// A comment metadata_comments() wrote ("fscost.KEY: VALUE").
bool is_metadata_comment(std::string_view comment);
// Sets what such a comment says in `p`; an unknown KEY (a later fscost's)
// is ignored, a bad VALUE is an error.
Status apply_metadata_comment(std::string_view comment, Profile& p);

}  // namespace fscost::pprof
