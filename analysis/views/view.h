// What a report, a flame graph or a diff looks at, and the options every
// profile view takes.
#pragma once

#include <fmt/format.h>

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "model/profile.h"
#include "model/result.h"

namespace fscost {

// Where operations spend CPU (with XFS counters), why they wait off CPU,
// or which locks they contend on.
enum class View { OnCpu, OffCpu, Locks };
inline constexpr std::array<View, 3> kViews = {View::OnCpu, View::OffCpu, View::Locks};

// "oncpu", "offcpu", "locks": the --view argument and the JSON key.
std::string_view view_name(View v);
// "On-CPU", "Off-CPU", "Lock wait": titles.
std::string_view view_title(View v);
// The view --view names; an error listing the valid ones for any other.
Result<View> parse_view(std::string_view name);

struct ReportOptions {
  std::optional<std::string> op;  // --op: only this operation's rows, stacks and lines
  std::size_t top_stacks = 5;     // kernel (or off-CPU) stacks shown per operation
  View view = View::OnCpu;
};

// Rejects an --op that names no operation in model/operations.h ("none"
// included). A known operation without data in this profile is fine.
Result<std::monostate> validate_report_options(const Profile& p, const ReportOptions& opt);

}  // namespace fscost

// Formats as view_name: "oncpu", "offcpu", "locks".
template <>
struct fmt::formatter<fscost::View> : fmt::formatter<std::string_view> {
  template <typename Ctx>
  auto format(fscost::View v, Ctx& ctx) const {
    return fmt::formatter<std::string_view>::format(fscost::view_name(v), ctx);
  }
};
