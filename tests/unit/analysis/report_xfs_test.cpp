// The XFS part of the on-CPU view, and the fields every view's JSON gains.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "full_fixture.h"
#include "report/report.h"
#include "views/report_view.h"

namespace fscost {
namespace {

using nlohmann::json;
using test::full_profile;

using test::has_line;

TEST(ReportXfs, PerOpCountersAndTransactions) {
  std::string t = render_text(full_profile(), {});
  EXPECT_TRUE(has_line(t, "Filesystem events inside operations (per completed operation)")) << t;
  EXPECT_TRUE(has_line(t, "create: transactions per op: min 2 max 2")) << t;
  EXPECT_TRUE(has_line(t, "  xfs_buf_lock                   3.50/op         3500 in all")) << t;
  EXPECT_TRUE(has_line(t, "  xfs_trans_alloc                1.50/op          750 in all")) << t;
  EXPECT_TRUE(has_line(t, "unlink: transactions per op: min 1 max 2")) << t;
  EXPECT_TRUE(has_line(t, "other: no filesystem events")) << t;
  // After the top stacks, before the background samples.
  EXPECT_LT(t.find("top kernel stacks"), t.find("Filesystem events inside"));
  EXPECT_LT(t.find("Filesystem events inside"), t.find("background samples"));
}

TEST(ReportXfs, BackgroundAndDeviceWrites) {
  std::string t = render_text(full_profile(), {});
  EXPECT_TRUE(has_line(t, "Filesystem events outside tracked operations")) << t;
  EXPECT_TRUE(has_line(t, "  xfs_buf_write                     340")) << t;
  EXPECT_TRUE(has_line(t, "  loop0                         7700000 bytes")) << t;
  EXPECT_TRUE(has_line(
      t, "  5133.3 bytes per operation (7700000 bytes over 1500 operations, \"other\" excluded)"))
      << t;
}

TEST(ReportXfs, OpFilterKeepsDeviceFiguresWhole) {
  ReportOptions opt;
  opt.op = "unlink";
  std::string t = render_text(full_profile(), opt);
  EXPECT_TRUE(has_line(t, "unlink: transactions per op: min 1 max 2")) << t;
  EXPECT_EQ(t.find("create: transactions"), std::string::npos) << t;
  EXPECT_NE(t.find("(7700000 bytes over 1500 operations"), std::string::npos) << t;
}

TEST(ReportXfs, NothingRecorded) {
  std::string t = render_text(test::sample_profile(), {});
  EXPECT_TRUE(has_line(t, "Filesystem events: none recorded")) << t;
  Profile p = test::sample_profile();
  p.device_write_bytes["sda"] = 150'000;
  t = render_text(p, {});
  EXPECT_TRUE(has_line(t, "create: no filesystem events")) << t;
  EXPECT_TRUE(has_line(t, "  none")) << t;
  EXPECT_TRUE(has_line(t,
                       "  100.0 bytes per operation (150000 bytes over 1500 operations, "
                       "\"other\" excluded)"))
      << t;
}

TEST(ReportXfs, JsonInEveryView) {
  for (View v : kViews) {
    ReportOptions opt;
    opt.view = v;
    json j = report_json(full_profile(), opt);
    EXPECT_EQ(j["view"], std::string(view_name(v)));
    const json& c = j["ops"][0];
    ASSERT_EQ(c["name"], "create");
    EXPECT_EQ(c["offcpu_ns_total"], 100'000'000);
    EXPECT_DOUBLE_EQ(c["offcpu_ns_per_op"].get<double>(), 100'000.0);
    EXPECT_EQ(c["fs_events_per_op"],
              json({{"xfs_buf_lock", 3.5}, {"xfs_log_reserve", 2.0}, {"xfs_trans_alloc", 2.0}}));
    EXPECT_EQ(c["trans_min"], 2);
    EXPECT_EQ(c["trans_max"], 2);
    EXPECT_EQ(j["fs_events"]["background"], json({{"xfs_buf_write", 340}, {"xfs_log_force", 12}}));
    EXPECT_EQ(j["fs_events"]["device_write_bytes"], json({{"loop0", 7'700'000}}));
    EXPECT_EQ(j["fs_events"]["device_write_bytes_total"], 7'700'000);
    EXPECT_EQ(j["fs_events"]["fs_ops"], 1500);
    EXPECT_NEAR(j["fs_events"]["device_write_bytes_per_op"].get<double>(), 5133.333, 0.001);
    EXPECT_EQ(j.contains("offcpu"), v == View::OffCpu);
    EXPECT_EQ(j.contains("locks"), v == View::Locks);
  }
}

TEST(ReportXfs, JsonUndefinedPerOpIsNull) {
  Profile p = full_profile();
  p.ops[1].count = 0;
  p.ops = {p.ops[1]};
  json j = report_json(p, {});
  EXPECT_TRUE(j["ops"][0]["offcpu_ns_per_op"].is_null());
  EXPECT_TRUE(j["ops"][0]["fs_events_per_op"]["xfs_trans_alloc"].is_null());
  EXPECT_EQ(j["fs_events"]["fs_ops"], 0);
  EXPECT_TRUE(j["fs_events"]["device_write_bytes_per_op"].is_null());
}

// --view is parsed once, where the command reads it; past that a view is
// an enum and no renderer can be handed an unknown one.
TEST(ReportOptions, UnknownViewIsAnError) {
  auto r = parse_view("offcpu ");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "unknown view 'offcpu '");
  EXPECT_EQ(r.error().hint, "valid views: oncpu, offcpu, locks");
  for (View v : kViews) {
    auto parsed = parse_view(view_name(v));
    ASSERT_TRUE(parsed) << view_name(v);
    EXPECT_EQ(parsed.value(), v);
  }
  EXPECT_EQ(ReportOptions{}.view, View::OnCpu);
}

}  // namespace
}  // namespace fscost

namespace fscost {
namespace {

// 2^64 - 1 bytes on two devices must not sum to 2^64 - 2.
TEST(ReportXfs, DeviceByteSumsSaturateAndSayOverflow) {
  Profile p;
  p.ops = {{"create", 10, 0, 1000, 800}};
  p.ops[0].latency_log2.assign(kLatencyBuckets, 0);
  p.device_write_bytes = {{"loop0", ~0ull}, {"loop1", ~0ull}};
  FsEventSummary x = fs_event_summary(p);
  EXPECT_EQ(x.device_write_bytes_sum, ~0ull);
  EXPECT_FALSE(x.bytes_per_op);
  std::string text = render_text(p, {});
  EXPECT_NE(text.find("overflow: the devices' bytes sum past 2^64"), std::string::npos) << text;
  auto j = report_json(p, {});
  EXPECT_TRUE(j["fs_events"]["device_write_bytes_overflow"].get<bool>());
}

}  // namespace
}  // namespace fscost
