// Internal to report_text*.cpp: the shared line helpers and the sections
// each view contributes to render_text().
#pragma once

#include <fmt/format.h>

#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "model/profile.h"
#include "report/report.h"
#include "views/report_view.h"

namespace fscost::text {

template <typename... Args>
void line(std::string& out, fmt::format_string<Args...> f, Args&&... args) {
  fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
  out += '\n';
}

void header(std::string& out, const Profile& p);
void rusage_line(std::string& out, const Rusage& r);
void drops(std::string& out, const std::map<std::string, std::uint64_t>& counters);

// Up to `max` frames, leaf first (as perf report prints call chains), each
// on its own line after `indent`; "[no kernel stack]" if there are none.
void frames_leaf_first(std::string& out, const std::vector<std::string>& frames, std::size_t max,
                       std::string_view indent);

// The body of each view, between the header and the drop counters.
void oncpu_sections(std::string& out, const Profile& p, const ReportOptions& opt);
void fs_event_sections(std::string& out, const Profile& p, const std::vector<OpRow>& rows);
// record --time-functions: per function and operation; nothing without it.
void function_sections(std::string& out, const Profile& p);
void offcpu_sections(std::string& out, const Profile& p, const ReportOptions& opt);
void lock_sections(std::string& out, const Profile& p, const ReportOptions& opt);

}  // namespace fscost::text
