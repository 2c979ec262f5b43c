// Internal to report_json*.cpp: the per-view parts of report_json().
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "model/profile.h"
#include "report/report.h"

namespace fscost::json_parts {

inline nlohmann::json or_null(std::optional<double> v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json offcpu_json(const Profile& p, const ReportOptions& opt);
nlohmann::json locks_json(const Profile& p, const ReportOptions& opt);

}  // namespace fscost::json_parts
