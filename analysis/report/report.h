// Reports derived from a profile: text for people, JSON for scripts
// (docs/REPORT-JSON.md), folded stacks for flame graphs.
#pragma once

#include <array>
#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "model/profile.h"
#include "model/result.h"
#include "views/view.h"

namespace fscost {

// 2: "xfs" and ops[].xfs_per_op renamed fs_events and fs_events_per_op.
inline constexpr int kReportSchemaVersion = 2;

// Header, rusage, the view's sections and drop counters, as plain text.
// oncpu: per-op table, consistency check, top stacks, XFS counters,
// background samples. offcpu: on/off-CPU/wall per op by wait class, top
// off-CPU stacks with wakers, kernel threads. locks: lock table and spin
// check per op, kernel threads' locks.
std::string render_text(const Profile& p, const ReportOptions& opt);

// The same content for scripts (docs/REPORT-JSON.md): the common keys in
// every view, plus "offcpu" or "locks" for those views. Strings come from
// the profile unchanged, so dump() it with error_handler_t::replace if they
// may hold invalid UTF-8.
nlohmann::json report_json(const Profile& p, const ReportOptions& opt);

// Brendan Gregg's folded format, "root;outer;...;leaf value" per line,
// sorted; the root is the op name, "[user]", "[kernel]" or "[kthread:NAME]".
// oncpu: sampled stacks, value = samples. offcpu: "root;[class];blocked
// frames[;--;waker frames leaf first;waker comm]", value = ns off CPU.
// locks: "root;lock name;frames", value = ns waited.
std::string render_folded(const Profile& p, const ReportOptions& opt);

}  // namespace fscost
