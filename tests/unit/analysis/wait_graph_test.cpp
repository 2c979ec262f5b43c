// The wait-for graph (views/wait_graph.h) on hand-built profiles: the
// ENOSPC chain from a create's i_rwsem wait to the flush worker, the
// heaviest holder chosen, and a cycle reported rather than looped on.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "diff/diff.h"
#include "report/diff_report.h"
#include "views/stacks.h"
#include "views/wait_graph.h"

#include <algorithm>

namespace fscost {
namespace {

Stack stack(std::initializer_list<const char*> frames) {
  Stack s;
  for (const char* f : frames) s.emplace_back(f);
  return s;
}

const Stack kCreateWait = stack({"entry_SYSCALL_64", "do_sys_openat2", "path_openat", "open_last_lookups",
                                 "down_write", "rwsem_down_write_slowpath"});
const Stack kFlushSleep = stack({"entry_SYSCALL_64", "do_sys_openat2", "path_openat", "xfs_generic_create",
                                 "xfs_create", "__flush_work", "wait_for_completion", "schedule_timeout",
                                 "schedule", "__schedule"});

LockHolder blocked_holder(const std::string& op, const Stack& waiter, const std::string& holder,
                          const std::string& cls, const Stack& where, std::uint64_t ns) {
  LockHolder h;
  h.op = op;
  h.address = 0xffff888000100000;
  h.flags = 4;  // WRITE
  h.frames = waiter;
  h.holder_kind = "blocked";
  h.holder = holder;
  h.holder_class = cls;
  h.holder_frames = where;
  h.count = 18;
  h.total_ns = ns;
  return h;
}

Profile enospc_profile() {
  Profile p;
  p.ops = {{"create", 40000}};
  p.lock_holders.push_back(
      blocked_holder("create", kCreateWait, "create", "sleep", kFlushSleep, 230'000'000));
  // A lighter holder: a create running.
  LockHolder running;
  running.op = "create";
  running.frames = kCreateWait;
  running.holder_kind = "task";
  running.holder = "fscost-workload";
  running.count = 6;
  running.total_ns = 300'000;
  p.lock_holders.push_back(running);
  // The holder's own sleep there, ended by flush_work's barrier.
  OffCpuStack sleep;
  sleep.kind = SampleKind::Op;
  sleep.name = "create";
  sleep.wait_class = "sleep";
  sleep.frames = kFlushSleep;
  sleep.waker = "kworker/0:2";
  sleep.waker_frames = stack({"ret_from_fork", "kthread", "worker_thread", "process_one_work", "complete"});
  sleep.count = 1;
  sleep.total_ns = 236'000'000;
  sleep.waker_work = "wq_barrier_func";
  sleep.waker_last_work = "xfs_flush_inodes_worker";
  sleep.waker_workqueue = "xfs-sync/loop0";
  p.offcpu.push_back(sleep);
  return p;
}

TEST(WaitGraph, TheEnospcChainEndsAtTheFlushWorker) {
  auto chains = wait_chains(enospc_profile());
  ASSERT_EQ(chains.size(), 1u);
  const WaitChain& c = chains[0];
  EXPECT_EQ(c.op, "create");
  EXPECT_FALSE(c.cycle);
  ASSERT_EQ(c.hops.size(), 2u);
  EXPECT_EQ(c.hops[0].kind, WaitHop::Lock);
  EXPECT_EQ(c.hops[0].context, "create, blocked (sleep) in __flush_work ← xfs_create");
  EXPECT_EQ(c.hops[0].count, 18u);
  EXPECT_EQ(c.hops[1].kind, WaitHop::Wake);
  EXPECT_EQ(c.hops[1].context, "kworker running xfs_flush_inodes_worker on xfs-sync/loop0 (flush_work's barrier after it)");
  EXPECT_EQ(chain_text(c, 40000),
            "create waited 5.8 µs/op on i_rwsem (parent dir, open): held by create, blocked (sleep) "
            "in __flush_work ← xfs_create; it slept there 236.0 ms a run, woken by kworker running "
            "xfs_flush_inodes_worker on xfs-sync/loop0 (flush_work's barrier after it)");
}

// The chain's line says why it was chosen; one chain alone is "the only
// chain recorded", and a single run says nothing of runs.
TEST(WaitGraph, TheChosenChainSaysWhy) {
  Profile p = enospc_profile();
  p.lock_holders.pop_back();  // the flush holder alone
  auto chains = wait_chains(p);
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_EQ(chains[0].rule, "the only chain recorded");
  EXPECT_EQ(chain_choice_text(chains[0], 40000), "chosen: the only chain recorded");
  // with the running holder beside it, under a tenth of it
  chains = wait_chains(enospc_profile());
  EXPECT_EQ(chain_choice_text(chains[0], 40000),
            "chosen: the longest summed wait, the others under a tenth of it");
  EXPECT_TRUE(chains[0].others.empty());
}

// The ENOSPC flush meets a waiter only when the other thread is still
// creating (bpftrace, docs/CASES.md §2.0): the chain comes and goes. A
// material chain held in every run is chosen over a longer one that is
// not, and the line names the longer one; the same runs in any order give
// the same chain.
TEST(WaitGraph, AChainInEveryRunBeatsOneThatComesAndGoes) {
  auto run = [](bool flush, std::uint64_t cil_ns) {
    Profile p = enospc_profile();
    p.lock_holders.pop_back();
    if (!flush) {
      p.lock_holders.clear();
      p.offcpu.clear();
    }
    LockHolder k;
    k.op = "create";
    k.frames = stack({"xfs_create", "xfs_trans_commit", "xlog_cil_commit", "down_read",
                      "rwsem_down_read_slowpath"});
    k.flags = 2;  // READ
    k.holder_kind = "kthread";
    k.holder = "xfs-cil/loop0: xlog_cil_push_work";
    k.count = 3;
    k.total_ns = cil_ns;
    p.lock_holders.push_back(k);
    return p;
  };
  // flush in 2 of 5 runs, 230 ms each (92 ms a run); the CIL push in all 5
  std::vector<Profile> runs{run(true, 30'000'000), run(false, 40'000'000), run(true, 30'000'000),
                            run(false, 40'000'000), run(false, 40'000'000)};
  std::vector<const Profile*> ps;
  for (const auto& p : runs) ps.push_back(&p);
  auto chains = wait_chains(ps);
  ASSERT_EQ(chains.size(), 1u);
  const WaitChain& c = chains[0];
  EXPECT_EQ(c.hops[0].context, "kernel thread xfs-cil/loop0: xlog_cil_push_work");
  EXPECT_EQ(c.runs_held, 5u);
  EXPECT_EQ(c.rule, "the longest summed wait of the chains held in every run");
  ASSERT_EQ(c.others.size(), 1u);
  EXPECT_EQ(c.others[0].hops[0].context, "create, blocked (sleep) in __flush_work ← xfs_create");
  EXPECT_EQ(c.others[0].runs_held, 2u);
  EXPECT_EQ(chain_choice_text(c, 40000),
            "chosen: the longest summed wait of the chains held in every run, held in 5 of 5 "
            "runs; also: create, blocked (sleep) in __flush_work ← xfs_create on i_rwsem (parent "
            "dir, open) (2.3 µs/op, in 2 of 5 runs)");
  // Reversed runs: the same chain, the same line.
  std::reverse(ps.begin(), ps.end());
  auto again = wait_chains(ps);
  EXPECT_EQ(chain_text(again[0], 40000), chain_text(c, 40000));
  EXPECT_EQ(chain_choice_text(again[0], 40000), chain_choice_text(c, 40000));
  // The CIL push under a tenth of the flush's wait is no longer material:
  // the longest chain wins, held in 2 of 5.
  for (auto& p : runs)
    for (auto& h : p.lock_holders)
      if (h.holder_kind == "kthread") h.total_ns = 1'000'000;
  chains = wait_chains(ps);
  EXPECT_EQ(chains[0].hops[0].context, "create, blocked (sleep) in __flush_work ← xfs_create");
  EXPECT_EQ(chains[0].runs_held, 2u);
  EXPECT_EQ(chains[0].rule, "the longest summed wait, the others under a tenth of it");
}

// Equal waits: the text decides, not the order the holders were recorded in.
TEST(WaitGraph, EqualWaitsAreRankedByTheirTextNotTheirOrder) {
  Profile p = enospc_profile();
  p.lock_holders[1].total_ns = p.lock_holders[0].total_ns;
  Profile q = p;
  std::swap(q.lock_holders[0], q.lock_holders[1]);
  auto a = wait_chains(p), b = wait_chains(q);
  EXPECT_EQ(chain_text(a[0], 1), chain_text(b[0], 1));
  EXPECT_EQ(chain_choice_text(a[0], 1), chain_choice_text(b[0], 1));
  EXPECT_EQ(a[0].rule, "the longest summed wait of the chains here");
}

TEST(WaitGraph, SeveralRunsArePerRun) {
  Profile a = enospc_profile(), b = enospc_profile();
  auto chains = wait_chains(std::vector<const Profile*>{&a, &b});
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_DOUBLE_EQ(chains[0].hops[0].ns, 230e6);  // the mean of two runs, not their sum
  EXPECT_EQ(chains[0].hops[0].count, 36u);
}

// create waits on rename, blocked on a lock whose holder is a create
// blocked on a lock rename holds: the chain stops where it meets a context
// again and says so.
TEST(WaitGraph, ACycleIsReportedNotFollowed) {
  const Stack rename_sleep = stack({"do_renameat2", "lock_rename", "down_write", "rwsem_down_write_slowpath",
                                    "schedule", "__schedule"});
  const Stack create_sleep = stack({"path_openat", "down_write", "rwsem_down_write_slowpath", "schedule"});
  Profile p;
  p.ops = {{"create", 100}, {"rename", 100}};
  p.lock_holders = {
      blocked_holder("create", kCreateWait, "rename", "lock", rename_sleep, 5'000'000),
      blocked_holder("rename", rename_sleep, "create", "lock", create_sleep, 4'000'000)};
  auto chains = wait_chains(p);
  ASSERT_EQ(chains.size(), 2u);
  const WaitChain& c = chains[0];
  EXPECT_EQ(c.op, "create");
  EXPECT_TRUE(c.cycle);
  ASSERT_EQ(c.hops.size(), 3u);
  EXPECT_EQ(c.hops[0].context, "rename, blocked (lock) in lock_rename ← do_renameat2");
  EXPECT_EQ(c.hops[1].context, "create, blocked (lock) in path_openat");
  EXPECT_EQ(c.hops[2].context, "rename, blocked (lock) in lock_rename ← do_renameat2");
  EXPECT_NE(chain_text(c, 100).find("a cycle"), std::string::npos) << chain_text(c, 100);
}

TEST(WaitGraph, TheHeaviestHolderIsFollowedAndOtherHoldersNamed) {
  Profile p = enospc_profile();
  p.lock_holders[1].total_ns = 900'000'000;  // now the running holder weighs most
  auto chains = wait_chains(p);
  ASSERT_EQ(chains.size(), 1u);
  ASSERT_EQ(chains[0].hops.size(), 1u);
  EXPECT_EQ(chains[0].hops[0].context, "fscost-workload, running or outside a traced operation");
  LockHolder k;
  k.op = "close";
  k.holder_kind = "kthread";
  k.holder = "xfs-cil/loop0: xlog_cil_push_work";
  k.total_ns = 1;
  p.lock_holders.push_back(k);
  chains = wait_chains(p);
  ASSERT_EQ(chains.size(), 2u);
  EXPECT_EQ(chains[1].hops[0].context, "kernel thread xfs-cil/loop0: xlog_cil_push_work");
  EXPECT_EQ(wait_chains(p, 0.5).size(), 1u) << "close's wait is below half of create's";
}

// The lock view stands a wait's holder on the waiter's stack (off-wake
// style): the holder's blocked stack leaf first after "--", then who it was;
// the part of the wait with no recorded holder keeps the plain stack.
TEST(WaitGraph, TheLockViewStandsTheHolderOnTheWaiter) {
  Profile p = enospc_profile();
  LockStat l;
  l.kind = SampleKind::Op;
  l.name = "create";
  l.address = p.lock_holders[0].address;
  l.flags = 4;
  l.frames = kCreateWait;
  l.count = 30;
  l.total_ns = 250'000'000;  // 230 ms with a blocked holder, 20 ms more
  p.locks.push_back(l);
  std::uint64_t with_holder = 0, plain = 0;
  for (const auto& s : profile_stacks(p, View::Locks, std::string("create"))) {
    std::vector<std::string> f;
    for (const auto& x : s.frames) f.emplace_back(x.str());
    auto sep = std::find(f.begin(), f.end(), "--");
    if (sep == f.end()) {
      plain += s.value;
      continue;
    }
    EXPECT_EQ(*(sep + 1), "__schedule") << "the holder's leaf first";
    if (f.back() == "[held by create, blocked (sleep)]") with_holder += s.value;
  }
  EXPECT_EQ(with_holder, 230'000'000u);
  EXPECT_EQ(plain, 20'000'000u);
}

TEST(WaitGraph, BlockedSiteSkipsTheSchedulerAndWaitPrimitives) {
  EXPECT_EQ(blocked_site(kFlushSleep), "__flush_work ← xfs_create");
  EXPECT_EQ(blocked_site(stack({"xfs_buf_read_map", "xfs_buf_iowait", "wait_for_completion",
                                "schedule_timeout", "schedule", "__schedule"})),
            "xfs_buf_iowait ← xfs_buf_read_map");
  EXPECT_EQ(blocked_site({}), "(no stack)");
}

}  // namespace
}  // namespace fscost

namespace fscost {
namespace {

// The diff: each side's chain, the wait on B's first holder compared run by
// run, and B's chain on the first screen when the op's lock wait changed.
TEST(WaitGraphDiff, ChainsOfBothSidesAndTheFirstHolderCompared) {
  auto side = [](const char* label, std::uint64_t wait_ns) {
    RunSet s;
    s.label = label;
    for (int i = 0; i < 5; ++i) {
      Profile p = enospc_profile();
      p.meta.freq_hz = 997;
      p.ops[0].count = 40000;
      p.ops[0].wall_ns = 40000ull * 20000;
      p.ops[0].oncpu_ns = 40000ull * 10000;
      p.ops[0].latency_log2.assign(40, 0);
      p.lock_holders[0].total_ns = wait_ns + static_cast<std::uint64_t>(i) * 1'000'000;
      p.ops[0].offcpu_ns = p.lock_holders[0].total_ns;  // the op's off-CPU time is that wait
      s.runs.push_back(std::move(p));
      s.sources.push_back(std::string(label) + "/run" + std::to_string(i + 1) + ".profile");
    }
    return s;
  };
  RunSet a = side("A", 240'000'000), b = side("B", 1'290'000'000);
  Diff d = diff_runs(a, b);
  const OpDiff* create = nullptr;
  for (const auto& o : d.ops)
    if (o.op == "create") create = &o;
  ASSERT_NE(create, nullptr);
  ASSERT_TRUE(create->chain_a && create->chain_b);
  EXPECT_EQ(create->chain_b->hops[0].context, "create, blocked (sleep) in __flush_work ← xfs_create");
  ASSERT_EQ(create->hop_waits.size(), 2u);
  EXPECT_NEAR(create->hop_waits[0].sa.mean, 242e6 / 40000, 1);
  EXPECT_NEAR(create->hop_waits[0].sb.mean, 1292e6 / 40000, 1);
  EXPECT_TRUE(create->hop_waits[0].significant());
  // the holder's sleep there, the same in every run: per run, no change
  EXPECT_EQ(create->hop_waits[1].unit, "ns");
  EXPECT_DOUBLE_EQ(create->hop_waits[1].sb.mean, 236e6);
  EXPECT_FALSE(create->hop_waits[1].significant());
  std::string text = render_diff_text(d);
  std::string first = text.substr(0, text.find(std::string(72, '-')));
  EXPECT_NE(first.find("in B: create waited 32.3 µs/op on i_rwsem (parent dir, open): held by"),
            std::string::npos)
      << first;
  // the paragraph unwrapped: why this chain
  std::string flat;
  for (std::size_t i = 0; i < first.size(); ++i) {
    if (first[i] != '\n') {
      flat += first[i];
      continue;
    }
    flat += ' ';
    while (i + 1 < first.size() && first[i + 1] == ' ') ++i;
  }
  EXPECT_NE(flat.find("(flush_work's barrier after it) — chosen: the longest summed wait, the "
                      "others under a tenth of it, held in 5 of 5 runs"),
            std::string::npos)
      << first;
  EXPECT_NE(text.find("who waited for whom (per run):"), std::string::npos);
  std::string html = render_diff_html(d, a, b);
  EXPECT_NE(html.find("<p class=\"chain\">Who waited for whom, B: create waited 32.3 µs/op"),
            std::string::npos);
  auto j = diff_json(d);
  EXPECT_EQ(j["ops"][0]["chains"]["b"]["hops"][1]["context"],
            "kworker running xfs_flush_inodes_worker on xfs-sync/loop0 (flush_work's barrier after it)");
  EXPECT_EQ(j["ops"][0]["chains"]["b"]["runs_held"], 5);
  EXPECT_EQ(j["ops"][0]["chains"]["b"]["rule"], "the longest summed wait, the others under a tenth of it");
}

}  // namespace
}  // namespace fscost
