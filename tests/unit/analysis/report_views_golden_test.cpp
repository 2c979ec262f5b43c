// Golden files for every view of the full profile, in every format.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "full_fixture.h"
#include "report.h"

namespace fscost {
namespace {

ReportOptions view(const std::string& name) {
  ReportOptions opt;
  opt.view = name;
  return opt;
}

TEST(ReportViewsGolden, Text) {
  for (auto v : kReportViews) {
    std::string name(v);
    test::expect_golden("full-report-" + name + ".txt",
                        render_text(test::full_profile(), view(name)));
  }
}

TEST(ReportViewsGolden, Json) {
  for (auto v : kReportViews) {
    std::string name(v);
    test::expect_golden("full-report-" + name + ".json",
                        report_json(test::full_profile(), view(name)).dump(2) + "\n");
  }
}

TEST(ReportViewsGolden, Folded) {
  for (auto v : kReportViews) {
    std::string name(v);
    test::expect_golden("full-" + name + ".folded",
                        render_folded(test::full_profile(), view(name)));
  }
}

}  // namespace
}  // namespace fscost
