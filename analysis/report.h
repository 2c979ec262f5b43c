// Reports derived from a profile: text for people, JSON for scripts
// (docs/REPORT-JSON.md), folded stacks for flame graphs.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <variant>

#include "profile.h"
#include "result.h"

namespace fscost {

inline constexpr int kReportSchemaVersion = 1;

struct ReportOptions {
  std::optional<std::string> op;  // --op: only this operation's rows, stacks and lines
  std::size_t top_stacks = 5;     // kernel stacks shown per operation
};

// Rejects an --op that names no operation in operations.h ("none" included).
// A known operation without data in this profile is fine.
Result<std::monostate> validate_report_options(const Profile& p, const ReportOptions& opt);

// Header, rusage, per-op table, consistency check, top stacks, background
// samples and drop counters, as plain text.
std::string render_text(const Profile& p, const ReportOptions& opt);

// The same content for scripts. Strings come from the profile unchanged, so
// dump() it with error_handler_t::replace if they may hold invalid UTF-8.
nlohmann::json report_json(const Profile& p, const ReportOptions& opt);

// Brendan Gregg's folded format, "root;outer;...;leaf count" per line,
// sorted; the root is the op name, "[user]", "[kernel]" or "[kthread:NAME]".
std::string render_folded(const Profile& p, const ReportOptions& opt);

}  // namespace fscost
