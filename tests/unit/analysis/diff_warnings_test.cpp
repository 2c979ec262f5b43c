// Each validity warning of the diff, triggered by a set of runs built for it;
// and none but noise between two sets of the same configuration.
#include <gtest/gtest.h>

#include "diff/diff.h"
#include "diff_fixture.h"

namespace fscost::test {
namespace {

std::vector<std::string> messages(const Diff& d, WarningKind kind) {
  std::vector<std::string> out;
  for (const auto& w : d.warnings)
    if (w.kind == kind) out.push_back(w.message);
  return out;
}

std::string all_messages(const Diff& d) {
  std::string s;
  for (const auto& w : d.warnings) s += std::string(warning_name(w.kind)) + ": " + w.message + "\n";
  return s;
}

bool has(const std::vector<std::string>& msgs, const std::string& needle) {
  for (const auto& m : msgs)
    if (m.find(needle) != std::string::npos) return true;
  return false;
}

Diff diff_of(const ConfigSpec& a, const ConfigSpec& b, std::size_t runs = 5) {
  return diff_runs(make_runs(a, runs, 100, "A"), make_runs(b, runs, 200, "B"));
}

TEST(DiffWarnings, SameConfigurationWarnsOnlyOfNoise) {
  Diff d = diff_of(base_spec(), base_spec());
  for (const auto& w : d.warnings) EXPECT_EQ(w.kind, WarningKind::Noise) << w.message;
  EXPECT_FALSE(messages(d, WarningKind::Noise).empty()) << "identical configurations differ only by noise";
}

TEST(DiffWarnings, FewRuns) {
  Diff two = diff_of(base_spec(), base_spec(), 2);
  auto m = messages(two, WarningKind::FewRuns);
  ASSERT_EQ(m.size(), 2u) << all_messages(two);
  EXPECT_EQ(m[0], "A has only 2 runs: intervals are wide and the rank test cannot reach "
                  "significance (3 or more runs, better 5)");
  Diff one = diff_runs(make_runs(base_spec(), 1, 1, "A"), make_runs(base_spec(), 3, 2, "B"));
  m = messages(one, WarningKind::FewRuns);
  ASSERT_EQ(m.size(), 2u) << all_messages(one);
  EXPECT_TRUE(has(m, "A has 1 run: no statistics possible")) << m[0];
  // Three runs: no leave-one-out check of the findings (diff/stability.h).
  EXPECT_TRUE(has(m, "B has only 3 runs: no finding was checked against leaving one run out"))
      << m[1];
}

TEST(DiffWarnings, UserShare) {
  ConfigSpec a = base_spec();
  a.user_share = 0.34;
  Diff d = diff_of(a, base_spec());
  auto m = messages(d, WarningKind::UserShare);
  ASSERT_EQ(m.size(), 1u) << all_messages(d);
  EXPECT_EQ(m[0], "user CPU is 34% of the workload's CPU in A (threshold 10%): kernel deltas "
                  "are diluted in wall time");
}

TEST(DiffWarnings, WallVsSys) {
  ConfigSpec b = base_spec();
  inject_new_code(b);  // sys up
  b.wall_scale = 0.9;  // yet the workload finished sooner
  Diff d = diff_of(base_spec(), b);
  auto m = messages(d, WarningKind::WallVsSys);
  ASSERT_EQ(m.size(), 1u) << all_messages(d);
  EXPECT_EQ(m[0].rfind("sys time +", 0), 0u) << m[0];
  EXPECT_NE(m[0].find("but wall time -"), std::string::npos) << m[0];
}

TEST(DiffWarnings, NoiseExceedsTheEffect) {
  ConfigSpec a = base_spec(), b = base_spec();
  a.noise = b.noise = 0.2;
  op_of(b, "mkdir").oncpu[0].ns += 50;  // 0.6% of mkdir's on-CPU time
  Diff d = diff_of(a, b);
  EXPECT_TRUE(has(messages(d, WarningKind::Noise), "mkdir: run-to-run noise in on-CPU time (pooled sd "))
      << all_messages(d);
}

TEST(DiffWarnings, DropsNameCountersAndRuns) {
  ConfigSpec b = base_spec();
  b.drops[1] = {{"stack_map_full", 12}};
  b.drops[3] = {{"stack_map_full", 3}, {"sample_map_full", 7}};
  Diff d = diff_of(base_spec(), b);
  auto m = messages(d, WarningKind::Drops);
  ASSERT_EQ(m.size(), 1u) << all_messages(d);
  EXPECT_EQ(m[0],
            "data was lost in B: sample_map_full 7 in 1 of 5 runs (run4.profile); "
            "stack_map_full 15 in 2 of 5 runs (run2.profile, run4.profile) "
            "(raise --max-stacks; raise --stack-storage-size)");
}

// Missed program runs name their probe and what it feeds (issue 29): a few
// on lock:contention_end change no op's count and go below the first
// screen; one on sys_exit could drop an op from its count and stays on it.
TEST(DiffWarnings, MissedProgramRunsNameTheProbeAndWhatItFeeds) {
  ConfigSpec b = base_spec();
  b.drops[1] = {{"prog_missed", 3}};
  RunSet ra = make_runs(base_spec(), 5, 100, "A"), rb = make_runs(b, 5, 200, "B");
  rb.runs[1].prog_missed_by = {{"lock:contention_end", 3}};
  Diff d = diff_runs(ra, rb);
  auto m = messages(d, WarningKind::DropsMinor);
  ASSERT_EQ(m.size(), 1u) << all_messages(d);
  EXPECT_TRUE(has(m, "missed by probe: lock:contention_end 3 (lock waits: a wait it missed is "
                     "not counted); no op's count could be affected"))
      << m[0];
  rb.runs[1].prog_missed_by = {{"raw_syscalls:sys_exit", 3}};
  d = diff_runs(ra, rb);
  m = messages(d, WarningKind::Drops);
  ASSERT_EQ(m.size(), 1u) << all_messages(d);
  EXPECT_TRUE(has(m, "raw_syscalls:sys_exit 3 (op counts and times: an op whose entry or exit "
                     "it missed is not counted); op counts could be off by as many"))
      << m[0];
  rb.runs[1].prog_missed_by.clear();  // a recording of an older fscost
  d = diff_runs(ra, rb);
  EXPECT_TRUE(has(messages(d, WarningKind::DropsMinor), "the recording did not say which programs missed"))
      << all_messages(d);
}

TEST(DiffWarnings, ConfigMismatchNamesFieldAndValues) {
  ConfigSpec b = base_spec();
  b.hostname = "labhost-2";
  b.kernel_release = "6.9.0-test";
  b.cpus = 8;
  b.freq_hz = 4999;
  b.probes.pop_back();
  b.command = "fsops mix 60000";
  Diff d = diff_of(base_spec(), b);
  auto m = messages(d, WarningKind::ConfigMismatch);
  ASSERT_EQ(m.size(), 6u) << all_messages(d);
  EXPECT_TRUE(has(m, "host differs: testhost in A, labhost-2 in B"));
  EXPECT_TRUE(has(m, "kernel release differs: 6.8.0-test in A, 6.9.0-test in B"));
  EXPECT_TRUE(has(m, "CPU count differs: 4 in A, 8 in B"));
  EXPECT_TRUE(has(m, "sampling frequency differs: 10000 Hz in A, 4999 Hz in B"));
  EXPECT_TRUE(
      has(m, "probes differ: only in A: lock:contention_begin (tp_btf); only in B: none"));
  EXPECT_TRUE(has(m, "command differs: 'fsops mix 50000' in A, 'fsops mix 60000' in B"));
}

// Each run of a fresh-filesystem comparison mounts at a new directory.
TEST(DiffWarnings, CommandsDifferingOnlyInPathsMatch) {
  ConfigSpec a = base_spec(), b = base_spec();
  a.command = "fscost-workload /tmp/fscost-mnt-1-aaa --files 100 --dir=/mnt/a";
  b.command = "fscost-workload /tmp/fscost-mnt-1-bbb --files 100 --dir=/mnt/b";
  EXPECT_TRUE(messages(diff_of(a, b), WarningKind::ConfigMismatch).empty());
  b.command = "fscost-workload /tmp/fscost-mnt-1-bbb --files 200 --dir=/mnt/b";
  auto m = messages(diff_of(a, b), WarningKind::ConfigMismatch);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_TRUE(has(m, "command differs: 'fscost-workload <path> --files 100 --dir=<path>' in A, "
                     "'fscost-workload <path> --files 200 --dir=<path>' in B"));
}

TEST(DiffWarnings, BackgroundKernelThreads) {
  ConfigSpec b = base_spec();
  b.kthread_ns *= 1.5;
  Diff d = diff_of(base_spec(), b);
  auto m = messages(d, WarningKind::Background);
  ASSERT_EQ(m.size(), 1u) << all_messages(d);
  EXPECT_EQ(m[0].rfind("background kernel-thread CPU changed +4", 0), 0u) << m[0];  // +49%
  EXPECT_NE(m[0].find("ms in A"), std::string::npos) << m[0];
}

TEST(DiffWarnings, OpCountDiffers) {
  ConfigSpec b = base_spec();
  op_of(b, "create").count = 40000;
  Diff d = diff_of(base_spec(), b);
  auto m = messages(d, WarningKind::OpCount);
  ASSERT_EQ(m.size(), 1u) << all_messages(d);
  EXPECT_EQ(m[0].rfind("create: A did 50000 operations per run and B 40000 (q = ", 0), 0u) << m[0];
}

}  // namespace
}  // namespace fscost::test
