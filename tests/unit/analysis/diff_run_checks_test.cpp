// Runs that measured the machine (diff/run_checks.cpp): a slow first run is
// named as an outlier with its figures; figures that follow run order on
// both sides are a drift; ordinary noise is neither.
#include <gtest/gtest.h>

#include "diff/diff.h"
#include "report/diff_report.h"
#include "diff_fixture.h"

namespace fscost::test {
namespace {

std::vector<const Warning*> of_kind(const Diff& d, WarningKind kind) {
  std::vector<const Warning*> out;
  for (const auto& w : d.warnings)
    if (w.kind == kind) out.push_back(&w);
  return out;
}

void slow_down(Profile& p, double factor) {
  p.rusage.wall_ns = static_cast<std::uint64_t>(static_cast<double>(p.rusage.wall_ns) * factor);
  for (auto& o : p.ops)
    if (o.name == "create") o.oncpu_ns = static_cast<std::uint64_t>(static_cast<double>(o.oncpu_ns) * factor);
}

void slow_op(Profile& p, const std::string& op, double factor) {
  for (auto& o : p.ops)
    if (o.name == op) {
      o.oncpu_ns = static_cast<std::uint64_t>(static_cast<double>(o.oncpu_ns) * factor);
      o.wall_ns = static_cast<std::uint64_t>(static_cast<double>(o.wall_ns) * factor);
    }
}

// The machine as compare records it around a run (/proc/stat): a quiet one,
// or one the host took `steal` of the vCPUs' time from.
void machine(Profile& p, double steal = 0.01) {
  p.setup["machine_total_ns"] = "2000000000";
  p.setup["machine_busy_ns"] = "600000000";
  p.setup["machine_steal_ns"] = std::to_string(static_cast<std::uint64_t>(steal * 2e9));
  p.setup["record_cpu_ns"] = "500000000";
}

void quiet_machine(RunSet& s) {
  for (auto& p : s.runs) machine(p);
}

// A slow run the host marked (steal 20%) is left out, and named.
TEST(DiffRunChecks, ASlowFirstRunIsDroppedAndNamed) {
  RunSet a = make_runs(base_spec(), 5, 100, "A"), b = make_runs(base_spec(), 5, 200, "B");
  slow_down(a.runs[0], 3);  // the 9.2 s first run of issue 15, in small
  quiet_machine(a), quiet_machine(b);
  machine(a.runs[0], 0.20);
  Diff d = diff_runs(a, b);
  EXPECT_EQ(d.runs_a, 4u);
  EXPECT_EQ(d.runs_b, 5u);
  ASSERT_EQ(d.dropped, std::vector<std::string>{"A run1.profile"});
  EXPECT_TRUE(of_kind(d, WarningKind::Outlier).empty());
  auto w = of_kind(d, WarningKind::Dropped);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0]->message.find("A run1.profile is an outlier: wall clock"), std::string::npos)
      << w[0]->message;
  EXPECT_NE(w[0]->message.find("left out of every figure"), std::string::npos) << w[0]->message;
  // Said from the outlier's fields, not cut from its sentence.
  EXPECT_NE(w[0]->message.find("with the host's mark on it"), std::string::npos) << w[0]->message;
  EXPECT_EQ(w[0]->message.find("it is kept"), std::string::npos) << w[0]->message;
  // Without it, A's create on-CPU is the others' alone.
  for (const auto& op : d.ops)
    if (op.op == "create") {
      EXPECT_EQ(op.oncpu.a.size(), 4u);
    }
  EXPECT_NE(w[0]->message.find("with the host's mark on it (steal 20%)"), std::string::npos)
      << w[0]->message;
}

// The same slow run with no mark of the host on it (steal 1%, nothing else
// running) stays in every figure, named: dropping it could bias the diff.
// So does one from a recording that kept no record of the machine.
TEST(DiffRunChecks, AnUnmarkedOutlierStaysInEveryFigure) {
  for (bool recorded : {true, false}) {
    RunSet a = make_runs(base_spec(), 5, 100, "A"), b = make_runs(base_spec(), 5, 200, "B");
    if (recorded) quiet_machine(a), quiet_machine(b);
    slow_down(a.runs[0], 3);
    Diff d = diff_runs(a, b);
    EXPECT_TRUE(d.dropped.empty()) << d.dropped.front();
    EXPECT_EQ(d.runs_a, 5u);
    auto w = of_kind(d, WarningKind::Outlier);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_NE(w[0]->message.find("A run1.profile is an outlier: wall clock"), std::string::npos)
        << w[0]->message;
    EXPECT_NE(w[0]->message.find(recorded ? "no more of the host in it than in the other runs "
                                            "(steal 1%, other work 2%)"
                                          : "kept no record of the machine"),
              std::string::npos)
        << w[0]->message;
    EXPECT_NE(w[0]->message.find("stays in every figure"), std::string::npos) << w[0]->message;
  }
}

// A burst of host noise over two consecutive runs of B (+20% and +35%, as
// seen in four repeated compares), steal on both: both go, B keeps its
// other three; and the first screen says so (issue 29), with the estimate
// that keeps them beside.
TEST(DiffRunChecks, TwoSlowRunsOfFiveAreDroppedAndTheClusterNamed) {
  RunSet a = make_runs(base_spec(), 5, 100, "A"), b = make_runs(base_spec(), 5, 200, "B");
  slow_down(b.runs[2], 1.20);
  slow_down(b.runs[3], 1.35);
  quiet_machine(a), quiet_machine(b);
  machine(b.runs[2], 0.16);
  machine(b.runs[3], 0.25);
  Diff d = diff_runs(a, b);
  EXPECT_EQ(d.dropped, (std::vector<std::string>{"B run3.profile", "B run4.profile"}));
  EXPECT_EQ(d.runs_b, 3u);
  auto cluster = of_kind(d, WarningKind::OutlierCluster);
  ASSERT_EQ(cluster.size(), 1u);
  EXPECT_NE(cluster[0]->message.find("0 runs of A and 2 of B"), std::string::npos)
      << cluster[0]->message;
  EXPECT_NE(cluster[0]->message.find("without them"), std::string::npos) << cluster[0]->message;
  EXPECT_NE(cluster[0]->message.find("with them"), std::string::npos) << cluster[0]->message;
  EXPECT_NE(cluster[0]->message.find("the host marked them"), std::string::npos)
      << cluster[0]->message;
  std::string text = render_diff_text(d);
  EXPECT_LT(text.find("outliers cluster"), text.find("-----")) << "on the first screen";
}

// fs_mark in one shared directory (docs/CASES.md case 1b): two of B's five
// runs come out in A's mode, on a quiet machine. Dropping them would bias
// B up (+11.3 µs/op against /usr/bin/time's +7.2 there): they stay, and
// the first screen gives both estimates, the one with them first.
TEST(DiffRunChecks, AnUnmarkedClusterStaysInWithBothEstimates) {
  RunSet a = make_runs(base_spec(), 5, 100, "A"), b = make_runs(base_spec(), 5, 200, "B");
  quiet_machine(a), quiet_machine(b);
  for (auto i : {0u, 1u, 4u}) slow_op(b.runs[i], "create", 1.25);
  for (auto i : {2u, 3u}) slow_op(b.runs[i], "create", 0.97);
  Diff d = diff_runs(a, b);
  EXPECT_TRUE(d.dropped.empty()) << d.dropped.front();
  EXPECT_EQ(d.runs_b, 5u);
  auto cluster = of_kind(d, WarningKind::OutlierCluster);
  ASSERT_EQ(cluster.size(), 1u);
  const std::string& m = cluster[0]->message;
  EXPECT_NE(m.find("0 runs of A and 2 of B"), std::string::npos) << m;
  EXPECT_NE(m.find("no more of the host in them"), std::string::npos) << m;
  EXPECT_LT(m.find("with them"), m.find("without them")) << m;
  for (const auto& op : d.ops)
    if (op.op == "create") {
      EXPECT_EQ(op.oncpu.b.size(), 5u);
    }
}

// /proc/stat around each run (compare keeps it in the profile's setup):
// CPU that was neither the recording nor kernel threads, and steal.
TEST(DiffRunChecks, OtherWorkAndStealOnTheMachineAreNamed) {
  RunSet a = make_runs(base_spec(), 3, 100, "A"), b = make_runs(base_spec(), 3, 200, "B");
  for (auto* s : {&a, &b})
    for (auto& p : s->runs)
      p.setup = {{"machine_total_ns", "2000000000"}, {"machine_busy_ns", "600000000"},
                 {"machine_steal_ns", "0"}, {"record_cpu_ns", "500000000"}};
  // The fixture's kernel threads ran 50 ms a run: 600 - 500 - 50 = 50 ms, 2.5%.
  b.runs[1].setup["machine_busy_ns"] = "1400000000";  // ~850 ms of others: 42-43%
  a.runs[2].setup["machine_steal_ns"] = "400000000";  // 20%
  Diff d = diff_runs(a, b);
  auto busy = of_kind(d, WarningKind::BusyMachine), steal = of_kind(d, WarningKind::Steal);
  ASSERT_EQ(busy.size(), 1u);
  EXPECT_NE(busy[0]->message.find("B: other work used more than 10% of the machine's CPU during "
                                  "run2.profile 4"),
            std::string::npos)
      << busy[0]->message;
  ASSERT_EQ(steal.size(), 1u);
  EXPECT_NE(steal[0]->message.find("A: the host took more than 10% of the vCPUs' time during "
                                   "run3.profile 20%"),
            std::string::npos)
      << steal[0]->message;
}

// A run whose ops spent a tenth of their CPU in clear_page_erms, where the
// others spent none: the host's memory handback, named.
TEST(DiffRunChecks, PageZeroingInOneRunIsNamed) {
  RunSet a = make_runs(base_spec(), 5, 100, "A"), b = make_runs(base_spec(), 5, 200, "B");
  std::uint64_t op_samples = 0;
  for (const auto& s : b.runs[1].samples)
    if (s.kind == SampleKind::Op) op_samples += s.count;
  b.runs[1].samples.push_back(
      {SampleKind::Op, "create",
       frames_of(kCreatePath, {"xfs_trans_alloc", "kmem_cache_alloc", "__alloc_pages",
                               "clear_page_erms"}),
       op_samples / 9});
  Diff d = diff_runs(a, b);
  auto w = of_kind(d, WarningKind::PageZeroing);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0]->message.find("B: the ops spent more of their CPU zeroing pages in run2.profile 10%"),
            std::string::npos)
      << w[0]->message;
}

TEST(DiffRunChecks, ASlowFirstRunIsNamedAsAnOutlierWhenKept) {
  RunSet a = make_runs(base_spec(), 5, 100, "A"), b = make_runs(base_spec(), 5, 200, "B");
  slow_down(a.runs[0], 3);
  DiffConfig keep;
  keep.drop_outliers = false;
  Diff d = diff_runs(a, b, keep);
  EXPECT_TRUE(d.dropped.empty());
  auto w = of_kind(d, WarningKind::Outlier);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0]->message.find("A run1.profile is an outlier"), std::string::npos) << w[0]->message;
  EXPECT_NE(w[0]->message.find("wall clock"), std::string::npos) << w[0]->message;
  EXPECT_NE(w[0]->message.find("create on-CPU"), std::string::npos) << w[0]->message;
}


// A run 30% slower in a minor op (the demo's 2 µs writes a host blip slowed
// by 0.5 µs) is no outlier: that is a few percent of the run's time in its
// ops. The same slowdown of the op that dominates the run is.
TEST(DiffRunChecks, AnOutlierMustBeWorthAShareOfTheRun) {
  RunSet a = make_runs(base_spec(), 5, 100, "A"), b = make_runs(base_spec(), 5, 200, "B");
  quiet_machine(a), quiet_machine(b);
  machine(a.runs[1], 0.20);
  slow_op(a.runs[1], "mkdir", 1.3);
  Diff d = diff_runs(a, b);
  EXPECT_TRUE(d.dropped.empty()) << d.dropped.front();
  slow_op(a.runs[1], "create", 1.3);
  d = diff_runs(a, b);
  EXPECT_EQ(d.dropped, std::vector<std::string>{"A run2.profile"});
}

// One run of B 13% slower in the op that dominates (a repeated compare's
// B run-04: 7828 ns against 6880..6950) goes; 5% is ordinary.
TEST(DiffRunChecks, ThirteenPercentInTheMainOpIsAnOutlierFiveIsNot) {
  RunSet a = make_runs(base_spec(), 5, 100, "A"), b = make_runs(base_spec(), 5, 200, "B");
  quiet_machine(a), quiet_machine(b);
  machine(b.runs[3], 0.20);
  slow_op(b.runs[3], "create", 1.05);
  EXPECT_TRUE(diff_runs(a, b).dropped.empty());
  slow_op(b.runs[3], "create", 1.13 / 1.05);
  EXPECT_EQ(diff_runs(a, b).dropped, std::vector<std::string>{"B run4.profile"});
}

TEST(DiffRunChecks, OrdinaryNoiseHasNoOutlierAndNoDrift) {
  ConfigSpec s = base_spec();
  s.noise = 0.08;
  RunSet a = make_runs(s, 5, 100, "A"), b = make_runs(s, 5, 200, "B");
  for (std::size_t i = 0; i < 5; ++i) {
    a.runs[i].meta.start_unix_ns = static_cast<std::int64_t>(2 * i + 1);
    b.runs[i].meta.start_unix_ns = static_cast<std::int64_t>(2 * i + 2);
  }
  Diff d = diff_runs(a, b);
  EXPECT_TRUE(of_kind(d, WarningKind::Outlier).empty()) << of_kind(d, WarningKind::Outlier).front()->message;
  EXPECT_TRUE(of_kind(d, WarningKind::RunOrder).empty()) << of_kind(d, WarningKind::RunOrder).front()->message;
}

TEST(DiffRunChecks, AFigureThatRisesWithRunOrderOnBothSidesIsDrift) {
  RunSet a = make_runs(base_spec(), 5, 100, "A"), b = make_runs(base_spec(), 5, 200, "B");
  for (std::size_t i = 0; i < 5; ++i) {
    a.runs[i].meta.start_unix_ns = static_cast<std::int64_t>(2 * i + 1);
    b.runs[i].meta.start_unix_ns = static_cast<std::int64_t>(2 * i + 2);
    slow_down(a.runs[i], 1 + 0.1 * static_cast<double>(i));
    slow_down(b.runs[i], 1 + 0.1 * static_cast<double>(i));
  }
  Diff d = diff_runs(a, b);
  auto w = of_kind(d, WarningKind::RunOrder);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0]->message.find("create on-CPU rises (Spearman ρ 1.0 in A, 1.0 in B)"),
            std::string::npos)
      << w[0]->message;
}

}  // namespace
}  // namespace fscost::test

#include "report/diff_report.h"

namespace fscost::test {
namespace {

// A crowded first screen (long warnings, several changed ops): the op that
// costs most is on it, whatever else has to wait below the rule (seen in
// CI: a 15-line create block skipped for a 3-line close one).
TEST(DiffRunChecks, TheCostliestOpIsAlwaysOnTheFirstScreen) {
  ConfigSpec a_spec = base_spec(), b_spec = base_spec();
  inject_new_code(b_spec);
  inject_more_spin(b_spec);
  inject_sleep_lock(b_spec);
  for (std::size_t i = 0; i < 5; ++i)
    b_spec.drops[i] = {{"stack_map_full", 10 + i}, {"sample_map_full", 3}, {"lock_nesting", 38},
                       {"prog_missed", 1}, {"offcpu_map_full", 2}};
  Diff d = diff_runs(make_runs(a_spec, 5, 100, "A"), make_runs(b_spec, 5, 200, "B"));
  ASSERT_FALSE(d.ops.empty());
  std::string t = render_diff_text(d);
  std::size_t rule = t.find("\n" + std::string(72, '-') + "\n");
  ASSERT_NE(rule, std::string::npos);
  EXPECT_LE(std::count(t.begin(), t.begin() + rule + 1, '\n'), 40) << t.substr(0, rule);
  EXPECT_LT(t.find("\n" + d.ops.front().op + ": "), rule) << t.substr(0, rule);
  // Narrow, the create block alone is longer than what the warnings leave.
  std::string narrow = render_diff_text(d, 30);
  std::size_t rule30 = narrow.find("\n" + std::string(30, '-') + "\n");
  ASSERT_NE(rule30, std::string::npos);
  EXPECT_LE(std::count(narrow.begin(), narrow.begin() + rule30 + 1, '\n'), 40);
  EXPECT_LT(narrow.find("\n" + d.ops.front().op + ": "), rule30) << narrow.substr(0, rule30);
}

}  // namespace
}  // namespace fscost::test
