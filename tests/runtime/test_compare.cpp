// fscost compare end to end on real XFS: every output of a tiny compare, the
// safety checks (a device holding a filesystem, bad options) and SIGINT /
// SIGTERM in the middle, after which no mount, loop device or image of the
// compare may remain.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>
#include <thread>

#include "io/profile_io.h"
#include "system/ramdisk.h"
#include "support.h"

namespace fscost {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Args = std::vector<std::string>;

using test::slurp;

// A compare running as a child: stdout and stderr in files.
struct Compare {
  pid_t pid = -1;
  std::string out, err;
  int status = -1;

  std::string stdout_text() const { return slurp(out); }
  std::string stderr_text() const { return slurp(err); }
};

// Runs in the directory of `logs`: workloads that drop files in their
// working directory (fs_mark's fs_log.txt) leave them there.
Compare start(const Args& args, const std::string& logs) {
  Compare c;
  c.out = logs + ".stdout";
  c.err = logs + ".stderr";
  Args argv{FSCOST_BIN, "compare", "-q"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  c.pid = ::fork();
  if (c.pid == 0) {
    int o = ::open(c.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = ::open(c.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(o, 1), ::dup2(e, 2);
    if (::chdir(fs::path(logs).parent_path().c_str()) != 0) _exit(126);
    ::execv(cargv[0], cargv.data());
    _exit(127);
  }
  return c;
}

// Exit code as a shell reports it; kills the child after `limit`.
int wait_exit(Compare& c, std::chrono::seconds limit = std::chrono::seconds(300)) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (::waitpid(c.pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(c.pid, SIGKILL);
      ::waitpid(c.pid, &status, 0);
      ADD_FAILURE() << "compare did not finish in " << limit.count() << " s";
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  c.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return c.status;
}

bool wait_for(const std::vector<std::string>& paths, std::chrono::seconds limit, const Compare& c) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    bool all = true;
    for (const auto& p : paths) all = all && fs::exists(p);
    if (all) return true;
    if (::waitpid(c.pid, nullptr, WNOHANG) != 0) return false;  // it ended early
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// The mountpoints a state directory's state file names.
std::vector<std::string> state_mountpoints(const std::string& state_dir) {
  std::vector<std::string> dirs;
  json j = json::parse(slurp(state_dir + "/state"), nullptr, false);
  if (!j.is_discarded() && j.contains("mounts"))
    for (const auto& m : j["mounts"]) dirs.push_back(m["dir"].get<std::string>());
  return dirs;
}

// What a compare with pid `pid` may have created and not released: its
// images (/dev/shm/fscost-<pid>-*), loop devices over them, mounts of those
// loop devices, its state directory /run/fscost/<pid>-* and the mountpoints
// its state file names (/run/fscost/m-*, not tagged with the pid).
std::vector<std::string> leftovers_of(pid_t pid) {
  std::vector<std::string> found;
  std::string image = "/dev/shm/fscost-" + std::to_string(pid) + "-";
  std::string state = "/run/fscost/" + std::to_string(pid) + "-";
  for (const auto& e : fs::directory_iterator("/dev/shm"))
    if (e.path().string().rfind(image, 0) == 0) found.push_back("image " + e.path().string());
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/run/fscost", ec)) {
    if (e.path().string().rfind(state, 0) != 0) continue;
    found.push_back("state " + e.path().string());
    for (const std::string& dir : state_mountpoints(e.path().string()))
      if (fs::exists(dir)) found.push_back("mountpoint " + dir);
  }
  // losetup -J -l: every loop device and its backing file.
  std::vector<std::string> loops;
  auto lo = run_capture({"losetup", "-J", "-l"});
  if (lo && lo.value().ok() && !lo.value().out.empty()) {
    json j = json::parse(lo.value().out, nullptr, false);
    if (!j.is_discarded())
      for (const auto& d : j["loopdevices"])
        if (d["back-file"].is_string() &&
            d["back-file"].get<std::string>().find(image) != std::string::npos)
          loops.push_back(d["name"].get<std::string>());
  }
  for (const std::string& l : loops) found.push_back("loop " + l);
  // mountinfo: "... - fstype source options"; a mount of one of its loops.
  std::istringstream mounts(slurp("/proc/self/mountinfo"));
  for (std::string line; std::getline(mounts, line);) {
    std::istringstream tail(line.substr(line.find(" - ") + 3));
    std::string fstype, source;
    tail >> fstype >> source;
    if (std::find(loops.begin(), loops.end(), source) != loops.end())
      found.push_back("mount " + line);
  }
  return found;
}

// Loop devices detach at the last close: allow the kernel a moment.
std::vector<std::string> settled_leftovers_of(pid_t pid) {
  std::vector<std::string> found;
  for (int i = 0; i < 50; i++) {
    found = leftovers_of(pid);
    if (found.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return found;
}

// Columns of a line: code points (the diff's text uses µ and ±).
std::size_t columns(const std::string& line) {
  std::size_t cols = 0;
  for (unsigned char ch : line) cols += (ch & 0xC0) != 0x80;
  return cols;
}

// The built-in workload given as a command: the --workload-cmd path.
std::string workload_cmd(int n) {
  return std::string(WORKLOAD_BIN) + " {dir} --workload create --files " + std::to_string(n);
}

class CompareTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FSCOST_REQUIRE_ROOT();
    dir_ = fs::temp_directory_path() / ("fscost-compare-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    out_ = (dir_ / "out").string();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  std::string logs(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
  std::string out_;
};

const Args kRmapbt{"--a", "mkfs: -m rmapbt=0", "--b", "mkfs: -m rmapbt=1", "--size", "512M"};

Args with(Args base, const Args& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

TEST_F(CompareTest, TinyCompareProducesEveryOutput) {
  Compare c =
      start(with(kRmapbt, {"--workload", "create", "--files", "300", "--runs", "2", "-o", out_}),
            logs("tiny"));
  ASSERT_EQ(wait_exit(c), 0) << c.stderr_text();
  EXPECT_EQ(settled_leftovers_of(c.pid), std::vector<std::string>{});

  std::string text = slurp(out_ + "/summary.txt");
  ASSERT_FALSE(text.empty());
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(columns(line), 72u) << line;
  EXPECT_NE(text.find("fscost compare: A rmapbt=0 vs B rmapbt=1"), std::string::npos) << text;
  EXPECT_EQ(text.find("INCOMPLETE"), std::string::npos) << text;
  // The summary is printed and its path named.
  std::string out = c.stdout_text();
  EXPECT_NE(out.find(text.substr(0, 40)), std::string::npos) << out;
  EXPECT_NE(out.find(out_ + "/summary.txt"), std::string::npos) << out;
  EXPECT_NE(out.find(out_ + "/report.html"), std::string::npos) << out;

  json j = json::parse(slurp(out_ + "/summary.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  const json& cmp = j["compare"];
  EXPECT_FALSE(cmp["incomplete"].get<bool>());
  ASSERT_EQ(cmp["runs"].size(), 4u);
  ASSERT_EQ(cmp["order"].size(), 4u);
  std::string order;
  for (const auto& r : cmp["order"]) {
    order += r["config"].get<std::string>();
    EXPECT_EQ(r["status"], "ok");
  }
  EXPECT_EQ(order, "ABBA");
  for (const auto& r : cmp["runs"]) {
    EXPECT_EQ(r["ops_per_s_source"], "workload") << r.dump();
    EXPECT_GT(r["ops_per_s"].get<double>(), 0);
    EXPECT_EQ(r["workload"]["counts"]["create"], 300) << r.dump();
    EXPECT_NE(r["mkfs"].get<std::string>().find("rmapbt="), std::string::npos);
  }
  EXPECT_EQ(cmp["options"]["a"]["mkfs_opts"][1], "rmapbt=0");
  EXPECT_TRUE(j.contains("ops")) << "the diff's own JSON is at the top level";
  // Every run mounted elsewhere; the profiles keep one command, so the diff
  // sees the same workload on both sides.
  auto profile = read_profile(out_ + "/runs/t1/b/run-02.profile");
  ASSERT_TRUE(profile) << profile.error().message;
  EXPECT_NE(profile.value().meta.command.find(" {dir} --workload create --files 300"),
            std::string::npos)
      << profile.value().meta.command;
  for (const auto& w : j["warnings"]) {
    EXPECT_NE(w["kind"], "config-mismatch") << w.dump();
    EXPECT_NE(w["kind"], "dirty") << "the workload syncs its filesystem: " << w.dump();
  }
  // Issue 15: the probes' own cost, from each side's warm-up run; the test
  // device's writes by kind; XFS events of the test filesystem only.
  for (const char* side : {"a", "b"}) EXPECT_GT(j["tracer_ns_per_op"][side].get<double>(), 0);
  const Profile& run2 = profile.value();
  EXPECT_TRUE(run2.setup.contains("tracer_ns_per_op"));
  ASSERT_TRUE(run2.setup.contains("written_after_bytes"));
  EXPECT_LT(std::stod(run2.setup.at("written_after_bytes")), 1 << 20);
  EXPECT_GT(run2.fs_write_bytes.count("log"), 0u);
  EXPECT_TRUE(run2.bpf_programs.empty()) << "only the warm-up pays for bpf_stats";
  // xfs_info runs once per geometry: each run still holds its own side's.
  // Issue 43: two images, so each run's filesystem was made on the device
  // the run before did not hold; in plan order ABBA: A1 B1 B2 A2.
  EXPECT_EQ(cmp["storage"], "512.0 MiB RAM disk, two images (loop devices over /dev/shm)");
  std::map<std::string, std::string> device;
  for (const char* side : {"a", "b"})
    for (const char* run : {"run-01", "run-02"}) {
      auto p = read_profile(out_ + "/runs/t1/" + side + "/" + run + ".profile");
      ASSERT_TRUE(p) << p.error().message;
      const std::string info = p.value().setup["fs_info"];
      EXPECT_NE(info.find(side == std::string("a") ? "rmapbt=0" : "rmapbt=1"), std::string::npos)
          << side << "/" << run << ": " << info;
      device[std::string(side) + run] = p.value().setup["device"];
      EXPECT_NE(p.value().setup["mkfs_command"].find("/dev/" + device[std::string(side) + run]),
                std::string::npos);
    }
  EXPECT_NE(device["arun-01"], device["brun-01"]);
  EXPECT_NE(device["brun-01"], device["brun-02"]);
  EXPECT_NE(device["brun-02"], device["arun-02"]);
  EXPECT_EQ(device["arun-01"], device["brun-02"]);

  std::string html = slurp(out_ + "/report.html");
  EXPECT_NE(html.find("compare-order"), std::string::npos);
  EXPECT_NE(html.find("compare-workload"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  for (const char* side : {"a", "b"})
    for (const char* run : {"run-01", "run-02"})
      for (const char* ext : {".profile", ".out", ".err", ".json"}) {
        std::string p = out_ + "/runs/t1/" + side + "/" + run + ext;
        EXPECT_TRUE(fs::exists(p)) << p;
      }
  // Issue 28: as root, every output is private: files 0600, directories 0700.
  std::size_t checked = 0;
  auto mode = [](const fs::path& p) { return fs::symlink_status(p).permissions() & fs::perms::mask; };
  EXPECT_EQ(mode(out_), fs::perms::owner_all);
  for (const auto& e : fs::recursive_directory_iterator(out_)) {
    fs::perms want = e.is_directory() ? fs::perms::owner_all
                                      : fs::perms::owner_read | fs::perms::owner_write;
    EXPECT_EQ(mode(e.path()), want) << e.path();
    ++checked;
  }
  EXPECT_GT(checked, 20u);
  // Issue 41: the held directory's /proc/self/fd/N is fscost's, not a path
  // a reader can open: no output names it (the pages' run lists did).
  for (const auto& e : fs::recursive_directory_iterator(out_)) {
    if (!e.is_regular_file()) continue;
    EXPECT_EQ(slurp(e.path().string()).find("/proc/self/fd"), std::string::npos) << e.path();
  }
  EXPECT_EQ(c.stdout_text().find("/proc/self/fd"), std::string::npos) << c.stdout_text();
  EXPECT_EQ(c.stderr_text().find("/proc/self/fd"), std::string::npos) << c.stderr_text();
}

// Issue 20: two filesystems, each made by its own mkfs on the RAM disk.
// ext4 against XFS on one create workload: every profile says which it
// ran, each side counts its own filesystem's events, and the explanation
// calls each side's own code a different code path (ext4/jbd2's, XFS's),
// never new code.
TEST_F(CompareTest, Ext4AgainstXfsNamesEachFilesystemsOwnCode) {
  Compare c = start({"--a", "fs: ext4", "--b", "fs: xfs", "--size", "512M", "--workload",
                     "create", "--files", "2000", "--runs", "3", "-o", out_},
                    logs("ext4-xfs"));
  ASSERT_EQ(wait_exit(c), 0) << c.stderr_text();
  EXPECT_EQ(settled_leftovers_of(c.pid), std::vector<std::string>{});
  std::string text = slurp(out_ + "/summary.txt");
  EXPECT_NE(text.find("fscost compare: A ext4 vs B xfs"), std::string::npos) << text;
  json j = json::parse(slurp(out_ + "/summary.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["a"]["fs"], "ext4");
  EXPECT_EQ(j["b"]["fs"], "xfs");
  for (const auto& r : j["compare"]["runs"])
    EXPECT_NE(r["mkfs"].get<std::string>().find(r["config"] == "A" ? "mkfs.ext4" : "mkfs.xfs"),
              std::string::npos)
        << r.dump();
  bool fs_asked = false;
  for (const auto& s : j["setup"]["differences"])
    if (s["name"] == "fs") fs_asked = s["asked"].get<bool>() && s["a"] == "ext4" && s["b"] == "xfs";
  EXPECT_TRUE(fs_asked) << j["setup"].dump();

  const json* create = nullptr;
  for (const auto& op : j["ops"])
    if (op["op"] == "create") create = &op;
  ASSERT_NE(create, nullptr);
  // Each side's own events: a journal handle per create on ext4, a
  // transaction per create on XFS, none of the other's.
  const json& ev = (*create)["fs_events"];
  ASSERT_TRUE(ev.contains("jbd2_handle_start")) << ev.dump();
  ASSERT_TRUE(ev.contains("xfs_trans_alloc")) << ev.dump();
  EXPECT_GE(ev["jbd2_handle_start"]["a_summary"]["mean"].get<double>(), 1.0);
  EXPECT_EQ(ev["jbd2_handle_start"]["b_summary"]["mean"].get<double>(), 0.0);
  EXPECT_GE(ev["xfs_trans_alloc"]["b_summary"]["mean"].get<double>(), 1.0);
  EXPECT_EQ(ev["xfs_trans_alloc"]["a_summary"]["mean"].get<double>(), 0.0);

  // The on-CPU parts: one per side's own code, named by its entry frames.
  std::map<std::string, std::string> own;  // fs → detail
  for (const auto& p : (*create)["oncpu_parts"]) {
    EXPECT_NE(p["kind"], "new-code") << p.dump();
    if (p["kind"] == "fs-path") own[p["fs"].get<std::string>()] = p["detail"].get<std::string>();
  }
  ASSERT_TRUE(own.contains("xfs")) << (*create)["oncpu_parts"].dump();
  ASSERT_TRUE(own.contains("ext4/jbd2")) << (*create)["oncpu_parts"].dump();
  EXPECT_NE(own["xfs"].find("entered at xfs_"), std::string::npos) << own["xfs"];
  EXPECT_NE(own["ext4/jbd2"].find("entered at ext4_"), std::string::npos) << own["ext4/jbd2"];
  // Call paths through a side's code are that side's different code path.
  for (const auto& p : (*create)["paths"]) {
    EXPECT_NE(p["kind"], "new-code") << p.dump();
    if (p["kind"] != "fs-path") continue;
    bool up = p["inclusive"]["delta"].get<double>() > 0;
    EXPECT_EQ(p["fs"], up ? "xfs" : "ext4/jbd2") << p.dump();
  }
}

// Issue 20: three filesystems at once (--config), in a balanced order; the
// matrix of ops/s and sys µs per op, and each one's diff against the
// baseline, where the matrix's cells point.
TEST_F(CompareTest, ThreeFilesystemsMakeAMatrixWithADiffEach) {
  Compare c = start({"--config", "ext4=fs: ext4", "--config", "btrfs=fs: btrfs", "--config",
                     "xfs=fs: xfs", "--baseline", "xfs", "--size", "512M", "--workload", "create",
                     "--files", "500", "--runs", "2", "--threads", "1,2", "-o", out_},
                    logs("matrix"));
  ASSERT_EQ(wait_exit(c), 0) << c.stderr_text();
  EXPECT_EQ(settled_leftovers_of(c.pid), std::vector<std::string>{});
  std::string text = slurp(out_ + "/summary.txt");
  EXPECT_NE(text.find("fscost compare: 3 configurations against C xfs"), std::string::npos) << text;
  EXPECT_NE(text.find("A ext4 against C xfs (vs-ext4/summary.txt):"), std::string::npos) << text;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(columns(line), 72u) << line;

  json j = json::parse(slurp(out_ + "/summary.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["format"], "fscost-compare-matrix");
  EXPECT_EQ(j["baseline"], "xfs");
  ASSERT_EQ(j["configs"].size(), 3u);
  ASSERT_EQ(j["cells"].size(), 6u);
  for (const auto& cell : j["cells"]) {
    EXPECT_EQ(cell["ops_per_s"]["n"], 2) << cell.dump();
    EXPECT_GT(cell["ops_per_s"]["mean"].get<double>(), 0) << cell.dump();
    EXPECT_GT(cell["sys_us_per_op"]["mean"].get<double>(), 0) << cell.dump();
    if (cell["config"] == "xfs") {
      EXPECT_TRUE(cell["diff"].is_null()) << cell.dump();
      continue;
    }
    ASSERT_TRUE(cell["diff"].is_string()) << cell.dump();
    EXPECT_TRUE(fs::exists(out_ + "/" + cell["diff"].get<std::string>())) << cell.dump();
  }
  // Every block holds each configuration once, in turn forward and back.
  std::map<int, std::string> order;
  for (const auto& r : j["order"]) order[r["threads"].get<int>()] += r["config"].get<std::string>();
  EXPECT_EQ(order[1], "ABCCBA");
  EXPECT_EQ(order[2], "ABCCBA");
  for (const char* side : {"a", "b", "c"}) EXPECT_TRUE(fs::exists(out_ + "/runs/t2/" + side));
  // Each pair is the baseline (A) against the configuration (B).
  for (const auto& [name, fs_name] : {std::pair{"ext4", "ext4"}, {"btrfs", "btrfs"}}) {
    json pair = json::parse(slurp(out_ + "/vs-" + name + "/summary.json"), nullptr, false);
    ASSERT_FALSE(pair.is_discarded()) << name;
    EXPECT_EQ(pair["a"]["fs"], "xfs") << name;
    EXPECT_EQ(pair["b"]["fs"], fs_name) << name;
    EXPECT_EQ(pair["compare"]["runs"].size(), 8u) << name;
    // The matrix quotes the pair's summary.txt above its rule word for
    // word; it renders it from the pair's diff, not by cutting the file.
    std::string pair_text = slurp(out_ + "/vs-" + name + "/summary.txt");
    std::size_t rule = pair_text.find("\n" + std::string(72, '-'));
    ASSERT_NE(rule, std::string::npos) << pair_text;
    EXPECT_NE(text.find("summary.txt):\n" + pair_text.substr(0, rule + 1)), std::string::npos)
        << name << "\n" << text;
  }
  // btrfs counts its own events on its superblock, whose dev_t is the
  // mount's, not the subvolume's that stat() gives.
  json btrfs = json::parse(slurp(out_ + "/vs-btrfs/summary.json"), nullptr, false);
  for (const auto& op : btrfs["ops"])
    if (op["op"] == "create") {
      ASSERT_TRUE(op["fs_events"].contains("btrfs_inode_new")) << op["fs_events"].dump();
      EXPECT_NEAR(op["fs_events"]["btrfs_inode_new"]["b_summary"]["mean"].get<double>(), 1.0, 0.01);
      EXPECT_GT(op["fs_events"]["btrfs_tree_lock"]["b_summary"]["mean"].get<double>(), 1.0);
    }
  EXPECT_NE(slurp(out_ + "/report.html").find("<table class=\"matrix\">"), std::string::npos);
}

// Issue 19: a compare loads its BPF programs once and empties their maps
// between runs. Each run must count what a separate `fscost record` of the
// same workload on a fresh filesystem of the same configuration counts:
// every op exactly, the XFS transactions of each op, no drop: nothing
// carried over from the run before (test_recorder.cpp: stale thread state).
TEST_F(CompareTest, EachRunCountsWhatASeparateRecordCounts) {
  Compare c = start(with(kRmapbt, {"--workload", "create", "--files", "400", "--runs", "2", "-o",
                                   out_}),
                    logs("same"));
  ASSERT_EQ(wait_exit(c), 0) << c.stderr_text();

  // A's workload as the compare ran it, on a filesystem of A's of our own.
  json run = json::parse(slurp(out_ + "/runs/t1/a/run-01.json"), nullptr, false);
  ASSERT_FALSE(run.is_discarded());
  auto scratch = ScratchXfs::create(512ull << 20, {"-m", "rmapbt=0"});
  ASSERT_TRUE(scratch) << scratch.error().message;
  std::string alone = (dir_ / "alone.profile").string();
  Args argv{FSCOST_BIN, "record", "-q", "--fs", scratch.value().dir(), "-o", alone, "--"};
  for (const auto& w : run["workload_argv"]) {
    std::string word = w.get<std::string>();
    if (word == run["workload_argv"][1]) word = scratch.value().dir();  // the mountpoint
    argv.push_back(word);
  }
  auto rec = run_capture(argv);
  ASSERT_TRUE(rec && rec.value().ok()) << (rec ? rec.value().err : rec.error().message);
  auto expected = read_profile(alone);
  ASSERT_TRUE(expected) << expected.error().message;

  auto counts = [](const Profile& p) {
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> m;
    // "other" (futex, madvise, …) varies with timing; every named op is exact.
    for (const OpStats& o : p.ops)
      if (o.name != "other") m[o.name] = {o.count, o.errors};
    return m;
  };
  auto trans = [](const Profile& p, const std::string& op) {
    for (const OpStats& o : p.ops)
      if (o.name == op)
        return std::tuple{
            o.fs_events.count("xfs_trans_alloc") ? o.fs_events.at("xfs_trans_alloc") : 0,
            o.trans_min, o.trans_max};
    return std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>{};
  };
  const Profile& want = expected.value();
  ASSERT_EQ(counts(want).at("create").first, 400u);
  for (const char* side : {"a", "b"})
    for (const char* run : {"run-01", "run-02"}) {
      std::string path = out_ + "/runs/t1/" + side + "/" + run + ".profile";
      auto got = read_profile(path);
      ASSERT_TRUE(got) << path << ": " << got.error().message;
      const Profile& p = got.value();
      EXPECT_EQ(counts(p), counts(want)) << path;
      EXPECT_EQ(trans(p, "create"), trans(want, "create")) << path;
      EXPECT_EQ(p.meta.probes, want.meta.probes) << path;
      EXPECT_EQ(p.meta.freq_hz, want.meta.freq_hz) << path;
      for (const auto& [name, n] : p.drops) EXPECT_EQ(n, 0u) << path << ": " << name;
      EXPECT_GT(p.samples_total, 0u) << path;
      EXPECT_GT(p.fs_write_bytes.count("log"), 0u) << path << ": the run's own log range";
    }
}

TEST_F(CompareTest, SummaryLinesFitInMail) {
  // --quiet: no JSON line, so ops/s comes from the profile.
  std::string quiet = workload_cmd(200) + " --quiet";
  Compare c = start(with(kRmapbt, {"--workload-cmd", quiet, "--runs", "2", "--label-a",
                                   "a-label-that-is-long-enough-to-need-folding-"
                                   "in-the-header-of-the-summary",
                                   "-o", out_}),
                    logs("mail"));
  ASSERT_EQ(wait_exit(c), 0) << c.stderr_text();
  std::istringstream lines(slurp(out_ + "/summary.txt"));
  std::size_t n = 0;
  for (std::string line; std::getline(lines, line); n++) EXPECT_LE(columns(line), 72u) << line;
  EXPECT_GT(n, 5u);
  json j = json::parse(slurp(out_ + "/summary.json"), nullptr, false);
  EXPECT_EQ(j["compare"]["runs"][0]["ops_per_s_source"], "profile");
  EXPECT_GT(j["compare"]["runs"][0]["ops_per_s"].get<double>(), 0);
  EXPECT_TRUE(fs::exists(out_ + "/runs/a/run-01.profile"));  // no thread dimension
}

// A third-party workload over a thread sweep: fs_mark's own Files/sec,
// each thread count's diff in its directory, the headline the largest.
TEST_F(CompareTest, FsMarkSweepWritesEveryThreadCount) {
  auto which = run_capture({"sh", "-c", "command -v fs_mark"});
  FSCOST_REQUIRE(which && which.value().ok(),
                 "fs_mark not installed (scripts/setup.sh installs fsmark)");
  // fs_mark itself exited 1 once in about twenty CI runs (a run of 2
  // threads, on a fresh filesystem, nothing else wrong): one more compare
  // before the test fails, so a rare fs_mark failure is not taken for ours.
  Compare c;
  for (int attempt = 0; attempt < 2; ++attempt) {
    fs::remove_all(out_);
    c = start(with(kRmapbt, {"--workload-cmd", "fs_mark -d {dir} -n 1000 -s 0 -S 0 -t {threads}",
                             "--threads", "1,2", "--runs", "2", "-o", out_}),
              logs("fsmark"));
    if (wait_exit(c) == 0) break;
    std::string err = c.stderr_text();
    if (err.find("the workload exited with status") == std::string::npos) break;  // ours
    std::cerr << "fs_mark failed in compare " << attempt + 1 << ":\n" << err << "\n";
  }
  ASSERT_EQ(c.status, 0) << c.stderr_text();
  json j = json::parse(slurp(out_ + "/summary.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  const json& cmp = j["compare"];
  EXPECT_EQ(cmp["headline_threads"], 2);
  ASSERT_EQ(cmp["runs"].size(), 8u);
  for (const auto& r : cmp["runs"]) {
    EXPECT_EQ(r["ops_per_s_source"], "fs_mark Files/sec") << r.dump();
    EXPECT_GT(r["ops_per_s"].get<double>(), 0);
  }
  ASSERT_EQ(cmp["points"].size(), 2u);
  EXPECT_TRUE(cmp["points"][0].contains("diff")) << "the other thread count's diff";
  EXPECT_FALSE(cmp["points"][1].contains("diff")) << "the headline's is at the top level";
  EXPECT_EQ(cmp["scaling"]["points"].size(), 2u);
  for (const char* f : {"summary.txt", "summary.json", "report.html"})
    EXPECT_TRUE(fs::exists(out_ + "/runs/t1/" + f)) << f;
  std::string text = slurp(out_ + "/summary.txt");
  EXPECT_NE(text.find("Headline: 2 threads"), std::string::npos) << text;
  EXPECT_NE(text.find("Other thread counts: runs/t1/summary.txt"), std::string::npos) << text;
  std::string html = slurp(out_ + "/report.html");
  EXPECT_NE(html.find("id=\"compare-points\""), std::string::npos);
  EXPECT_NE(html.find("Operations per second"), std::string::npos);
}

// Issue 41: the seed's fs_mark with -D. Debian's fs_mark 3.3 overflows a
// fixed buffer ("*** buffer overflow detected ***") when its -d path has
// 37 characters or more with -D; the scratch mountpoint alone was 36.
TEST_F(CompareTest, FsMarkWithSubdirectoriesRunsInACompare) {
  auto which = run_capture({"sh", "-c", "command -v fs_mark"});
  FSCOST_REQUIRE(which && which.value().ok(),
                 "fs_mark not installed (scripts/setup.sh installs fsmark)");
  Compare c =
      start(with(kRmapbt, {"--workload-cmd", "fs_mark -d {dir}/t -D16 -N256 -L1 -s0 -n2000 -t2 -S0",
                           "--runs", "1", "--warmup", "1", "-o", out_}),
            logs("fsmark-D"));
  ASSERT_EQ(wait_exit(c), 0) << c.stderr_text();
  json j = json::parse(slurp(out_ + "/summary.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  ASSERT_EQ(j["compare"]["runs"].size(), 2u);
  for (const auto& r : j["compare"]["runs"]) {
    EXPECT_EQ(r["ops_per_s_source"], "fs_mark Files/sec") << r.dump();
    EXPECT_GT(r["ops_per_s"].get<double>(), 0);
  }
  EXPECT_EQ(settled_leftovers_of(c.pid), std::vector<std::string>{});
}

TEST_F(CompareTest, RefusesADeviceHoldingAFilesystemUnlessForced) {
  auto image = ShmImage::create(512ull << 20);
  ASSERT_TRUE(image) << image.error().message;
  auto loop = LoopDevice::attach(image.value().path());
  ASSERT_TRUE(loop) << loop.error().message;
  const std::string dev = loop.value().path();
  ASSERT_TRUE(run_mkfs_xfs(dev, {}));
  Args args{"--a",
            "mkfs: -m rmapbt=0",
            "--b",
            "mkfs: -m rmapbt=1",
            "--device",
            dev,
            "--workload-cmd",
            workload_cmd(100),
            "--runs",
            "1",
            "-o",
            out_};

  Compare refused = start(args, logs("refused"));
  EXPECT_EQ(wait_exit(refused), 1);
  std::string err = refused.stderr_text();
  EXPECT_NE(err.find(dev + " holds an xfs filesystem"), std::string::npos) << err;
  EXPECT_NE(err.find("--force"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(out_));
  // The filesystem is untouched.
  auto still = check_device_unused(dev, false);
  ASSERT_FALSE(still);
  std::string uuid_before = still.error().message;

  Compare forced = start(with(args, {"--force"}), logs("forced"));
  EXPECT_EQ(wait_exit(forced), 0) << forced.stderr_text();
  EXPECT_TRUE(fs::exists(out_ + "/runs/b/run-01.profile"));
  auto after = check_device_unused(dev, false);
  ASSERT_FALSE(after);
  EXPECT_NE(after.error().message, uuid_before) << "formatted again: a new UUID";
  EXPECT_EQ(settled_leftovers_of(forced.pid), std::vector<std::string>{});
}

TEST_F(CompareTest, BadMkfsOptionStopsBeforeAnything) {
  Compare c = start({"--a", "mkfs: -m rmapbt=0", "--b", "mkfs: -m fscost_bogus=1", "--size", "512M",
                     "--workload-cmd", workload_cmd(100), "-o", out_},
                    logs("mkfs"));
  EXPECT_EQ(wait_exit(c), 1);
  std::string err = c.stderr_text();
  EXPECT_NE(err.find("configuration B (fscost_bogus=1): mkfs.xfs rejects its options"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("fscost_bogus"), std::string::npos) << err;
  EXPECT_EQ(err.find("Usage"), std::string::npos) << "mkfs's usage text is cut: " << err;
  EXPECT_FALSE(fs::exists(out_));
  EXPECT_EQ(settled_leftovers_of(c.pid), std::vector<std::string>{});
}

// --mkfs: a wrapper that quietly adds an option to B's mkfs (as xfsprogs
// 6.15's -n parent=1 turns on exchange). The diff must list it as an
// incidental difference on the first screen, and the asked one as asked.
TEST_F(CompareTest, MkfsWrapperThatAddsAnOptionIsAnIncidentalDifference) {
  std::string wrapper = (dir_ / "mkfs.xfs").string();
  {
    std::ofstream w(wrapper);
    w << "#!/bin/sh\n"
         "case \"$*\" in *rmapbt=1*) exec /sbin/mkfs.xfs -i sparse=0 \"$@\";; esac\n"
         "exec /sbin/mkfs.xfs \"$@\"\n";
  }
  fs::permissions(wrapper, fs::perms::owner_all);
  // An xfs_info beside it, in a tree under /tmp (other-writable): root must
  // not run it (issue 41), and says that it took the system's instead.
  std::string ran = (dir_ / "xfs_info-ran").string();
  std::ofstream(dir_ / "xfs_info") << "#!/bin/sh\ntouch " << ran << "\nexec xfs_info \"$@\"\n";
  Compare c = start(with(kRmapbt, {"--mkfs", wrapper, "--workload-cmd", workload_cmd(200),
                                   "--runs", "2", "-o", out_}),
                    logs("wrapper"));
  ASSERT_EQ(wait_exit(c), 0) << c.stderr_text();
  EXPECT_FALSE(fs::exists(ran)) << "ran a script beside --mkfs that others could have placed";
  EXPECT_NE(c.stderr_text().find("not running " + (dir_ / "xfs_info").string() + " as root ("),
            std::string::npos)
      << c.stderr_text();
  EXPECT_NE(c.stderr_text().find("is writable by others); the system's xfs_info instead"),
            std::string::npos)
      << c.stderr_text();
  json s = json::parse(slurp(out_ + "/summary.json"));
  const json& setup = s["setup"];
  ASSERT_TRUE(setup["recorded"].get<bool>()) << setup.dump();
  std::map<std::string, json> by_name;
  for (const auto& d : setup["differences"]) by_name[d["name"].get<std::string>()] = d;
  ASSERT_TRUE(by_name.contains("meta-data.sparse")) << setup.dump();
  EXPECT_FALSE(by_name["meta-data.sparse"]["asked"].get<bool>());
  EXPECT_EQ(by_name["meta-data.sparse"]["b"], "0");
  ASSERT_TRUE(by_name.contains("meta-data.rmapbt")) << setup.dump();
  EXPECT_TRUE(by_name["meta-data.rmapbt"]["asked"].get<bool>());
  EXPECT_EQ(by_name.size(), 2u) << setup.dump();
  std::string text = slurp(out_ + "/summary.txt");
  auto at = text.find("meta-data.sparse 1 -> 0 (incidental)");
  EXPECT_NE(at, std::string::npos) << text;
  EXPECT_LT(at, text.find(std::string(72, '-'))) << "not on the first screen";
  EXPECT_NE(text.find(wrapper), std::string::npos) << "the header names the mkfs used";
  EXPECT_EQ(settled_leftovers_of(c.pid), std::vector<std::string>{});
  // A command gets the built-in workload's end: a traced syncfs of its
  // filesystem ("sync"), so nothing is left dirty after the run.
  auto p = read_profile(out_ + "/runs/b/run-01.profile");
  ASSERT_TRUE(p) << p.error().message;
  bool synced = false;
  for (const auto& op : p.value().ops) synced |= op.name == "sync" && op.count == 1;
  EXPECT_TRUE(synced);
  for (const auto& w : s["warnings"]) EXPECT_NE(w["kind"], "dirty") << w.dump();
}

TEST_F(CompareTest, MkfsThatIsNotExecutableIsRefusedFirst) {
  Compare c = start(with(kRmapbt, {"--mkfs", (dir_ / "nonexistent").string(), "--workload-cmd",
                                   workload_cmd(100), "-o", out_}),
                    logs("nomkfs"));
  EXPECT_EQ(wait_exit(c), 1);
  EXPECT_NE(c.stderr_text().find("--mkfs " + (dir_ / "nonexistent").string()), std::string::npos)
      << c.stderr_text();
  // Not a mkfs.xfs at all: its -V says so before anything is made.
  Compare t = start(with(kRmapbt, {"--mkfs", "/bin/true", "--workload-cmd", workload_cmd(100),
                                   "-o", out_}),
                    logs("true"));
  EXPECT_EQ(wait_exit(t), 1);
  EXPECT_NE(t.stderr_text().find("not a mkfs.xfs version"), std::string::npos) << t.stderr_text();
  EXPECT_FALSE(fs::exists(out_));
  EXPECT_EQ(settled_leftovers_of(t.pid), std::vector<std::string>{});
}

// The README demo's sizes (scripts/demo.sh: 20000 files of 4 KiB per
// thread, 2 GiB) keep every run clear of ENOSPC at its largest thread count;
// at the 1 GiB it once used, each create run sleeps in XFS's ENOSPC flush
// (docs/CASES.md §2.0) and the diff must say so.
TEST_F(CompareTest, DemoSizesStayClearOfEnospcAndOneGibDoesNot) {
  auto enospc = [&](const std::string& size) {
    fs::remove_all(out_);
    Compare c = start({"--a", "mkfs: -m rmapbt=0", "--b", "mkfs: -m rmapbt=1", "--size", size,
                       "--workload", "create", "--files", "20000", "--write", "4096",
                       "--threads", "2", "--runs", "1", "-o", out_},
                      logs("demo-" + size));
    EXPECT_EQ(wait_exit(c), 0) << c.stderr_text();
    EXPECT_EQ(settled_leftovers_of(c.pid), std::vector<std::string>{});
    json s = json::parse(slurp(out_ + "/summary.json"), nullptr, false);
    std::string found;
    if (s.is_object())
      for (const auto& w : s["warnings"])
        if (w["kind"] == "enospc" || w["kind"] == "low-space") found += w["message"].get<std::string>() + "\n";
    return found;
  };
  EXPECT_EQ(enospc("2G"), "");
  // The demo's summary (one run a side here) within issue 31's limits.
  test::expect_summary_limits(slurp(out_ + "/summary.txt"));
  // At 1 GiB every create run enters the ENOSPC flush, and the diff says so.
  // Who waited on the create asleep in that flush (issue 16's chain) is
  // timing: whether the flush meets a waiter varied from 1 side in 6 to 4 in
  // 6 on the AMD guest, and 0 in 6 three compares in a row in a loaded CI
  // run (2026-12-06). It is decided from recorded runs instead, by
  // unit.CaseVerdicts.EnospcFlushChainIsFoundAndSaysWhy (tests/data/cases/
  // enospc-flush), not here.
  std::string at_1g = enospc("1G");
  EXPECT_NE(at_1g.find("ran out of free space"), std::string::npos) << at_1g;
  EXPECT_NE(at_1g.find("xfs_flush_inodes"), std::string::npos) << at_1g;
}

// Issue 29: --until-resolved adds interleaved pairs while the headline op's
// time is not resolved and the noise says MAX runs a side would; it says
// why it stopped, and the runs it added are in every output. Whether this
// host's noise asks for more runs is not up to the test: it checks that
// what the compare did matches what it said.
TEST_F(CompareTest, UntilResolvedAddsRunsOrSaysWhyNot) {
  Compare c = start({"--a", "", "--b", "mkfs: -m rmapbt=0", "--size", "512M", "--workload",
                     "create", "--files", "300", "--runs", "2", "--warmup", "0",
                     "--until-resolved=3", "-o", out_},
                    logs("until"));
  ASSERT_EQ(wait_exit(c), 0) << c.stderr_text();
  EXPECT_EQ(settled_leftovers_of(c.pid), std::vector<std::string>{});
  // -q keeps the progress notes off stderr: the runs tell.
  json j = json::parse(slurp(out_ + "/summary.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  const json& cmp = j["compare"];
  EXPECT_EQ(cmp["options"]["until_resolved"], 3);
  std::size_t runs = cmp["runs"].size();
  EXPECT_TRUE(runs == 4 || runs == 6) << runs;
  if (runs == 6) {
    // The added pair is the third run of each side, in BA order after ABBA.
    std::string order;
    for (const auto& r : cmp["order"]) order += r["config"].get<std::string>();
    EXPECT_EQ(order, "ABBAAB") << "after 2 runs a side the pair starts with A";
    for (const char* side : {"a", "b"})
      EXPECT_TRUE(fs::exists(out_ + "/runs/t1/" + side + "/run-03.profile")) << side;
  }
}

TEST_F(CompareTest, FailingWorkloadStopsWithItsMessage) {
  Compare c = start(with(kRmapbt, {"--workload-cmd",
                                   "sh -c 'echo fscost-test-boom >&2; exit 1' {dir}", "-o", out_}),
                    logs("fail"));
  EXPECT_EQ(wait_exit(c), 1);
  std::string err = c.stderr_text();
  EXPECT_NE(err.find("the first run (A (rmapbt=0) warm-up run) failed: the workload exited with "
                     "status 1"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("fscost-test-boom"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(out_)) << "nothing worth keeping";
  EXPECT_EQ(settled_leftovers_of(c.pid), std::vector<std::string>{});
}

// A --workload-cmd that counts its calls in `counter` ($n, from 1), runs
// `act` (shell) with it, then the built-in workload's 200 creates.
std::string counted_cmd(const fs::path& counter, const std::string& act) {
  const std::string c = counter.string();
  return "sh -c 'n=$(cat " + c + " 2>/dev/null || echo 0); n=$((n+1)); echo $n > " + c + "; " +
         act + "; exec " + WORKLOAD_BIN + " \"$0\" --workload create --files 200' {dir}";
}

TEST_F(CompareTest, ASlowFirstRunIsAWarmupAfterAllAndReplaced) {
  // --warmup auto with a command: one full warm-up of each side (calls 1
  // and 2), then AB BA AB. Call 3, A's first measured run, sleeps 2 s; A's
  // later runs take a fraction of that, so the rule discards it and runs A
  // once more. No steal re-runs: a run run again would shift the calls.
  std::string cmd = counted_cmd(dir_ / "count", "if [ $n -eq 3 ]; then sleep 2; fi");
  Compare c = start(with(kRmapbt, {"--workload-cmd", cmd, "--runs", "3", "--steal-reruns", "0",
                                   "-o", out_}),
                    logs("warmup"));
  ASSERT_EQ(wait_exit(c), 0) << c.stderr_text();
  EXPECT_EQ(settled_leftovers_of(c.pid), std::vector<std::string>{});
  json j = json::parse(slurp(out_ + "/summary.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  const json& cmp = j["compare"];
  EXPECT_EQ(cmp["options"]["warmup_runs_per_config"], "auto");
  std::string order;
  for (const auto& r : cmp["order"])
    order += r["config"].get<std::string>() + r["status"].get<std::string>() + ",";
  EXPECT_EQ(order, "Awarm-up,Bok,Bok,Aok,Aok,Bok,Aok,") << cmp["order"].dump();
  ASSERT_EQ(cmp["runs"].size(), 7u);
  EXPECT_NE(cmp["runs"][0]["warmup"].get<std::string>().find(" s of its later runs"),
            std::string::npos);
  EXPECT_GE(cmp["runs"][0]["seconds"].get<double>(), 2.0);
  // Its files are gone; the replacement is A's fourth run; the diff has 3 a side.
  EXPECT_FALSE(fs::exists(out_ + "/runs/a/run-01.profile"));
  EXPECT_FALSE(fs::exists(out_ + "/runs/a/run-01.json"));
  EXPECT_TRUE(fs::exists(out_ + "/runs/a/run-04.profile"));
  EXPECT_EQ(cmp["points"][0]["runs_a"], 3);
  EXPECT_EQ(cmp["points"][0]["runs_b"], 3);
  std::string text = slurp(out_ + "/summary.txt");
  EXPECT_NE(text.find("a warm-up after all"), std::string::npos) << text;
  EXPECT_EQ(text.find("INCOMPLETE"), std::string::npos) << text;
}

TEST_F(CompareTest, ALaterFailureKeepsTheFinishedRuns) {
  // The third run fails: the first pair is kept and diffed, marked incomplete.
  // No steal re-runs: a stolen run run again would count twice here.
  std::string cmd =
      counted_cmd(dir_ / "count", "if [ $n -ge 3 ]; then echo late-failure >&2; exit 4; fi");
  Compare c =
      start(with(kRmapbt, {"--workload-cmd", cmd, "--runs", "3", "--warmup", "0",
                           "--steal-reruns", "0", "-o", out_}),
                logs("late"));
  EXPECT_EQ(wait_exit(c), 1) << c.stderr_text();
  EXPECT_EQ(settled_leftovers_of(c.pid), std::vector<std::string>{});
  std::string text = slurp(out_ + "/summary.txt");
  EXPECT_NE(text.find("INCOMPLETE: run 3 (B (rmapbt=1) run 2/3) failed: the workload exited"),
            std::string::npos)
      << text;
  json j = json::parse(slurp(out_ + "/summary.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  std::string statuses;
  for (const auto& r : j["compare"]["order"]) statuses += r["status"].get<std::string>() + ",";
  EXPECT_EQ(statuses, "ok,ok,failed,not run,not run,not run,");
  EXPECT_EQ(j["compare"]["runs"][2]["exit_code"], 4);
  EXPECT_TRUE(j.contains("ops")) << "the first pair is diffed";
  // The failed run keeps its output for diagnosis, but no profile.
  EXPECT_NE(slurp(out_ + "/runs/b/run-02.err").find("late-failure"), std::string::npos);
  EXPECT_FALSE(fs::exists(out_ + "/runs/b/run-02.profile"));
}

TEST_F(CompareTest, RamDiskLargerThanShmIsRefused) {
  Compare c = start({"--a", "", "--b", "mkfs: -m rmapbt=1", "--size", "100T", "--workload-cmd",
                     workload_cmd(100), "-o", out_},
                    logs("size"));
  EXPECT_EQ(wait_exit(c), 1);
  std::string err = c.stderr_text();
  EXPECT_NE(err.find("RAM disk does not fit in /dev/shm"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(out_));
  EXPECT_EQ(settled_leftovers_of(c.pid), std::vector<std::string>{});
}

TEST_F(CompareTest, SigintKeepsFinishedRunsAndReleasesEverything) {
  // Each run lasts at least half a second, so the signal finds one going.
  std::string cmd = "sh -c '" + std::string(WORKLOAD_BIN) +
                    " \"$0\" --workload create --files 3000 && sleep 0.5' {dir}";
  Compare c =
      start(with(kRmapbt, {"--workload-cmd", cmd, "--runs", "4", "--warmup", "0", "-o", out_}),
                logs("sigint"));
  // The first block (A and B) finished: a complete pair.
  bool pair = wait_for({out_ + "/runs/a/run-01.json", out_ + "/runs/b/run-01.json"},
                       std::chrono::seconds(180), c);
  ASSERT_TRUE(pair) << c.stderr_text();
  ::kill(c.pid, SIGINT);
  EXPECT_EQ(wait_exit(c), 130) << c.stderr_text();
  EXPECT_EQ(settled_leftovers_of(c.pid), std::vector<std::string>{});

  std::string text = slurp(out_ + "/summary.txt");
  EXPECT_NE(text.find("INCOMPLETE: interrupted by SIGINT"), std::string::npos) << text;
  json j = json::parse(slurp(out_ + "/summary.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_TRUE(j["compare"]["incomplete"].get<bool>());
  std::size_t ok = 0, stopped = 0;
  for (const auto& r : j["compare"]["order"]) {
    ok += r["status"] == "ok";
    stopped += r["status"] == "interrupted" || r["status"] == "not run";
  }
  EXPECT_GE(ok, 2u);
  EXPECT_EQ(ok + stopped, 8u);
  EXPECT_EQ(j["compare"]["runs"].size(), ok);
  EXPECT_TRUE(fs::exists(out_ + "/report.html"));
  // Only finished runs keep a profile.
  std::size_t profiles = 0;
  for (const auto& e : fs::recursive_directory_iterator(out_ + "/runs"))
    profiles += e.path().extension() == ".profile";
  EXPECT_EQ(profiles, ok);
}

TEST_F(CompareTest, SigtermInTheFirstRunSaysNoCompletePair) {
  // A run that would take a minute: only a forwarded signal ends it sooner.
  std::string cmd = "sh -c '" + std::string(WORKLOAD_BIN) +
                    " \"$0\" --workload create --files 1000 && sleep 60' {dir}";
  Compare c =
      start(with(kRmapbt, {"--workload-cmd", cmd, "--runs", "2", "--warmup", "0", "-o", out_}),
                logs("sigterm"));
  ASSERT_TRUE(wait_for({out_ + "/runs/a/run-01.out"}, std::chrono::seconds(120), c))
      << c.stderr_text();
  std::this_thread::sleep_for(std::chrono::seconds(1));  // into the recording
  ::kill(c.pid, SIGTERM);                                // to the compare only: it must pass it on
  EXPECT_EQ(wait_exit(c, std::chrono::seconds(30)), 143) << c.stderr_text();
  EXPECT_EQ(settled_leftovers_of(c.pid), std::vector<std::string>{});
  std::string text = slurp(out_ + "/summary.txt");
  EXPECT_NE(text.find("INCOMPLETE: interrupted by SIGTERM"), std::string::npos) << text;
  EXPECT_NE(text.find("No complete pair"), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(out_ + "/runs/a/run-01.profile"));
}

// A closed terminal (SIGHUP), ^\\ (SIGQUIT) and a closed pipe (SIGPIPE)
// stop a compare as SIGINT does, at any moment: before the first run, in
// a recording, between runs. The moments are random but seeded (printed),
// three per signal; nothing may be left and the summary must say why.
TEST_F(CompareTest, HangupQuitAndPipeStopItLikeSigintAtAnyMoment) {
  // Four runs of over a second each: the random moments (0-4 s) fall
  // before or inside the runs, not into the outputs' computation, where a
  // signal ends the compare at once (see the Safety section of docs/COMPARE.md).
  std::string cmd = "sh -c '" + std::string(WORKLOAD_BIN) +
                    " \"$0\" --workload create --files 500 && sleep 1' {dir}";
  unsigned seed = static_cast<unsigned>(::getpid());
  std::srand(seed);
  int attempt = 0;
  for (int sig : {SIGHUP, SIGQUIT, SIGPIPE}) {
    for (int i = 0; i < 3; ++i, ++attempt) {
      std::string out = out_ + "-" + std::to_string(attempt);
      Compare c = start(with(kRmapbt, {"--workload-cmd", cmd, "--runs", "2", "--warmup", "0",
                                       "-o", out}),
                        logs("sig" + std::to_string(attempt)));
      int delay_ms = std::rand() % 4000;
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      ::kill(c.pid, sig);
      int rc = wait_exit(c, std::chrono::seconds(60));
      SCOPED_TRACE(testing::Message() << "SIG" << sigabbrev_np(sig) << " after " << delay_ms
                                      << " ms (seed " << seed << "): exit " << rc << "\n"
                                      << c.stderr_text());
      EXPECT_EQ(settled_leftovers_of(c.pid), std::vector<std::string>{});
      // Either it stopped (128+sig), or it had finished before the signal
      // came, or it was stopped before the first run and wrote nothing.
      if (rc == 0) continue;
      EXPECT_EQ(rc, 128 + sig);
      std::string text = slurp(out + "/summary.txt");
      // Stopped before it made anything: by its handler ("interrupted before
      // the first run"), or in process start-up, before main installs the
      // handlers, by the signal's default action (a window of ~2 ms that
      // CI's sanitizer build hit once in 300 moments). Nothing to release.
      if (!fs::exists(out)) continue;
      bool before_first = c.stderr_text().find("interrupted before the first run") != std::string::npos;
      if (!before_first) {
        EXPECT_NE(text.find(std::string("INCOMPLETE: interrupted by SIG") + sigabbrev_np(sig)),
                  std::string::npos)
            << text;
      }
      for (const auto& e : fs::recursive_directory_iterator(out, fs::directory_options::skip_permission_denied)) {
        if (e.path().extension() != ".profile") continue;
        EXPECT_TRUE(read_profile(e.path().string())) << e.path() << " is not a whole profile";
      }
    }
  }
}

// Removes what a killed compare `pid` left, by hand (not with the code under
// test): mounts, then images (their autoclear loop devices go with the last
// close), then its state directory.
void remove_leftovers_of(pid_t pid) {
  std::string state = "/run/fscost/" + std::to_string(pid) + "-";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/run/fscost", ec)) {
    std::string p = e.path().string();
    if (p.rfind(state, 0) != 0) continue;
    for (const std::string& dir : state_mountpoints(p)) {
      run_capture({"umount", dir}).value();
      fs::remove(dir, ec);
    }
    fs::remove_all(p, ec);
  }
  std::string image = "/dev/shm/fscost-" + std::to_string(pid) + "-";
  for (const auto& e : fs::directory_iterator("/dev/shm"))
    if (e.path().string().rfind(image, 0) == 0) fs::remove(e.path());
}

TEST_F(CompareTest, NextStartReportsWhatAKilledCompareLeft) {
  std::string cmd = "sh -c 'sleep 60' {dir}";
  Compare c =
      start(with(kRmapbt, {"--workload-cmd", cmd, "--warmup", "0", "-o", out_}), logs("killed"));
  struct Cleanup {
    pid_t pid;
    ~Cleanup() { remove_leftovers_of(pid); }
  } cleanup{c.pid};
  ASSERT_TRUE(wait_for({out_ + "/runs/a/run-01.out"}, std::chrono::seconds(120), c))
      << c.stderr_text();
  ::kill(c.pid, SIGKILL);  // no cleanup can run
  EXPECT_EQ(wait_exit(c, std::chrono::seconds(30)), 128 + SIGKILL);
  // Its record child got SIGTERM (parent death signal) and stops.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  ASSERT_FALSE(leftovers_of(c.pid).empty()) << "a SIGKILL leaves the mount and the image";
  std::string mnt;  // what its state file names: /run/fscost/m-XXXXXX
  for (const auto& e : fs::directory_iterator("/run/fscost"))
    if (e.path().filename().string().rfind(std::to_string(c.pid) + "-", 0) == 0)
      for (const std::string& dir : state_mountpoints(e.path().string())) mnt = dir;
  ASSERT_EQ(mnt.rfind("/run/fscost/m-", 0), 0u) << mnt;
  EXPECT_LE(mnt.size(), 20u) << "fs_mark -D overflows at 37 characters: " << mnt;

  Compare next =
      start({"--a", "", "--b", "", "--size", "100T", "--workload-cmd", cmd, "-o", out_ + "-next"},
            logs("next"));
  EXPECT_EQ(wait_exit(next), 1);
  std::string err = next.stderr_text();
  std::string pid = std::to_string(c.pid);
  EXPECT_NE(err.find("a killed fscost left these behind"), std::string::npos) << err;
  EXPECT_NE(err.find("`fscost cleanup` removes them"), std::string::npos) << err;
  EXPECT_NE(err.find("mount " + mnt + " (umount " + mnt + ")"), std::string::npos) << err;
  EXPECT_NE(err.find("image /dev/shm/fscost-" + pid + "-"), std::string::npos) << err;

  // `fscost cleanup` removes exactly that, from the state file.
  auto cleaned = run_capture({FSCOST_BIN, "cleanup"});
  ASSERT_TRUE(cleaned);
  EXPECT_EQ(cleaned.value().exit_code, 0) << cleaned.value().out << cleaned.value().err;
  EXPECT_NE(cleaned.value().out.find("removed mount " + mnt), std::string::npos)
      << cleaned.value().out;
  EXPECT_EQ(settled_leftovers_of(c.pid), std::vector<std::string>{});
  EXPECT_FALSE(fs::exists(mnt)) << "cleanup removes the mountpoint beside the state directory";
  remove_leftovers_of(c.pid);
}

}  // namespace
}  // namespace fscost
