// The work around the ops' own CPU: kernel-thread CPU diffed per workqueue
// and work function (the frame process_one_work called), with the count
// test, and named on the first screen — the README demo's rmapbt cost is
// xfs-conv's xfs_end_io and the flusher's wb_workfn (docs/COMPARE.md "The
// demo"); and XFS events per op, exact, such as a second commit per create.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "diff/diff.h"
#include "model/frame_match.h"
#include "diff_fixture.h"
#include "report/diff_report.h"

namespace fscost::test {
namespace {

const Stack kWorker = {"ret_from_fork", "kthread", "worker_thread", "process_one_work"};

void add_work(RunSet& s, const std::string& wq, const std::string& fn, std::uint64_t samples) {
  for (auto& p : s.runs)
    p.samples.push_back({SampleKind::Kthread, wq, frames_of(kWorker, {fn, "xfs_rmap_map"}), samples});
}

// The diff's kernel-thread buckets by name.
std::map<std::string, const BackgroundDiff*> buckets(const Diff& d) {
  std::map<std::string, const BackgroundDiff*> by;
  for (const auto& bg : d.background) by[bg.name] = &bg;
  return by;
}

TEST(DiffBackground, WorkFunctionsAreComparedAndTheChangedOnesNamed) {
  RunSet a = make_runs(base_spec(), 5, 100, "A"), b = make_runs(base_spec(), 5, 200, "B");
  add_work(a, "xfs-conv/loop0", "xfs_end_io", 100);   // 10 ms a run at 10 kHz
  add_work(b, "xfs-conv/loop0", "xfs_end_io", 600);   // 60 ms
  add_work(a, "xfs-cil/loop0", "xlog_cil_push_work", 300);
  add_work(b, "xfs-cil/loop0", "xlog_cil_push_work", 300);
  // process_one_work's own lock is no work function.
  add_work(b, "xfs-conv/loop0", "_raw_spin_unlock_irq", 1);
  Diff d = diff_runs(a, b);
  auto by = buckets(d);
  ASSERT_TRUE(by.contains("xfs-conv/loop0: xfs_end_io"));
  ASSERT_TRUE(by.contains("xfs-cil/loop0: xlog_cil_push_work"));
  ASSERT_TRUE(by.contains("xfs-conv/loop0"));
  EXPECT_FALSE(by.contains("xfs-conv/loop0: _raw_spin_unlock_irq"));
  const Comparison& conv = by["xfs-conv/loop0: xfs_end_io"]->cpu;
  EXPECT_EQ(conv.test, StatTest::Counts);
  EXPECT_NEAR(conv.delta(), 50e6, 1);
  EXPECT_TRUE(conv.significant());
  EXPECT_FALSE(by["xfs-cil/loop0: xlog_cil_push_work"]->cpu.significant());
  EXPECT_EQ(d.background.front().name, "xfs-conv/loop0: xfs_end_io");  // by |Δ|
  std::string text = render_diff_text(d);
  auto at = text.find("kernel threads CPU per run: xfs-conv/loop0: xfs_end_io +50.0 ms (6.0× A");
  EXPECT_NE(at, std::string::npos) << text;
  EXPECT_LT(at, text.find(std::string(72, '-')));
  EXPECT_EQ(text.find("xlog_cil_push_work +"), std::string::npos) << "n.s. is no reason";
  auto j = diff_json(d);
  EXPECT_EQ(j["background"][0]["name"], "xfs-conv/loop0: xfs_end_io");
  EXPECT_EQ(j["background"][0]["cpu_ns"]["test"], "quasi-poisson");
  // The HTML draws the kernel threads' own differential flame graph, per
  // run, the changed bucket's root coloured.
  std::string html = render_diff_html(d, a, b);
  EXPECT_NE(html.find("id=\"graphs-kernel-threads-oncpu\""), std::string::npos);
  EXPECT_NE(html.find("Differential on-CPU flame graph: kernel threads, per run"), std::string::npos);
  EXPECT_NE(html.find("[kthread:xfs-conv/loop0]"), std::string::npos);
}

}  // namespace
}  // namespace fscost::test

namespace fscost::test {
namespace {

// XFS events per op are exact counts, compared per op; a second commit per
// create (parent pointers' transaction roll) is named on the first screen.
TEST(DiffXfsEvents, ASecondCommitPerCreateIsNamed) {
  ConfigSpec b_spec = base_spec();
  inject_new_code(b_spec);
  RunSet a = make_runs(base_spec(), 5, 100, "A"), b = make_runs(b_spec, 5, 200, "B");
  for (auto* s : {&a, &b})
    for (std::size_t i = 0; i < s->runs.size(); ++i)
      for (auto& o : s->runs[i].ops)
        if (o.name == "create") {
          o.fs_events["xfs_trans_commit"] = o.count * (s == &a ? 1 : 2) + i;
          o.fs_events["xfs_log_regrant"] = s == &a ? 1 + i % 2 : 0;  // rare: no reason
          // 1% more, steadily: significant, and no reason either.
          o.fs_events["xfs_trans_alloc"] = o.count * (s == &a ? 100 : 101) / 100;
        }
  Diff d = diff_runs(a, b);
  const OpDiff* create = nullptr;
  for (const auto& o : d.ops)
    if (o.op == "create") create = &o;
  ASSERT_NE(create, nullptr);
  ASSERT_TRUE(create->fs_events.contains("xfs_trans_commit"));
  const Comparison& c = create->fs_events.at("xfs_trans_commit");
  EXPECT_TRUE(c.significant());
  EXPECT_NEAR(c.sb.mean / c.sa.mean, 2.0, 0.01);
  std::string text = render_diff_text(d);
  auto at = text.find("filesystem events per op: xfs_trans_commit 1 -> 2.");
  EXPECT_NE(at, std::string::npos) << text;
  EXPECT_LT(at, text.find(std::string(72, '-')));
  EXPECT_EQ(text.substr(0, text.find(std::string(72, '-'))).find("xfs_log_regrant"),
            std::string::npos);
  EXPECT_TRUE(create->fs_events.at("xfs_trans_alloc").significant());
  EXPECT_EQ(text.substr(0, text.find(std::string(72, '-'))).find("xfs_trans_alloc"),
            std::string::npos);
  EXPECT_TRUE(diff_json(d)["ops"][0]["fs_events"].contains("xfs_trans_commit"));
}

}  // namespace
}  // namespace fscost::test

namespace fscost::test {
namespace {

TEST(WorkFunction, TheFrameProcessOneWorkCalled) {
  std::vector<std::string> end_io = {"ret_from_fork", "kthread", "worker_thread",
                                     "process_one_work", "xfs_end_io", "xfs_end_ioend"};
  EXPECT_EQ(work_function(end_io), "xfs_end_io");
  // Interned frames read the same.
  EXPECT_EQ(work_function(frames_of(kWorker, {"wb_workfn.cold"})), "wb_workfn");
  // flush_work's barrier tail-calls complete().
  EXPECT_EQ(work_function(frames_of(kWorker, {"complete", "swake_up_locked"})), "wq_barrier_func");
  // The worker's own bookkeeping, and a thread that is no worker, have none.
  EXPECT_EQ(work_function(frames_of(kWorker, {"_raw_spin_unlock_irq"})), "");
  EXPECT_EQ(work_function(frames_of(kWorker, {"__cond_resched", "__schedule"})), "");
  EXPECT_EQ(work_function(std::vector<std::string>{"ret_from_fork", "kthread", "xfsaild"}), "");
}

}  // namespace
}  // namespace fscost::test

namespace fscost::test {
namespace {

// Bytes written to the test device only (the one in the setup's mkfs
// command), not the machine's other disks.
TEST(DiffDeviceBytes, TheTestDeviceAlone) {
  RunSet a = make_runs(base_spec(), 5, 100, "A"), b = make_runs(base_spec(), 5, 200, "B");
  for (auto* s : {&a, &b})
    for (std::size_t i = 0; i < s->runs.size(); ++i) {
      Profile& p = s->runs[i];
      p.setup["device"] = "loop3";
      p.device_write_bytes = {{"loop3", (s == &a ? 100 : 150) * 1048576ull + i * 1000},
                              {"vda", 999 * 1048576ull}};
    }
  Diff d = diff_runs(a, b);
  EXPECT_EQ(d.device_bytes.unit, "B");
  EXPECT_NEAR(d.device_bytes.delta(), 50 * 1048576.0, 1);
  EXPECT_TRUE(d.device_bytes.significant());
  std::string text = render_diff_text(d);
  EXPECT_NE(text.find("test device writes per run: +50.0 MiB (1.5× A"), std::string::npos) << text;
  // Without a setup (profiles not made by compare) there is no figure.
  Diff none = diff_runs(make_runs(base_spec(), 3, 1, "A"), make_runs(base_spec(), 3, 9, "B"));
  EXPECT_EQ(none.device_bytes.sa.n, 0u);
  EXPECT_EQ(render_diff_text(none).find("test device writes"), std::string::npos);
}

}  // namespace
}  // namespace fscost::test

namespace fscost::test {
namespace {

// The first screen's text with its line wraps undone.
std::string flat(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      out += text[i];
      continue;
    }
    while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
    out += ' ';
  }
  return out;
}

// Kernel threads' waits and XFS events per bucket and work function, like
// their CPU; the test filesystem's buckets (named by its device) apart from
// other kernel work.
TEST(DiffBackground, WaitsAndXfsEventsPerWorkFunction) {
  RunSet a = make_runs(base_spec(), 5, 100, "A"), b = make_runs(base_spec(), 5, 200, "B");
  for (auto* s : {&a, &b})
    for (std::size_t i = 0; i < s->runs.size(); ++i) {
      Profile& p = s->runs[i];
      bool in_b = s == &b;
      p.setup["device"] = "loop0";
      // xfs-conv's workers wait on the AGF buffer lock 4 ms a run in A, 30 ms in B.
      p.offcpu.push_back({SampleKind::Kthread, "xfs-conv/loop0: xfs_end_io", "lock",
                          frames_of(kWorker, {"xfs_end_io", "xfs_buf_lock", "schedule"}), {}, "",
                          10, (in_b ? 30 : 4) * 1000000ull + i * 10000});
      // the flusher sleeps 2 ms a run on an rwsem in A, 20 ms in B
      p.locks.push_back({SampleKind::Kthread, "writeback", 0x1000, "", 2 | 32,
                         frames_of(kWorker, {"wb_workfn", "down_read"}), 5,
                         (in_b ? 20 : 2) * 1000000ull + i * 1000, 0, 0, 0});
      p.kthread_fs_events["xfs-conv/loop0: xfs_end_io"] = {
          {"xfs_trans_commit", (in_b ? 20000 : 10000) + i}};
      p.kthread_fs_events["writeback: wb_workfn"] = {{"xfs_trans_commit", 10000 + i}};
    }
  add_work(a, "xfs-conv/loop0", "xfs_end_io", 100);
  add_work(b, "xfs-conv/loop0", "xfs_end_io", 600);
  add_work(a, "writeback", "wb_workfn", 300);
  add_work(b, "writeback", "wb_workfn", 900);
  Diff d = diff_runs(a, b);
  auto by = buckets(d);
  ASSERT_TRUE(by.contains("xfs-conv/loop0: xfs_end_io"));
  ASSERT_TRUE(by.contains("writeback: wb_workfn"));
  const BackgroundDiff& conv = *by["xfs-conv/loop0: xfs_end_io"];
  const BackgroundDiff& wb = *by["writeback: wb_workfn"];
  EXPECT_TRUE(conv.test_fs);
  EXPECT_FALSE(wb.test_fs);
  EXPECT_NEAR(conv.offcpu.delta(), 26e6, 1);
  EXPECT_TRUE(conv.offcpu.significant());
  EXPECT_NEAR(wb.lock_wait.sa.mean, 2.002e6, 1);
  EXPECT_TRUE(wb.lock_wait.significant());
  EXPECT_FALSE(wb.top_lock.empty());
  EXPECT_NEAR(wb.top_lock_share, 1, 1e-9);
  ASSERT_EQ(conv.fs_events.size(), 1u);
  EXPECT_TRUE(conv.fs_events[0].second.significant());
  EXPECT_FALSE(wb.fs_events[0].second.significant());
  // Only xfs-conv is the test filesystem's: 10 ms → 60 ms of its CPU (the
  // fixture's own few kernel-thread samples besides).
  EXPECT_NEAR(d.fs_kthread_ns.delta(), 50e6, 0.5e6);
  EXPECT_GT(d.families.background, 0u);
  std::string text = render_diff_text(d);
  std::string first = flat(text.substr(0, text.find(std::string(72, '-'))));
  EXPECT_NE(first.find("writeback: wb_workfn (other kernel work) +60.0 ms"), std::string::npos)
      << first;
  EXPECT_NE(first.find("kernel threads waiting per run (summed over their workers): "
                       "xfs-conv/loop0: xfs_end_io off CPU "
                       "+26.0 ms (7.5× A"),
            std::string::npos)
      << first;
  EXPECT_NE(first.find("xfs-conv/loop0: xfs_end_io xfs_trans_commit 10002 -> 20002"),
            std::string::npos)
      << first;
  EXPECT_NE(first.find("writeback: wb_workfn (other kernel work) in locks +18.0 ms (10.0× A, CI "
                       "+18.0..+18.0), 100% of it on " + wb.top_lock),
            std::string::npos)
      << first;
  EXPECT_EQ(first.find("xfs-conv/loop0: xfs_end_io in locks"), std::string::npos) << "none";
  auto j = diff_json(d);
  bool seen = false;
  for (const auto& bg : j["background"])
    if (bg["name"] == "xfs-conv/loop0: xfs_end_io") {
      seen = true;
      EXPECT_TRUE(bg["test_fs"].get<bool>());
      EXPECT_NEAR(bg["offcpu_ns"]["delta"].get<double>(), 26e6, 1);
      EXPECT_TRUE(bg["fs_events"].contains("xfs_trans_commit"));
    }
  EXPECT_TRUE(seen);
  EXPECT_NEAR(j["totals"]["fs_kthread_ns"]["delta"].get<double>(), d.fs_kthread_ns.delta(), 1);
}

// The test device's writes by kind, the dirty data a run left, and the
// tracer's own cost per op.
TEST(DiffDeviceBytes, ByKindDirtyDataAndTracerCost) {
  RunSet a = make_runs(base_spec(), 5, 100, "A"), b = make_runs(base_spec(), 5, 200, "B");
  for (auto* s : {&a, &b})
    for (std::size_t i = 0; i < s->runs.size(); ++i) {
      Profile& p = s->runs[i];
      bool in_b = s == &b;
      p.setup["device"] = "loop0";
      p.setup["tracer_ns_per_op"] = in_b ? "950" : "900";
      std::uint64_t log = (in_b ? 30 : 10) * 1048576ull + i * 4096;
      p.fs_write_bytes = {{"data", 100 * 1048576ull + i * 4096}, {"log", log}};
      p.device_write_bytes = {{"loop0", 100 * 1048576ull + log}};
      // B's third run left 20 MiB for a syncfs after it.
      p.setup["written_after_bytes"] = in_b && i == 2 ? "20971520" : "4096";
    }
  Diff d = diff_runs(a, b);
  ASSERT_EQ(d.device_bytes_by_kind.size(), 3u);
  std::map<std::string, const Comparison*> kind;
  for (const auto& [k, c] : d.device_bytes_by_kind) kind[k] = &c;
  EXPECT_TRUE(kind["log"]->significant());
  EXPECT_NEAR(kind["log"]->delta(), 20 * 1048576.0, 1);
  EXPECT_EQ(kind["metadata"]->sa.mean, 0);
  EXPECT_EQ(d.tracer_a, 900);
  EXPECT_EQ(d.tracer_b, 950);
  std::string text = render_diff_text(d);
  std::string first = flat(text.substr(0, text.find(std::string(72, '-'))));
  // The probes' cost is below the line: 50 ns is no fifth of any change
  // on the screen (there is none on-CPU).
  EXPECT_NE(flat(text).find("fscost's probes: 900 ns per traced op in A, 950 ns in B (bpf_stats "
                            "of the warm-up runs); up to 50.0 ns/op of a delta could be theirs."),
            std::string::npos)
      << text;
  EXPECT_EQ(first.find("fscost's probes"), std::string::npos) << first;
  EXPECT_NE(first.find("test device writes per run: +20.0 MiB (1.2× A, CI +20.0..+20.0): log "
                       "+20.0 MiB."),
            std::string::npos)
      << first;
  EXPECT_NE(first.find("left dirty data behind (run3.profile 20.0 MiB"), std::string::npos)
      << first;
  EXPECT_EQ(first.find("A: 1 of 5 runs left dirty"), std::string::npos);
  auto j = diff_json(d);
  EXPECT_EQ(j["tracer_ns_per_op"]["a"], 900);
  EXPECT_TRUE(j["totals"]["device_write_bytes_by_kind"].contains("log"));
  bool dirty = false;
  for (const auto& w : j["warnings"]) dirty |= w["kind"] == "dirty";
  EXPECT_TRUE(dirty);
}

}  // namespace
}  // namespace fscost::test
