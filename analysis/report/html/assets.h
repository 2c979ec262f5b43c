// analysis/assets/report.{js,css}, embedded at build time by
// analysis/assets/embed.cmake into html_assets.cpp (in the build tree), so
// the HTML report carries its own script and style.
#pragma once

#include <string_view>

namespace fscost::html {

extern const std::string_view kReportJs;
extern const std::string_view kReportCss;

}  // namespace fscost::html
