// speedscope's JSON file format (https://www.speedscope.app/file-format-schema.json,
// jlfwong/speedscope src/lib/file-format-spec.ts), so a profile opens in
// https://www.speedscope.app with its time-order, left-heavy and sandwich
// views (docs/FORMATS.md).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string_view>

#include "model/profile.h"
#include "report/report.h"

namespace fscost {

inline constexpr std::string_view kSpeedscopeSchema =
    "https://www.speedscope.app/file-format-schema.json";

// The stacks render_folded(p, opt) prints, one "sampled" profile per root:
// each operation (named by the op; heaviest first), then "[user]",
// "[kernel]" and each "[kthread:NAME]" (heaviest first). Every sample keeps
// its root as the bottom frame, so a profile looks like its slice of the
// folded flame graph, and a root-only stack ("[user] 80") still shows.
// Weights are samples (unit "none") for the oncpu view, nanoseconds for
// offcpu and locks. Frames are shared by all profiles, in first-use order.
// No stack in the view gives an empty "profiles" array. Throws UserError for
// an unknown view, as render_folded does.
nlohmann::json to_speedscope(const Profile& p, const ReportOptions& opt);

}  // namespace fscost
