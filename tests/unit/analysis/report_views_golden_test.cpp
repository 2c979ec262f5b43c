// Golden files for every view of the full profile, in every format.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "full_fixture.h"
#include "report/report.h"

namespace fscost {
namespace {

ReportOptions view(const std::string& name) {
  ReportOptions opt;
  opt.view = take(parse_view(name));
  return opt;
}

TEST(ReportViewsGolden, Text) {
  for (View v : kViews) {
    std::string name(view_name(v));
    test::expect_golden("full-report-" + name + ".txt",
                        render_text(test::full_profile(), view(name)));
  }
}

TEST(ReportViewsGolden, Json) {
  for (View v : kViews) {
    std::string name(view_name(v));
    test::expect_golden("full-report-" + name + ".json",
                        report_json(test::full_profile(), view(name)).dump(2) + "\n");
  }
}

TEST(ReportViewsGolden, Folded) {
  for (View v : kViews) {
    std::string name(view_name(v));
    test::expect_golden("full-" + name + ".folded",
                        render_folded(test::full_profile(), view(name)));
  }
}

}  // namespace
}  // namespace fscost
