// record --time-functions in the profile and the reports: the rows round-trip,
// a row missing a field is an error naming it, and the reports derive calls
// per operation and time per call from the operation counts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fixture.h"
#include "io/profile_io.h"
#include "report/report.h"

namespace fscost {
namespace {

using nlohmann::json;

Profile timed_profile() {
  Profile p = test::sample_profile();  // create 1000, unlink 500
  p.meta.probes.push_back("fentry/fexit xfs_dialloc");
  p.meta.probes.push_back(
      "fentry/fexit xfs_create (the kernel refused to attach fentry/fexit: ENOTSUPP; x86 "
      "trampolines before Linux 6.6 take at most 6 arguments, none a struct by value)");
  p.meta.drain_ns = 12'345'678;
  p.functions = {{"xfs_dialloc", "create", 1000, 1000, 16'800'000, 207'600},
                 {"xfs_trans_roll", "", 140, 139, 4'970'000, 558'300},
                 {"xfs_trans_roll", "unlink", 250, 250, 12'725'000, 276'200}};
  return p;
}

TEST(FunctionTimes, RoundTrip) {
  Profile p = timed_profile();
  auto back = parse_profile(serialize_profile(p), "mem");
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back.value().functions.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& a = p.functions[i];
    const auto& b = back.value().functions[i];
    EXPECT_EQ(std::tie(a.function, a.op, a.count, a.timed, a.total_ns, a.max_ns),
              std::tie(b.function, b.op, b.count, b.timed, b.total_ns, b.max_ns));
  }
  EXPECT_EQ(back.value().meta.drain_ns, 12'345'678u);
  // Not asked for: not written.
  std::string plain = serialize_profile(test::sample_profile());
  EXPECT_EQ(plain.find("\"functions\""), std::string::npos);
  EXPECT_EQ(plain.find("drain_ns"), std::string::npos);
}

TEST(FunctionTimes, MissingFieldIsAnErrorNamingIt) {
  json doc = json::parse(serialize_profile(timed_profile()));
  doc["functions"][1].erase("timed");
  auto r = parse_profile(doc.dump(), "p.json");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "p.json: functions[1].timed: missing required field");
}

TEST(FunctionTimes, JsonReportDerivesPerOpFigures) {
  json r = report_json(timed_profile(), ReportOptions{});
  const json& rows = r["functions"]["rows"];
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["op_count"], 1000);
  EXPECT_DOUBLE_EQ(rows[0]["calls_per_op"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(rows[0]["ns_per_call"].get<double>(), 16'800.0);
  // Outside any operation: no operation count to divide by.
  EXPECT_EQ(rows[1]["op"], "");
  EXPECT_TRUE(rows[1]["calls_per_op"].is_null());
  EXPECT_TRUE(rows[1]["ns_per_op"].is_null());
  EXPECT_DOUBLE_EQ(rows[1]["ns_per_call"].get<double>(), 4'970'000.0 / 139);
  EXPECT_DOUBLE_EQ(rows[2]["calls_per_op"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(rows[2]["ns_per_op"].get<double>(), 25'450.0);
  ASSERT_EQ(r["functions"]["not_timed"].size(), 1u);
  EXPECT_EQ(r["meta"]["drain_ns"], 12'345'678);
  EXPECT_FALSE(report_json(test::sample_profile(), ReportOptions{}).contains("functions"));
}

TEST(FunctionTimes, TextReportTable) {
  std::string text = render_text(timed_profile(), ReportOptions{});
  EXPECT_NE(text.find("kernel functions (fentry/fexit; entry to return, off-CPU time included)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  xfs_dialloc              create             1000      1.00       16.8"
                      "       16.8      207.6"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  xfs_trans_roll           (outside)           140         -       35.8"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  not timed: fentry/fexit xfs_create (the kernel refused"), std::string::npos);
  EXPECT_EQ(render_text(test::sample_profile(), ReportOptions{}).find("kernel functions"),
            std::string::npos);
}

}  // namespace
}  // namespace fscost
