// The JSON report: the stable interface scripts read (docs/REPORT-JSON.md).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fixture.h"
#include "report/report.h"
#include "io/syscall_frames.h"

namespace fscost {
namespace {

using nlohmann::json;
using test::sample_profile;

TEST(ReportJson, MatchesGoldenFile) {
  test::expect_golden("sample-report.json", report_json(sample_profile(), {}).dump(2) + "\n");
}

TEST(ReportJson, TopLevel) {
  json j = report_json(sample_profile(), {});
  EXPECT_EQ(j["schema"], "fscost-report");
  EXPECT_EQ(j["version"], 2);
  EXPECT_EQ(j["meta"]["command"], "fsops create 1000");
  EXPECT_EQ(j["meta"]["duration_ns"], 2'000'000'000u);
  EXPECT_EQ(j["rusage"],
            json({{"user_ns", 100'000'000}, {"sys_ns", 800'000'000}, {"wall_ns", 2'100'000'000}}));
  EXPECT_EQ(j["samples_total"], 1000);
  EXPECT_EQ(j["drops"]["stack_map_full"], 3);
  EXPECT_EQ(j["drops"].size(), 6u);
}

TEST(ReportJson, OpFigures) {
  json ops = report_json(sample_profile(), {})["ops"];
  ASSERT_EQ(ops.size(), 4u);
  const json& c = ops[0];
  EXPECT_EQ(c["name"], "create");
  EXPECT_EQ(c["count"], 1000);
  EXPECT_EQ(c["errors"], 2);
  EXPECT_DOUBLE_EQ(c["ops_per_sec"].get<double>(), 500.0);
  EXPECT_EQ(c["oncpu_ns_total"], 500'000'000);
  EXPECT_DOUBLE_EQ(c["oncpu_ns_per_op"].get<double>(), 500'000.0);
  EXPECT_EQ(c["wall_ns_total"], 600'000'000);
  EXPECT_DOUBLE_EQ(c["wall_ns_per_op"].get<double>(), 600'000.0);
  EXPECT_DOUBLE_EQ(c["sys_share"].get<double>(), 0.625);
  ASSERT_EQ(c["latency_log2_ns"].size(), 40u);
  EXPECT_EQ(c["latency_log2_ns"][19], 1000);
  EXPECT_EQ(c["samples"], 500);
  ASSERT_EQ(c["top_stacks"].size(), 3u);
  EXPECT_EQ(c["top_stacks"][0]["samples"], 300);
  EXPECT_EQ(c["top_stacks"][0]["frames"].back(), "xfs_create");  // leaf last
  EXPECT_EQ(c["top_stacks"][0]["frames"].front(), "entry_SYSCALL_64");
  EXPECT_EQ(c["top_stacks"][2]["samples"], 50);
  EXPECT_EQ(ops[1]["name"], "unlink");
  EXPECT_EQ(ops[2]["name"], "other");
}

TEST(ReportJson, UndefinedFiguresAreNull) {
  Profile p = sample_profile();
  p.rusage = {};
  json j = report_json(p, {});
  EXPECT_TRUE(j["rusage"].is_null());
  EXPECT_TRUE(j["ops"][0]["sys_share"].is_null());
  EXPECT_TRUE(j["consistency"]["rusage_sys_ns"].is_null());
  EXPECT_TRUE(j["consistency"]["ratio"].is_null());
  const json& fsync = j["ops"][3];  // samples but no completed call
  EXPECT_EQ(fsync["name"], "fsync");
  EXPECT_EQ(fsync["count"], 0);
  EXPECT_TRUE(fsync["oncpu_ns_per_op"].is_null());
  EXPECT_TRUE(fsync["wall_ns_per_op"].is_null());
  EXPECT_EQ(fsync["samples"], 5);
  EXPECT_EQ(fsync["latency_log2_ns"], json(std::vector<int>(40, 0)));
}

TEST(ReportJson, BackgroundAndConsistency) {
  json j = report_json(sample_profile(), {});
  EXPECT_EQ(j["background"], json({{"user_samples", 80},
                                   {"kernel_samples", 20},
                                   {"kthreads",
                                    {{{"name", "kworker/u8:1"}, {"samples", 30}},
                                     {{"name", "xfsaild/loop0"}, {"samples", 10}}}}}));
  EXPECT_EQ(j["consistency"]["oncpu_ns_sum"], 700'000'000);
  EXPECT_EQ(j["consistency"]["rusage_sys_ns"], 800'000'000);
  EXPECT_DOUBLE_EQ(j["consistency"]["ratio"].get<double>(), 0.875);
}

// [kernel] samples between the syscall entry and the body (or after it):
// time the per-op timestamps cannot cover, counted beside the ratio.
TEST(ReportJson, ConsistencyCountsTheSyscallPathOutsideTheTimestamps) {
  json plain = report_json(sample_profile(), {});
  EXPECT_EQ(plain["consistency"]["syscall_path_samples"], 0);  // a page fault is not the path
  EXPECT_DOUBLE_EQ(plain["consistency"]["ratio_with_syscall_path"].get<double>(), 0.875);

  Profile p = sample_profile();
  p.samples.push_back({SampleKind::Kernel, "fsops",
                       test::stack({"syscall_trace_enter", "__bpf_trace_sys_enter"}), 30});
  p.samples.push_back({SampleKind::Kernel, "fsops", test::stack({"syscall_exit_work"}), 10});
  p.samples.push_back({SampleKind::Kernel, "fsops", test::kSyscall, 2});  // the entry itself
  // A syscall body outside any op (exit never returns to sys_exit): not the path.
  p.samples.push_back(
      {SampleKind::Kernel, "fsops", test::stack({"x64_sys_call", "__x64_sys_exit"}), 7});
  p.samples.push_back({SampleKind::Kernel, "fsops",
                       {"el0_svc", "el0_svc_common", "invoke_syscall", "__arm64_sys_exit"}, 5});
  json c = report_json(p, {})["consistency"];
  EXPECT_EQ(c["syscall_path_samples"], 42);
  const double ns = 42 * 1e9 / p.meta.freq_hz;
  EXPECT_DOUBLE_EQ(c["syscall_path_ns"].get<double>(), ns);
  EXPECT_DOUBLE_EQ(c["ratio_with_syscall_path"].get<double>(), (700e6 + ns) / 800e6);
  EXPECT_DOUBLE_EQ(c["ratio"].get<double>(), 0.875);

  p.meta.freq_hz = 0;  // no frequency: no time for the samples
  c = report_json(p, {})["consistency"];
  EXPECT_EQ(c["syscall_path_samples"], 42);
  EXPECT_TRUE(c["syscall_path_ns"].is_null());
  EXPECT_TRUE(c["ratio_with_syscall_path"].is_null());
}

TEST(SyscallFrames, PathIsTheEntryAndExitAroundABody) {
  struct Case {
    Stack frames;
    bool path;
  };
  const std::vector<Case> cases = {
      {{"entry_SYSCALL_64_after_hwframe", "do_syscall_64", "syscall_trace_enter"}, true},
      {{"entry_SYSCALL_64", "do_syscall_64", "syscall_exit_work", "__bpf_trace_sys_exit"}, true},
      {{"entry_SYSCALL_64_after_hwframe"}, true},  // still in the asm entry
      {{"entry_SYSCALL_64", "do_syscall_64", "x64_sys_call", "__x64_sys_exit_group"}, false},
      {{"entry_SYSCALL_64", "do_syscall_64", "__x64_sys_openat", "do_sys_openat2"}, false},
      {{"entry_SYSCALL_64", "do_syscall_64", "sys_unlink", "do_unlinkat"}, false},  // before 4.17
      {{"entry_INT80_compat", "do_int80_syscall_32", "ia32_sys_call", "__ia32_sys_exit"}, false},
      {{"entry_SYSENTER_compat", "do_fast_syscall_32", "syscall_exit_work"}, true},
      {{"el0t_64_sync", "el0_svc", "do_el0_svc", "el0_svc_common"}, true},
      {{"el0t_64_sync", "el0_svc", "el0_svc_common", "invoke_syscall", "__arm64_sys_exit"}, false},
      {{"el0t_64_sync", "el0_svc", "el0_svc_common", "__arm64_sys_read"}, false},  // inlined
      {{"asm_exc_page_fault", "exc_page_fault", "handle_mm_fault"}, false},
      {{"asm_sysvec_apic_timer_interrupt", "sysvec_apic_timer_interrupt"}, false},
      {{}, false},
  };
  for (const auto& c : cases)
    EXPECT_EQ(is_syscall_path(c.frames), c.path) << fmt::format("{}", fmt::join(c.frames, ";"));
}

TEST(ReportJson, OpFilterAndTopStacks) {
  ReportOptions opt;
  opt.op = "create";
  opt.top_stacks = 2;
  json j = report_json(sample_profile(), opt);
  ASSERT_EQ(j["ops"].size(), 1u);
  EXPECT_EQ(j["ops"][0]["name"], "create");
  EXPECT_EQ(j["ops"][0]["samples"], 500);  // all samples, not just the shown stacks
  EXPECT_EQ(j["ops"][0]["top_stacks"].size(), 2u);
  EXPECT_EQ(j["consistency"]["oncpu_ns_sum"], 700'000'000);
}

}  // namespace
}  // namespace fscost
