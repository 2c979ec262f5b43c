#include "views/view.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "model/operations.h"

namespace fscost {

std::string_view view_name(View v) {
  switch (v) {
    case View::OnCpu:
      return "oncpu";
    case View::OffCpu:
      return "offcpu";
    case View::Locks:
      return "locks";
  }
  return "oncpu";
}

std::string_view view_title(View v) {
  switch (v) {
    case View::OnCpu:
      return "On-CPU";
    case View::OffCpu:
      return "Off-CPU";
    case View::Locks:
      return "Lock wait";
  }
  return "On-CPU";
}

Result<View> parse_view(std::string_view name) {
  for (View v : kViews)
    if (view_name(v) == name) return v;
  std::vector<std::string_view> names;
  for (View v : kViews) names.push_back(view_name(v));
  return Error{fmt::format("unknown view '{}'", name),
               fmt::format("valid views: {}", fmt::join(names, ", "))};
}

Result<std::monostate> validate_report_options(const Profile&, const ReportOptions& opt) {
  if (opt.op && !op_from_name(*opt.op)) {
    std::vector<std::string_view> valid(kOpNames.begin() + 1, kOpNames.end());  // not "none"
    return Error{fmt::format("unknown operation '{}'", *opt.op),
                 fmt::format("valid operations: {}", fmt::join(valid, ", "))};
  }
  return std::monostate{};
}

}  // namespace fscost
