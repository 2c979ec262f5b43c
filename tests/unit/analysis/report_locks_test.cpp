// The lock view: text, JSON and folded stacks of the full profile.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "full_fixture.h"
#include "views/lock_view.h"
#include "report/report.h"

namespace fscost {
namespace {

using nlohmann::json;
using test::full_profile;

ReportOptions locks(std::optional<std::string> op = std::nullopt) {
  return test::view_options("locks", std::move(op));
}

using test::has_line;

TEST(LockView, RowsPerOpAndKthreads) {
  LockView v = build_lock_view(full_profile(), locks());
  ASSERT_EQ(v.ops.size(), 4u);
  EXPECT_EQ(v.ops[0].stats.name, "create");
  EXPECT_EQ(v.ops[0].rows.size(), 4u);
  EXPECT_EQ(v.ops[0].spin.rwsem_spin_samples, 4u);
  EXPECT_EQ(v.ops[1].rows.size(), 1u);
  EXPECT_TRUE(v.ops[2].rows.empty());
  ASSERT_EQ(v.background.size(), 3u);
  EXPECT_EQ(v.background[0].name, "CIL context lock (xlog_cil_push_work)");
  EXPECT_EQ(v.background[1].name, "__flush_workqueue lock");
  EXPECT_EQ(v.background[1].type, "mutex (spun)");
  EXPECT_EQ(v.background[2].name, "lock#8");
  // --op narrows the operations, never the kernel threads.
  LockView u = build_lock_view(full_profile(), locks("unlink"));
  ASSERT_EQ(u.ops.size(), 1u);
  EXPECT_EQ(u.background.size(), 3u);
}

TEST(ReportLocks, PerOpTable) {
  std::string t = render_text(full_profile(), locks());
  EXPECT_TRUE(has_line(t, "create: 1000 operations, 4 locks")) << t;
  EXPECT_TRUE(has_line(t,
                       "  cont/op  wait µs/op  spin µs/op  sleep µs/op    opt µs/op   max µs  addrs  "
                       "type           mode   lock"))
      << t;
  EXPECT_TRUE(has_line(t,
                       "    0.300         4.0         0.0          4.0          4.0    150.0      2  "
                       "rwsem:W        sleep  i_rwsem (parent dir, open)"))
      << t;
  EXPECT_TRUE(has_line(t,
                       "    0.050         2.0         0.0          2.0          0.0    200.0      1  "
                       "semaphore      sleep  xfs_buf lock (AGI)"))
      << t;
  EXPECT_TRUE(has_line(t, "unlink: 500 operations, 1 lock")) << t;
  EXPECT_TRUE(has_line(t, "other: no lock contention")) << t;
}

TEST(ReportLocks, SpinCheckLines) {
  std::string t = render_text(full_profile(), locks());
  EXPECT_NE(t.find("inode_hash_lock\n"
                   "  spin check: traced spin 0.8 µs/op; on-CPU in spin slow paths 2.0 µs/op "
                   "(2 samples)\n"
                   "    of which native qspinlock slow path 2.0 µs/op (2 samples): its pending-bit "
                   "spin is untraced, so traced spin is a lower bound (docs/LOCKS.md)\n"
                   "  rwsem optimistic spin (invisible to lock:contention_begin, see "
                   "docs/LOCKS.md): 4.0 µs/op (4 samples)\n"
                   "unlink:"),
            std::string::npos)
      << t;
  EXPECT_TRUE(has_line(t,
                       "  spin check: traced spin 0.6 µs/op; on-CPU in spin slow paths 2.0 "
                       "µs/op (1 sample)"))
      << t;
  EXPECT_TRUE(has_line(t,
                       "  spin check: traced spin - µs/op; on-CPU in spin slow paths - µs/op "
                       "(0 samples)"))
      << t;
}

TEST(ReportLocks, KernelThreadsInTotals) {
  std::string t = render_text(full_profile(), locks("create"));
  EXPECT_TRUE(has_line(t, "kernel threads' lock contention (totals)")) << t;
  EXPECT_TRUE(has_line(t,
                       "            4      0.500      0.100      0.400    300.0      1  "
                       "kworker/u8:1       mutex (spun)   both   __flush_workqueue lock"))
      << t;
  EXPECT_EQ(t.find("\nunlink:"), std::string::npos) << t;
}

TEST(ReportLocks, NotRecorded) {
  std::string t = render_text(test::sample_profile(), locks());
  EXPECT_TRUE(has_line(t, "lock contention: not recorded in this profile")) << t;
  json j = report_json(test::sample_profile(), locks());
  EXPECT_EQ(j["locks"]["recorded"], false);
}

// Probed but nothing contended: the spin check still runs (spin the lock
// tracepoints never see, such as the native qspinlock's pending-bit spin,
// shows only in the samples), and nothing says "not recorded".
TEST(ReportLocks, ProbedWithoutContentionIsNoContention) {
  Profile p = full_profile();
  p.locks.clear();
  p.lock_holders.clear();
  p.meta.probes = {"lock:contention_begin (tp_btf)", "lock:contention_end (tp_btf)"};
  std::string t = render_text(p, locks());
  EXPECT_EQ(t.find("not recorded"), std::string::npos) << t;
  EXPECT_TRUE(has_line(t, "unlink: no lock contention")) << t;
  EXPECT_TRUE(has_line(t,
                       "    of which native qspinlock slow path 2.0 µs/op (2 samples): its "
                       "pending-bit spin is untraced, so traced spin is a lower bound (docs/LOCKS.md)"))
      << t;
  EXPECT_EQ(report_json(p, locks())["locks"]["recorded"], true);
  // Absent on the kernel: not recorded.
  p.meta.probes = {"lock:contention_begin (absent)"};
  EXPECT_TRUE(has_line(render_text(p, locks()), "lock contention: not recorded in this profile"));
}

TEST(ReportLocks, Json) {
  json j = report_json(full_profile(), locks())["locks"];
  EXPECT_EQ(j["recorded"], true);
  const json& c = j["ops"][0];
  EXPECT_EQ(c["name"], "create");
  EXPECT_EQ(c["count"], 1000);
  ASSERT_EQ(c["locks"].size(), 4u);
  EXPECT_EQ(c["locks"][0], json({{"name", "i_rwsem (parent dir, open)"},
                                 {"type", "rwsem:W"},
                                 {"mode", "sleep"},
                                 {"count", 300},
                                 {"total_ns", 4'000'000},
                                 {"max_ns", 150'000},
                                 {"spin_ns", 0},
                                 {"sleep_ns", 4'000'000},
                                 {"addresses", 2},
                                 {"count_per_op", 0.3},
                                 {"wait_ns_per_op", 4000.0},
                                 {"spin_ns_per_op", 0.0},
                                 {"sleep_ns_per_op", 4000.0},
                                 {"optimistic_spin_samples", 4},
                                 {"optimistic_spin_ns_per_op", 4 * 1e9 / 999 / 1000}}));
  const json& spin = c["spin_check"];
  EXPECT_EQ(spin["traced_spin_ns"], 820'000);
  EXPECT_EQ(spin["spin_samples"], 2);
  EXPECT_DOUBLE_EQ(spin["sampled_spin_ns"].get<double>(), 2 * 1e9 / 999);
  EXPECT_EQ(spin["rwsem_spin_samples"], 4);
  EXPECT_DOUBLE_EQ(spin["rwsem_spin_ns"].get<double>(), 4 * 1e9 / 999);
  EXPECT_TRUE(j["ops"][3]["spin_check"]["sampled_spin_ns"].is_number());  // fsync: 0 samples
  ASSERT_EQ(j["kthreads"].size(), 3u);
  EXPECT_EQ(j["kthreads"][2]["thread"], "xfsaild/loop0");
  EXPECT_EQ(j["kthreads"][2]["name"], "lock#8");
  EXPECT_FALSE(j["kthreads"][2].contains("count_per_op"));
}

TEST(ReportLocks, Folded) {
  ReportOptions opt = locks("unlink");
  EXPECT_EQ(render_folded(full_profile(), opt),
            "unlink;log grant head lock;entry_SYSCALL_64;do_syscall_64;__x64_sys_unlink;"
            "do_unlinkat;vfs_unlink;xfs_vfs_unlink;xfs_remove;xfs_trans_alloc;xfs_trans_reserve;"
            "xfs_log_reserve;xlog_grant_head_check;_raw_spin_lock;queued_spin_lock_slowpath "
            "300000\n");
  Profile p;
  LockStat a;
  a.name = "create";
  a.frames = {"f", "down_write"};
  a.total_ns = 5;
  LockStat b = a;
  b.address = 2;  // same role, same stack, other directory: one line
  b.total_ns = 6;
  LockStat k = a;
  k.kind = SampleKind::Kthread;
  k.name = "kworker/0:1";
  k.symbol = "a;b";
  p.locks = {a, b, k};
  EXPECT_EQ(render_folded(p, locks()),
            "[kthread:kworker/0:1];a:b;f;down_write 5\n"
            "create;f lock;f;down_write 11\n");
}

}  // namespace
}  // namespace fscost
