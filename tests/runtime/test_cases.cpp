// Known-mechanism cases (docs/CASES.md) at small sizes, recorded end to
// end: fscost compare on a real XFS, asserting what holds on any host, busy
// or quiet — the op is there, the mechanism's frames, families and lock
// rows are sampled on the side that has them, the setup names the one
// difference, the first screen is there. Whether a difference is significant
// at five runs is decided offline, from runs these tests recorded once
// (tests/data/cases, unit.CaseVerdicts), and at full size on a live host
// by `bench/run cases`, which reports (issue 30). The mechanisms were
// established with perf record -g and bpftrace first.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

  // The diff of the one thread count the compare ran. With
  // FSCOST_RECORD_CASES=DIR set (tests/data/cases/record.sh), the runs'
  // profiles are also kept as DIR/<case>/{a,b}/run-NN.profile: the data
  // unit.CaseVerdicts decides the case's verdicts from, offline.
  json compare(const std::string& name, std::vector<std::string> args,
               const std::string& threads) {
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
    if (const char* keep = std::getenv("FSCOST_RECORD_CASES"))
      keep_runs(out + "/runs/t" + threads, fs::path(keep) / name);
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
    return json::parse(ss.str(), nullptr, false);
  }

  static void keep_runs(const fs::path& runs, const fs::path& to) {
    for (const char* side : {"a", "b"}) {
      fs::remove_all(to / side);
      fs::create_directories(to / side);
      for (const auto& e : fs::directory_iterator(runs / side))
        if (e.path().extension() == ".profile")
          fs::copy_file(e.path(), to / side / e.path().filename());
    }
  }

  static const json* op_of(const json& d, const std::string& name) {
    for (const auto& o : d["ops"])
      if (o["op"] == name) return &o;
    return nullptr;
  }

  static double mean_a(const json& c) { return c["a_summary"]["mean"].get<double>(); }
  static double mean_b(const json& c) { return c["b_summary"]["mean"].get<double>(); }

  // No share over 100%, anywhere; a first screen of at most 40 lines of at
  // most 72 columns, ended by its rule; summary.txt at most 150 lines.
  void expect_well_formed(const json& d) {
    for (const auto& o : d["ops"]) {
      for (const auto& p : o["oncpu_parts"]) EXPECT_LE(std::abs(p["share"].get<double>()), 1.0);
      for (const auto& p : o["offcpu_parts"]) EXPECT_LE(std::abs(p["share"].get<double>()), 1.0);
      for (const auto& p : o["paths"]) EXPECT_LE(p["share"].get<double>(), 1.0);
    }
    test::expect_summary_limits(text_);
  }

  // The setup's one asked difference is `key` (mkfs may change others with
  // it, e.g. agsize with agcount: those are not asked).
  static void expect_asked_difference(const json& d, const std::string& key) {
    std::vector<std::string> asked;
    for (const auto& s : d["setup"]["differences"])
      if (s["asked"].get<bool>()) asked.push_back(s["name"]);
    EXPECT_EQ(asked, std::vector<std::string>{key}) << d["setup"].dump();
  }

  fs::path dir_;
  std::string text_;
};

// New code (CASES.md case 2): with rmapbt=1 every block the writeback of an
// fsync allocates is also a reverse-mapping btree update, in fsync's own
// context. Recorded: fsync's samples reach xfs_rmap_* in B at many times
// A's rate (A runs a sampled sliver: helpers that return early without an
// rmap btree) and fsync's paths run through xfs_file_fsync.
TEST_F(CaseTest, RmapbtIsNewCodeUnderFsync) {
  json d = compare("rmapbt-fsync",
                   {"--a", "mkfs: -m rmapbt=0", "--b", "mkfs: -m rmapbt=1", "--size", "512M",
                    "--workload", "create", "--files", "10000", "--write", "4096", "--fsync"},
                   "1");
  ASSERT_TRUE(d.is_object());
  const json* fsync = op_of(d, "fsync");
  ASSERT_TRUE(fsync);
  EXPECT_TRUE((*fsync)["tested"].get<bool>());
  const json* rmap = nullptr;
  for (const auto& f : (*fsync)["families"])
    if (f["name"] == "xfs_rmap_*") rmap = &f;
  ASSERT_TRUE(rmap) << "no xfs_rmap_* family under fsync\n" << text_;
  EXPECT_GT(mean_b((*rmap)["inclusive"]), 5 * mean_a((*rmap)["inclusive"])) << rmap->dump();
  bool through_fsync = false;
  for (const auto& p : (*fsync)["paths"]) {
    auto frames = p["frames"].get<std::vector<std::string>>();
    through_fsync |= std::find(frames.begin(), frames.end(), "xfs_file_fsync") != frames.end();
  }
  EXPECT_TRUE(through_fsync) << text_;
  expect_asked_difference(d, "meta-data.rmapbt");
  expect_well_formed(d);
}

// Optimistic spinning (CASES.md §2.3): two threads creating in one
// directory spin in rwsem_spin_on_owner on its i_rwsem, which
// lock:contention_begin never sees. The spin belongs to that lock's row,
// as sampled optimistic spin, and to no other lock. (Other spinlocks'
// slow paths are sampled too on a busy host — lockref_get_not_dead's
// dentry lock under path lookup — as spin of their own rows.)
TEST_F(CaseTest, SharedDirectorySpinIsTheParentDirectoryRwsem) {
  json d = compare("shared-dir-spin",
                   {"--a", "mkfs: -i size=512", "--b", "mkfs: -i size=1024", "--size", "512M",
                    "--workload", "create", "--dirs", "shared", "--files", "8000"},
                   "2");
  ASSERT_TRUE(d.is_object());
  const json* create = op_of(d, "create");
  ASSERT_TRUE(create);
  const json* rwsem = nullptr;
  for (const auto& l : (*create)["locks"]) {
    const json& spin = l["optimistic_spin"];
    if (l["name"] == "i_rwsem (parent dir, open)" && l["type"] == "rwsem:W") {
      rwsem = &l;
    } else {
      EXPECT_EQ(mean_a(spin) + mean_b(spin), 0) << l["name"] << " has optimistic spin: "
                                                << l.dump();
    }
  }
  ASSERT_TRUE(rwsem) << text_;
  // Two creators in one directory on two vCPUs: the spin is sampled in
  // both configurations (a loaded host preempts owners, which shortens
  // spins but does not remove them over five runs).
  EXPECT_GT(mean_a((*rwsem)["optimistic_spin"]) + mean_b((*rwsem)["optimistic_spin"]), 0);
  expect_asked_difference(d, "meta-data.isize");
  expect_well_formed(d);
}

// Same path, more work (CASES.md case 3): with 64 KiB directory blocks each
// create in one large directory formats bigger dirty ranges of the leaf and
// data buffers into the CIL (xfs_buf_item_format) and memmoves more leaf
// entries (xfs_dir3_leaf_find_entry): the same call path. Recorded: the
// directory code costs B more per create (point estimates: a factor the
// host's load does not undo), and no lock is new.
TEST_F(CaseTest, DirectoryBlockSizeIsTheSamePathMoreWork) {
  json d = compare("dir-block-size",
                   {"--a", "mkfs: -n size=4096", "--b", "mkfs: -n size=65536", "--size", "512M",
                    "--workload", "create", "--files", "40000", "--runs", "8"},
                   "1");
  ASSERT_TRUE(d.is_object());
  const json* create = op_of(d, "create");
  ASSERT_TRUE(create);
  EXPECT_TRUE((*create)["tested"].get<bool>());
  double dir_a = 0, dir_b = 0;
  for (const auto& f : (*create)["families"])
    if (f["name"] == "xfs_dir2_*" || f["name"] == "xfs_dir3_*") {
      dir_a += mean_a(f["inclusive"]);
      dir_b += mean_b(f["inclusive"]);
    }
  EXPECT_GT(dir_a, 0) << text_;
  EXPECT_GT(dir_b, 1.2 * dir_a) << "the directory code's ns/op, A " << dir_a << " B " << dir_b
                                << "\n" << text_;
  for (const auto& l : (*create)["locks"]) EXPECT_NE(l["change"], "new") << l.dump();
  expect_asked_difference(d, "naming.bsize");
  expect_well_formed(d);
}

// Log-bound (CASES.md case 4): with -o wsync every create's transaction is
// synchronous; __xfs_trans_commit forces the log and the create sleeps in
// xlog_wait_on_iclog. Recorded: B's creates sleep in the log-force class
// (A's, by default mount, almost never do) and run more xfs_log_* code.
TEST_F(CaseTest, WsyncIsLogForceWaitUnderCreate) {
  json d = compare("wsync",
                   {"--a", "mount: defaults", "--b", "mount: wsync", "--size", "512M",
                    "--workload", "create", "--files", "10000"},
                   "1");
  ASSERT_TRUE(d.is_object());
  const json* create = op_of(d, "create");
  ASSERT_TRUE(create);
  EXPECT_GT(mean_b((*create)["offcpu"]), mean_a((*create)["offcpu"])) << text_;
  bool log_force = false;
  for (const auto& p : (*create)["offcpu_parts"])
    log_force |= p["kind"] == "log-force" && p["delta_ns"].get<double>() > 0;
  EXPECT_TRUE(log_force) << "no log-force part of create's off-CPU time: " << text_;
  bool xfs_log = false;
  for (const auto& f : (*create)["families"])
    xfs_log |= f["name"] == "xfs_log_*" && mean_b(f["inclusive"]) > mean_a(f["inclusive"]);
  EXPECT_TRUE(xfs_log) << text_;
  bool wsync = false;
  for (const auto& s : d["setup"]["differences"])
    if (s["name"] == "mount.wsync") wsync = s["asked"].get<bool>();
  EXPECT_TRUE(wsync) << d["setup"].dump();
  expect_well_formed(d);
}

// A new contention point, sleeping (CASES.md case 5): with one allocation
// group every xfs_dialloc takes the one AGI buffer lock (xfs_buf_lock →
// down, a semaphore) and holds it to the commit; with four, four creators
// in private directories allocate in different AGs. Recorded: B's creates
// sleep on that semaphore (bpftrace: 0.003–0.56 contentions per create at
// 4 threads, so some in every run), and it is never spun on.
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
  json d = compare("agcount",
                   {"--a", "mkfs: -d agcount=4", "--b", "mkfs: -d agcount=1", "--size", "512M",
                    "--workload", "create", "--files", "5000", "--dirs", "private"},
                   "4");
  ASSERT_TRUE(d.is_object());
  const json* create = op_of(d, "create");
  ASSERT_TRUE(create);
  // The semaphore, not its own wait_lock (a spinlock down() takes, named
  // by the same call site, its own row).
  const json* agi = nullptr;
  for (const auto& l : (*create)["locks"])
    if (l["name"] == "xfs_buf lock (AGI)" && l["type"] == "semaphore") agi = &l;
  ASSERT_TRUE(agi) << text_;
  EXPECT_GT(mean_b((*agi)["sleep"]), mean_a((*agi)["sleep"])) << agi->dump();
  EXPECT_EQ(mean_b((*agi)["optimistic_spin"]), 0) << agi->dump();
  expect_asked_difference(d, "meta-data.agcount");
  expect_well_formed(d);
}

// The ENOSPC flush (CASES.md §2.0, issue 41): on a small RAM disk the
// creates run out of free space near the end of a run, and the create
// that hits it sleeps in xfs_flush_inodes holding the directory's
// i_rwsem. Recorded on both sides: the warning and the flush worker. Who
// waits on that create is timing (bpftrace: only while the other thread
// still creates), so the chain itself is asserted offline
// (unit.CaseVerdicts.EnospcFlushChainIsFoundAndSaysWhy).
TEST_F(CaseTest, EnospcFlushHoldsTheParentDirectory) {
  json d = compare("enospc-flush",
                   {"--a", "mkfs: -m rmapbt=0", "--b", "mkfs: -m rmapbt=1", "--size", "512M",
                    "--workload", "create", "--files", "10000", "--write", "4096", "--runs", "3"},
                   "2");
  ASSERT_TRUE(d.is_object());
  std::string warned;
  for (const auto& w : d["warnings"])
    if (w["kind"] == "enospc") warned += w["message"].get<std::string>() + "\n";
  EXPECT_NE(warned.find("xfs_flush_inodes"), std::string::npos) << warned;
  expect_asked_difference(d, "meta-data.rmapbt");
  expect_well_formed(d);
}

}  // namespace
}  // namespace fscost
