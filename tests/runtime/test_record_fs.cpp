// fscost record --fs/--sync/--bpf-stats on real XFS (issue 15): XFS events
// of the test filesystem's superblock only; its device's writes split into
// data, metadata and log (the log's range checked against xfs_db); kernel
// workers' off-CPU time and XFS events by workqueue and work function; a
// command's writeback traced as its own "sync" op; the probes' own cost.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "system/fs_device.h"
#include "system/ramdisk.h"
#include "system/subprocess.h"
#include "support.h"

namespace fscost {
namespace {

using nlohmann::json;

class RecordFsTest : public test::ScratchXfsTest {
 protected:
  RecordFsTest() : ScratchXfsTest(512ull << 20) {}

  // env: NAME=VALUE settings for fscost record (run through env(1)).
  json record(const std::vector<std::string>& opts, const std::vector<std::string>& cmd,
              const std::vector<std::string>& env = {}) {
    std::vector<std::string> argv;
    if (!env.empty()) {
      argv.push_back("env");
      argv.insert(argv.end(), env.begin(), env.end());
    }
    argv.insert(argv.end(), {FSCOST_BIN, "record", "-o", profile_});
    argv.insert(argv.end(), opts.begin(), opts.end());
    argv.push_back("--");
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    auto rec = run(argv);
    EXPECT_TRUE(rec.ok()) << rec.status_text() << "\n" << rec.err;
    std::ifstream in(profile_);
    std::stringstream text;
    text << in.rdbuf();
    return json::parse(text.str(), nullptr, false);
  }

  static std::uint64_t op_count(const json& p, const std::string& name) {
    for (const auto& op : p["ops"])
      if (op["name"] == name) return op["count"].get<std::uint64_t>();
    return 0;
  }

  static std::uint64_t op_fs_events(const json& p, const std::string& name,
                                    const std::string& event) {
    for (const auto& op : p["ops"])
      if (op["name"] == name && op.contains("fs_events") && op["fs_events"].contains(event))
        return op["fs_events"][event].get<std::uint64_t>();
    return 0;
  }
};

TEST_F(RecordFsTest, XfsEventsOfTheTestFilesystemOnly) {
  auto other = ScratchXfs::create(512ull << 20);
  ASSERT_TRUE(other) << other.error().message;
  // A fresh directory per recording: the workload makes its own below it.
  auto work = [&](const std::string& sub) {
    std::string dir = other.value().dir() + "/" + sub;
    std::filesystem::create_directory(dir);
    return std::vector<std::string>{WORKLOAD_BIN, dir, "--files", "500"};
  };
  // Aimed at this filesystem, the workload's creates on the other one count nothing ...
  json p = record({"--fs", fs_->dir()}, work("first"));
  ASSERT_FALSE(p.is_discarded());
  EXPECT_EQ(op_count(p, "create"), 500u);
  EXPECT_EQ(op_fs_events(p, "create", "xfs_trans_alloc"), 0u);
  EXPECT_GE(p.value("fs_events_other_fs", 0u), 500u);
  // ... and aimed at the other one, every create allocates a transaction.
  p = record({"--fs", other.value().dir()}, work("second"));
  ASSERT_FALSE(p.is_discarded());
  EXPECT_GE(op_fs_events(p, "create", "xfs_trans_alloc"), 500u);
  // The raw_tp flavour reads the same first argument.
  p = record({"--fs", fs_->dir()}, work("third"), {"FSCOST_DISABLE_FEATURES=task_storage"});
  ASSERT_FALSE(p.is_discarded());
  EXPECT_NE(p.dump().find("(raw_tp)"), std::string::npos);
  EXPECT_EQ(op_fs_events(p, "create", "xfs_trans_alloc"), 0u);
  EXPECT_GE(p.value("fs_events_other_fs", 0u), 500u);
  p = record({"--fs", other.value().dir()}, work("fourth"), {"FSCOST_DISABLE_FEATURES=task_storage"});
  ASSERT_FALSE(p.is_discarded());
  EXPECT_GE(op_fs_events(p, "create", "xfs_trans_alloc"), 500u);
}

TEST_F(RecordFsTest, TheLogRangeIsWhereXfsDbPutsIt) {
  auto dev = fs_device(fs_->dir());
  ASSERT_TRUE(dev) << dev.error().message;
  EXPECT_TRUE(dev.value().xfs);
  EXPECT_EQ("/dev/" + dev.value().block_name, fs_->device());
  auto logstart = run({"xfs_db", "-r", "-c", "sb 0", "-c", "p logstart", fs_->device()});
  ASSERT_TRUE(logstart.ok()) << logstart.err;
  std::string fsb = logstart.out.substr(logstart.out.find('=') + 1);
  fsb.erase(0, fsb.find_first_not_of(' '));
  fsb.erase(fsb.find_last_not_of(" \n") + 1);
  auto daddr = run({"xfs_db", "-r", "-c", "convert fsb " + fsb + " daddr", fs_->device()});
  ASSERT_TRUE(daddr.ok()) << daddr.err;
  // "0x80030 (524336)"
  std::string sectors = daddr.out.substr(daddr.out.find('(') + 1);
  EXPECT_EQ(dev.value().log_first_sector, std::stoull(sectors)) << daddr.out;
  EXPECT_GT(dev.value().log_end_sector, dev.value().log_first_sector);
}

TEST_F(RecordFsTest, WritebackOfACommandIsItsSyncPhaseSplitByKind) {
  // A command that does not sync: --sync makes its writeback land here.
  std::string cmd = std::string(WORKLOAD_BIN) + " " + fs_->dir() +
                    " --workload create --files 2000 --write 16384 --threads 2 --quiet";
  json p = record({"--fs", fs_->dir(), "--sync"}, {"/bin/sh", "-c", cmd});
  ASSERT_FALSE(p.is_discarded());
  EXPECT_EQ(op_count(p, "create"), 4000u);
  EXPECT_EQ(op_count(p, "sync"), 1u) << "the traced syncfs after the command";
  const json& kinds = p["fs_write_bytes"];
  ASSERT_TRUE(kinds.is_object()) << p.dump().substr(0, 400);
  // 4000 files of 16 KiB, written back inside the recording.
  EXPECT_GE(kinds.value("data", 0u), 4000u * 16384u);
  EXPECT_GT(kinds.value("log", 0u), 0u) << "syncfs forces the log";
  std::uint64_t sum = 0;
  for (const auto& [kind, bytes] : kinds.items()) sum += bytes.get<std::uint64_t>();
  auto dev = fs_device(fs_->dir());
  ASSERT_TRUE(dev);
  EXPECT_EQ(sum, p["device_write_bytes"][dev.value().block_name].get<std::uint64_t>());
  // The unwritten-extent and size-update work is xfs-conv's, per work function.
  std::string conv = "xfs-conv/" + dev.value().block_name + ": ";
  bool conv_events = false;
  for (const auto& [bucket, events] : p["kthread_fs_events"].items())
    if (bucket.starts_with(conv)) conv_events |= events.value("xfs_trans_commit", 0u) > 0;
  EXPECT_TRUE(conv_events) << p["kthread_fs_events"].dump();
  // Workers' off-CPU time, named by workqueue and work function.
  std::size_t named = 0;
  for (const auto& o : p["offcpu"])
    if (o["kind"] == "kthread") {
      std::string name = o["name"].get<std::string>();
      EXPECT_FALSE(name.empty());
      named += name.find(": ") != std::string::npos;
    }
  EXPECT_GT(named, 0u) << "no kworker off-CPU interval inside a work item";
}

// Issue 16: thread A holds a file's i_rwsem (XFS's IOLOCK) while it writes
// 32 MiB and punches it out again (fallocate flushes the dirty range under
// the lock); B's small writes to the same file wait on it. The waits must
// name A's context as their holder, and the chain must start there.
TEST_F(RecordFsTest, ALockWaitNamesItsHolder) {
  std::string file = fs_->dir() + "/shared";
  std::ofstream(file).close();
  std::string holder = "xfs_io", waiter = "xfs_io";
  for (int i = 0; i < 20; ++i) holder += " -c 'pwrite -q 0 32m' -c 'fpunch 0 32m'";
  for (int i = 0; i < 20000; ++i) waiter += " -c 'pwrite -q 64m 4k'";
  // One argument may not exceed 128 KiB: the commands go in a script file.
  std::string script = profile_ + ".sh";
  std::ofstream(script) << holder << " " << file << " & " << waiter << " " << file << "; wait\n";
  json p = record({"--fs", fs_->dir()}, {"/bin/sh", script});
  std::filesystem::remove(script);
  ASSERT_FALSE(p.is_discarded());
  ASSERT_TRUE(p.contains("lock_holders")) << "no wait recorded its holder";
  std::uint64_t by_a = 0;
  for (const auto& h : p["lock_holders"])
    if (h["op"] == "write" && (h["holder"] == "fallocate" || h["holder"] == "write"))
      by_a += h["total_ns"].get<std::uint64_t>();
  EXPECT_GT(by_a, 0u) << p["lock_holders"].dump();
  auto rep = run({FSCOST_BIN, "report", profile_, "--view", "locks", "--format", "json"});
  ASSERT_TRUE(rep.ok()) << rep.err;
  json r = json::parse(rep.out, nullptr, false);
  ASSERT_FALSE(r.is_discarded());
  const json* chain = nullptr;
  for (const auto& c : r["locks"]["chains"])
    if (c["op"] == "write") chain = &c;
  ASSERT_NE(chain, nullptr) << r["locks"]["chains"].dump();
  std::string first = (*chain)["hops"][0]["context"].get<std::string>();
  EXPECT_TRUE(first.starts_with("fallocate, ") || first.starts_with("write, ")) << chain->dump();
  auto text = run({FSCOST_BIN, "report", profile_, "--view", "locks"});
  EXPECT_NE(text.out.find("write waited "), std::string::npos) << text.out;
}

TEST_F(RecordFsTest, BpfStatsTimeEveryProgram) {
  json p = record({"--bpf-stats"}, {WORKLOAD_BIN, fs_->dir(), "--files", "500"});
  ASSERT_FALSE(p.is_discarded());
  std::uint64_t enter_runs = 0, ns = 0;
  for (const auto& g : p["bpf_programs"]) {
    ns += g["run_ns"].get<std::uint64_t>();
    if (g["name"].get<std::string>().starts_with("sys_enter")) enter_runs = g["runs"];
  }
  // Every traced syscall entered once at least (other tasks' too).
  EXPECT_GE(enter_runs, op_count(p, "create"));
  EXPECT_GT(ns, 0u);
  // Without the flag nothing is timed.
  std::filesystem::create_directory(fs_->dir() + "/again");
  p = record({}, {WORKLOAD_BIN, fs_->dir() + "/again", "--files", "10"});
  EXPECT_FALSE(p.contains("bpf_programs"));
}

}  // namespace
}  // namespace fscost
