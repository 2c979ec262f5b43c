// Finding (or mounting) tracefs, where tracepoint ids and formats live.
#pragma once

#include <istream>
#include <optional>
#include <string>
#include <string_view>

#include "model/result.h"

namespace fscost {

// The tracefs mount point listed in /proc/mounts-format text, preferring
// /sys/kernel/tracing over /sys/kernel/debug/tracing over any other; nullopt
// if none. Pure, for tests.
std::optional<std::string> find_tracefs_mount(std::istream& mounts);

// Returns the tracefs root. If none is mounted, mounts it at
// /sys/kernel/tracing and sets *note (when non-null) to say so.
Result<std::string> ensure_tracefs(std::string* note);

// Whether <tracefs_root>/events/<category>/<event>/id exists.
bool tracepoint_exists(const std::string& tracefs_root, std::string_view category,
                       std::string_view event);

}  // namespace fscost
