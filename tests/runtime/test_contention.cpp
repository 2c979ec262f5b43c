// Off-CPU time, lock contention and XFS counters per operation, on a real
// XFS with workloads built to provoke each case.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "views/lock_names.h"
#include "io/profile_io.h"
#include "system/ramdisk.h"
#include "views/spin_check.h"
#include "system/subprocess.h"
#include "support.h"

namespace fscost {
namespace {

class ContentionTest : public test::ScratchXfsTest {
 protected:
  ContentionTest() : ScratchXfsTest(1ull << 30) {}

  // Records fscost-workload with `args` and returns the profile; `extra` goes to record.
  Profile record(std::vector<std::string> workload_args, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv{FSCOST_BIN, "record", "-o", profile_};
    argv.insert(argv.end(), extra.begin(), extra.end());
    // A fresh directory per run: the workload refuses to reuse its own.
    std::string dir = fs_->dir() + "/run" + std::to_string(runs_++);
    std::filesystem::create_directory(dir);
    argv.insert(argv.end(), {"--", WORKLOAD_BIN, dir});
    argv.insert(argv.end(), workload_args.begin(), workload_args.end());
    auto r = run(argv);
    EXPECT_TRUE(r.ok()) << r.status_text() << "\n" << r.err;
    auto p = read_profile(profile_);
    EXPECT_TRUE(p) << (p ? "" : p.error().message);
    return p ? std::move(p).value() : Profile{};
  }

  // Contention needs the workload's threads on CPUs at the same time; on a
  // loaded 2-CPU machine one run may see none. Retry with twice the work, up
  // to three runs, until `enough` holds (the assertions then run on it).
  template <typename Args, typename Enough>
  Profile record_until(Args args, long n, std::vector<std::string> extra, Enough enough) {
    Profile p;
    for (int attempt = 0; attempt < 3; ++attempt, n *= 2) {
      p = record(args(n), extra);
      if (enough(p)) break;
      std::cerr << "attempt " << attempt + 1 << ": not enough contention, retrying\n";
    }
    return p;
  }

  static const OpStats* op(const Profile& p, const std::string& name) {
    for (const auto& o : p.ops)
      if (o.name == name) return &o;
    return nullptr;
  }

  int runs_ = 0;
};

// Many threads creating in one directory serialize on its i_rwsem, taken
// for write in filename_create/open_last_lookups: a sleeping rwsem wait.
TEST_F(ContentionTest, CreateInOneDirectorySleepsOnTheDirectoryRwsem) {
  Profile p = record_until(
      [](long n) {
        return std::vector<std::string>{"--workload", "create", "--threads", "4", "--files",
                                        std::to_string(n)};
      },
      4000, {}, [](const Profile& p) {
        for (const auto& row : lock_rows(p, std::string("create")))
          if (row.name.find("i_rwsem") != std::string::npos) return true;
        return false;
      });
  bool found = false;
  for (const auto& row : lock_rows(p, std::string("create"))) {
    if (row.name.find("i_rwsem") == std::string::npos) continue;
    found = true;
    EXPECT_EQ(row.type, "rwsem:W") << row.name;
    EXPECT_GT(row.count, 0u);
    EXPECT_GT(row.sleep_ns, 0u) << row.name;
  }
  EXPECT_TRUE(found) << "no i_rwsem contention named under create";
  // The same wait shows in the off-CPU view as lock wait under create.
  std::uint64_t lock_wait = 0;
  for (const auto& s : p.offcpu)
    if (s.name == "create" && s.wait_class == "lock") lock_wait += s.total_ns;
  EXPECT_GT(lock_wait, 0u);
}

// Threads of one process opening and closing one file contend on the
// files->file_lock spinlock: on-CPU samples in the spinlock slow path under
// open and close, and spin wait under the same operations as far as the
// kernel traces it. A paravirt guest queues every waiter (traced); the
// native slow path lets a lone waiter spin on the pending bit before
// contention_begin, so there traced spin is a lower bound and the spin
// check must say so (docs/LOCKS.md, "Spin check").
TEST_F(ContentionTest, FdTableSpinlockShowsAsSpinWaitAndSlowPathSamples) {
  // Traced spin time and sampled slow-path time measure the same spinning
  // where it is all traced: they agree within sampling error and the
  // handlers' own cost (measured here: 0.2 vs 0.2-0.3 µs/op). On this shared
  // VM steal breaks that: traced time is guest wall time between
  // contention_begin and _end and keeps any time the host took the vCPU
  // away, while cpu-clock fires once when the vCPU returns and loses the
  // rest (sampled/traced 0.42 seen in CI); and with the machine busy
  // (another build on both vCPUs) a waiter's pv spinlock halts its vCPU
  // while the holder waits for one (sampled/traced 0.14 seen, steal 0).
  // And on a host HostMeter calls quiet: a clean CI run at 4bffb90 read
  // 0.26 with the nice-19 sanitized build on the other vCPU (niced CPU is
  // not "other work"), steal 0. The ratio is the host's figure, so it is
  // reported (a test property and a line), never judged here (issue 30: a
  // verdict that needs a quiet host is not a test's); what is judged is
  // that the spin is there, traced and sampled, in the slow path.
  auto native = [](const Profile& p) {
    SpinCheck o = spin_check(p, "open"), c = spin_check(p, "close");
    return 2 * (o.native_qspinlock_samples + c.native_qspinlock_samples) >
           o.spin_samples + c.spin_samples;
  };
  auto ratio_of = [](const Profile& p, const char* op) {
    SpinCheck c = spin_check(p, op);
    return c.sampled_spin_ns && c.traced_spin_ns ? *c.sampled_spin_ns / double(c.traced_spin_ns)
                                                 : 0.0;
  };
  test::HostMeter host;
  Profile p = record_until(
      [](long n) {
        return std::vector<std::string>{"--workload", "openclose", "--threads", "2", "--files",
                                        std::to_string(n)};
      },
      300000, {"-F", "4999"}, [](const Profile& p) {
        return spin_check(p, "open").spin_samples > 20 && spin_check(p, "close").spin_samples > 20;
      });
  const test::HostLoad load = host.load();
  for (const char* op : {"open", "close"}) {
    RecordProperty(std::string(op) + "_sampled_over_traced_spin", std::to_string(ratio_of(p, op)));
    std::cerr << op << ": sampled/traced spin " << ratio_of(p, op) << " (" << load.describe()
              << ")\n";
  }
  std::uint64_t slowpath = 0;
  for (const auto& s : p.samples)
    if (s.kind == SampleKind::Op && (s.name == "open" || s.name == "close") && !s.frames.empty() &&
        s.frames.back().str().find("queued_spin_lock_slowpath") != std::string::npos)
      slowpath += s.count;
  EXPECT_GT(slowpath, 0u) << "no samples in the spinlock slow path under open/close";
  std::uint64_t spin = 0;
  for (const auto& l : p.locks)
    if ((l.name == "open" || l.name == "close") && lock_type(l.flags) == "spinlock")
      spin += l.spin_ns;
  if (native(p)) {
    // The pending-bit spin is the sampler's alone: traced spin may be 0 and
    // never exceeds the sampled spin beyond sampling error; the report names
    // the untraced part.
    for (const char* op : {"open", "close"}) {
      SpinCheck c = spin_check(p, op);
      ASSERT_TRUE(c.native_qspinlock_ns) << op;
      EXPECT_GT(c.native_qspinlock_samples, 0u) << op;
      EXPECT_LT(double(c.traced_spin_ns), 3 * *c.sampled_spin_ns) << op;
    }
    auto text = run({FSCOST_BIN, "report", profile_, "--view", "locks"});
    EXPECT_NE(text.out.find("its pending-bit spin is untraced, so traced spin is a lower bound"),
              std::string::npos)
        << text.out;
    return;
  }
  EXPECT_GT(spin, 0u) << "no spinlock spin time under open/close";
  for (const char* op : {"open", "close"}) {
    SpinCheck c = spin_check(p, op);
    ASSERT_TRUE(c.sampled_spin_ns) << op;
    EXPECT_GT(*c.sampled_spin_ns, 0u) << op << ": no sampled spin";
    EXPECT_GT(c.traced_spin_ns, 0u) << op << ": no traced spin";
  }
}

// Wall latency = on-CPU + off-CPU inside each operation: both are measured at
// sched_switch, so they must add up to the entry-to-exit time.
TEST_F(ContentionTest, OnPlusOffCpuEqualsWallPerOperation) {
  Profile p = record({"--threads", "2", "--files", "1000"});
  ASSERT_FALSE(p.ops.empty());
  for (const auto& o : p.ops) {
    if (o.count < 100 || o.name == "other") continue;
    double sum = double(o.oncpu_ns + o.offcpu_ns), wall = double(o.wall_ns);
    EXPECT_NEAR(sum / wall, 1.0, 0.02) << o.name << " on " << o.oncpu_ns << " off " << o.offcpu_ns
                                       << " wall " << o.wall_ns;
  }
  // fsync waits for the log: its off-CPU time is most of its latency.
  const OpStats* fsync = op(p, "fsync");
  ASSERT_NE(fsync, nullptr);
  EXPECT_GT(fsync->offcpu_ns, 0u);
}

// Every create of the mixed workload allocates the same number of
// transactions (one: the create itself).
TEST_F(ContentionTest, XfsTransactionsPerCreateAreCountedAndEqual) {
  Profile p = record({"--files", "500"});
  const OpStats* create = op(p, "create");
  ASSERT_NE(create, nullptr);
  ASSERT_TRUE(create->fs_events.count("xfs_trans_alloc")) << "no xfs_trans_alloc under create";
  EXPECT_GT(create->trans_min, 0u);
  EXPECT_EQ(create->trans_min, create->trans_max);
  EXPECT_EQ(create->fs_events.at("xfs_trans_alloc"), create->count * create->trans_min);
  const OpStats* fsync = op(p, "fsync");
  ASSERT_NE(fsync, nullptr);
  EXPECT_GT(fsync->fs_events.count("xfs_log_force"), 0u);
  std::uint64_t written = 0;
  for (const auto& [dev, bytes] : p.device_write_bytes)
    if (fs_->device().ends_with(dev)) written += bytes;
  EXPECT_GT(written, 0u) << "no bytes written to " << fs_->device();
}

// A lock map too small for the workload: every lost record is counted and
// reported, none vanish silently.
TEST_F(ContentionTest, FullLockAndOffCpuMapsAreCountedAndReported) {
  // The mixed workload blocks in many distinct places (fsync, log, dir locks).
  Profile p = record({"--threads", "2", "--files", "1000"},
                     {"--max-locks", "16", "--max-offcpu", "16", "--max-stacks", "16"});
  EXPECT_GT(p.drops.at("offcpu_map_full"), 0u);
  EXPECT_GT(p.drops.at("sample_map_full"), 0u);
  auto text = run({FSCOST_BIN, "report", profile_});
  EXPECT_NE(text.out.find("--max-"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace fscost
