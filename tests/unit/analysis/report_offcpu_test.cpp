// The off-CPU view: text, JSON and folded stacks of the full profile.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "full_fixture.h"
#include "views/offcpu_view.h"
#include "report/report.h"

namespace fscost {
namespace {

using nlohmann::json;
using test::full_profile;

ReportOptions offcpu(std::optional<std::string> op = std::nullopt) {
  return test::view_options("offcpu", std::move(op));
}

using test::has_line;

TEST(OffCpuView, ClassesAndTopStacks) {
  ReportOptions opt = offcpu();
  opt.top_stacks = 2;
  OffCpuView v = build_offcpu_view(full_profile(), opt);
  ASSERT_EQ(v.ops.size(), 4u);
  const OffCpuOp& c = v.ops[0];
  EXPECT_EQ(c.stats.name, "create");
  EXPECT_EQ(c.by_class, (ClassNs{4'000'000, 0, 50'000'000, 0, 30'000'000, 6'000'000}));
  EXPECT_EQ(c.stacks_ns, 90'000'000u);
  ASSERT_EQ(c.top_stacks.size(), 2u);
  EXPECT_EQ(c.top_stacks[0].wait_class, "log-reserve");
  EXPECT_EQ(c.top_stacks[0].waker, "xfsaild/loop0");
  EXPECT_EQ(c.top_stacks[1].wait_class, "runqueue");
  EXPECT_EQ(v.ops[1].by_class, (ClassNs{0, 10'000'000, 0, 40'000'000, 0, 0}));
  EXPECT_TRUE(v.ops[3].top_stacks.empty());  // fsync: samples only
  ASSERT_EQ(v.background.size(), 2u);
  EXPECT_EQ(v.background[0].name, "xfsaild/loop0");
  EXPECT_EQ(v.background[0].count, 30u);
  EXPECT_EQ(v.background[1].by_class[1], 20'000'000u);
}

TEST(OffCpuView, DuplicateStacksMerge) {
  Profile p = full_profile();
  p.offcpu.push_back(p.offcpu[3]);  // the lock wait again
  OffCpuView v = build_offcpu_view(p, offcpu("create"));
  ASSERT_EQ(v.ops.size(), 1u);
  EXPECT_EQ(v.ops[0].by_class[0], 8'000'000u);
  ASSERT_EQ(v.ops[0].top_stacks.size(), 4u);
  EXPECT_EQ(v.ops[0].top_stacks[2].wait_class, "lock");
  EXPECT_EQ(v.ops[0].top_stacks[2].count, 600u);
  EXPECT_EQ(wait_class_index("log-force"), 3u);
  EXPECT_EQ(wait_class_index("bogus"), 5u);
}

TEST(OffCpuView, OpWithOnlyOffCpuDataGetsARow) {
  Profile p;  // a rename blocked but never completed during the recording
  p.offcpu = {{SampleKind::Op, "rename", "io", {"io_schedule"}, {}, "", 1, 5}};
  OffCpuView v = build_offcpu_view(p, offcpu());
  ASSERT_EQ(v.ops.size(), 1u);
  EXPECT_EQ(v.ops[0].stats.name, "rename");
  EXPECT_EQ(v.ops[0].stats.count, 0u);
  EXPECT_EQ(v.ops[0].by_class[1], 5u);
}

TEST(ReportOffCpu, TableAndAgreement) {
  std::string t = render_text(full_profile(), offcpu());
  EXPECT_TRUE(has_line(t,
                       "operation     count   on-CPU  off-CPU     wall    lock      io "
                       "log-reserve log-force runqueue   sleep"))
      << t;
  EXPECT_TRUE(has_line(t,
                       "create         1000    500.0    100.0    600.0     4.0     0.0        "
                       "50.0       0.0     30.0     6.0"))
      << t;
  EXPECT_TRUE(has_line(t,
                       "fsync             0        -        -        -       -       -       "
                       "    -         -        -       -"))
      << t;
  EXPECT_TRUE(has_line(t, "  create: on+off = 100.0% of wall; stacks cover 90.0% of off-CPU")) << t;
  EXPECT_TRUE(has_line(t, "  other: on+off = 98.3% of wall; stacks cover 0.0% of off-CPU")) << t;
  EXPECT_TRUE(has_line(t, "  fsync: on+off = - of wall; stacks cover - of off-CPU")) << t;
  EXPECT_EQ(t.find("top kernel stacks"), std::string::npos) << "not the on-CPU view";
}

TEST(ReportOffCpu, StacksWithWakers) {
  ReportOptions opt = offcpu("unlink");
  std::string t = render_text(full_profile(), opt);
  EXPECT_NE(t.find("unlink: 50.000 ms off CPU in stacks\n"
                   "  40.000 ms (80.0%), 40 intervals, log-force\n"
                   "      schedule\n"
                   "      xlog_wait_on_iclog\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("      entry_SYSCALL_64\n"
                   "    woken by kworker/u8:1 running xlog_ioend_work (leaf first, up to 3 frames):\n"
                   "      try_to_wake_up\n"
                   "      __wake_up\n"
                   "      xlog_state_do_callback\n"
                   "  10.000 ms (20.0%), 5 intervals, io\n"),
            std::string::npos)
      << t;
  EXPECT_TRUE(has_line(t, "    waker unknown")) << t;
  EXPECT_EQ(t.find("\ncreate"), std::string::npos) << t;
  // Kernel threads are shown whatever --op says, like background samples.
  EXPECT_TRUE(has_line(t,
                       "  xfsaild/loop0               30   1500.000   0.000   0.000       "
                       "0.000     0.000    0.000 1500.000"))
      << t;
}

TEST(ReportOffCpu, NotRecorded) {
  std::string t = render_text(test::sample_profile(), offcpu());
  EXPECT_TRUE(has_line(t, "off-CPU time: not recorded in this profile")) << t;
  EXPECT_TRUE(has_line(t, "drops:")) << t;
  json j = report_json(test::sample_profile(), offcpu());
  EXPECT_EQ(j["offcpu"]["recorded"], false);
}

TEST(ReportOffCpu, Json) {
  json j = report_json(full_profile(), offcpu())["offcpu"];
  EXPECT_EQ(j["recorded"], true);
  EXPECT_EQ(j["classes"], json({"lock", "io", "log-reserve", "log-force", "runqueue", "sleep"}));
  const json& c = j["ops"][0];
  EXPECT_EQ(c["name"], "create");
  EXPECT_EQ(c["count"], 1000);
  EXPECT_DOUBLE_EQ(c["oncpu_ns_per_op"].get<double>(), 500'000.0);
  EXPECT_DOUBLE_EQ(c["offcpu_ns_per_op"].get<double>(), 100'000.0);
  EXPECT_DOUBLE_EQ(c["wall_ns_per_op"].get<double>(), 600'000.0);
  EXPECT_DOUBLE_EQ(c["on_off_wall_ratio"].get<double>(), 1.0);
  EXPECT_EQ(c["class_ns_total"]["log-reserve"], 50'000'000);
  EXPECT_DOUBLE_EQ(c["class_ns_per_op"]["runqueue"].get<double>(), 30'000.0);
  EXPECT_EQ(c["stacks_ns_total"], 90'000'000);
  EXPECT_DOUBLE_EQ(c["stack_coverage"].get<double>(), 0.9);
  ASSERT_EQ(c["top_stacks"].size(), 4u);
  const json& s = c["top_stacks"][0];
  EXPECT_EQ(s["wait_class"], "log-reserve");
  EXPECT_EQ(s["waker"], "xfsaild/loop0");
  EXPECT_EQ(s["waker_frames"].back(), "try_to_wake_up");  // outermost first, like frames
  EXPECT_EQ(s["waker_work"], "");  // xfsaild is a thread, not a workqueue worker
  // unlink's log-force sleep was ended by a kworker: named by the work it ran.
  const json& u = j["ops"][1]["top_stacks"][0];
  EXPECT_EQ(u["waker"], "kworker/u8:1");
  EXPECT_EQ(u["waker_work"], "xlog_ioend_work");
  EXPECT_EQ(s["frames"].front(), "entry_SYSCALL_64");
  EXPECT_EQ(s["count"], 100);
  EXPECT_EQ(s["total_ns"], 50'000'000);
  const json& fsync = j["ops"][3];
  EXPECT_TRUE(fsync["on_off_wall_ratio"].is_null());
  EXPECT_TRUE(fsync["stack_coverage"].is_null());
  EXPECT_TRUE(fsync["class_ns_per_op"]["lock"].is_null());
  EXPECT_EQ(j["kthreads"][0], json({{"name", "xfsaild/loop0"},
                                    {"count", 30},
                                    {"total_ns", 1'500'000'000},
                                    {"class_ns_total",
                                     {{"lock", 0},
                                      {"io", 0},
                                      {"log-reserve", 0},
                                      {"log-force", 0},
                                      {"runqueue", 0},
                                      {"sleep", 1'500'000'000}}}}));
}

TEST(ReportOffCpu, Folded) {
  Profile p;
  p.offcpu = {
      {SampleKind::Op, "create", "lock", {"a", "b;c"}, {"w1", "w2"}, "fsops", 3, 300},
      {SampleKind::Op, "create", "lock", {"a", "b;c"}, {"w1", "w2"}, "fsops", 1, 100},
      {SampleKind::Op, "create", "runqueue", {"a"}, {}, "", 1, 50},
      {SampleKind::Op, "create", "io", {"a"}, {"w"}, "", 1, 7},
      {SampleKind::Op, "create", "sleep", {"never"}, {}, "", 1, 0},
      {SampleKind::Kthread, "xfsaild/loop0", "sleep", {"k"}, {}, "", 1, 9},
  };
  EXPECT_EQ(render_folded(p, offcpu()),
            "[kthread:xfsaild/loop0];[sleep];k 9\n"
            "create;[io];a;--;w;[unknown waker] 7\n"
            "create;[lock];a;b:c;--;w2;w1;fsops 400\n"
            "create;[runqueue];a 50\n");
  EXPECT_EQ(render_folded(p, offcpu("create")).find("kthread"), std::string::npos);
  EXPECT_EQ(render_folded(p, offcpu("unlink")), "");
}

}  // namespace
}  // namespace fscost
