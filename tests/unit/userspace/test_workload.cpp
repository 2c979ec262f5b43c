// fscost-workload run for real on a temporary directory (no root): the
// counts it reports match the arithmetic of each mode and what it left on
// disk; random is reproducible; bad options exit 2, failed syscalls 1.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "system/subprocess.h"

namespace fscost {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A fresh directory under /tmp, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/fscost-workload-test-XXXXXX";
    if (::mkdtemp(tmpl)) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& sub) const { return path_ + "/" + sub; }

 private:
  std::string path_;
};

ProcessOutput run_workload(std::vector<std::string> args) {
  args.insert(args.begin(), WORKLOAD_BIN);
  auto r = run_capture(args);
  EXPECT_TRUE(r) << r.error().message;
  return r ? std::move(r).value() : ProcessOutput{-1};
}

// Runs it and parses its JSON line; a failed run fails the test.
json run_ok(const std::vector<std::string>& args) {
  ProcessOutput out = run_workload(args);
  EXPECT_TRUE(out.ok()) << out.status_text() << ": " << out.err;
  json j = json::parse(out.out, nullptr, false);
  EXPECT_TRUE(j.is_object()) << out.out;
  return j.is_object() ? j : json::object();
}

std::size_t entries(const std::string& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) n++;
  return n;
}

// counts is everything the process issued: setup plus the timed phase.
void expect_counts_add_up(const json& j) {
  for (const auto& [op, n] : j["counts"].items())
    EXPECT_EQ(n.get<std::uint64_t>(),
              j["setup"][op].get<std::uint64_t>() + j["timed"][op].get<std::uint64_t>())
        << op;
}

TEST(Workload, CreateMakesFilesPerThreadInOneSharedDirectory) {
  TempDir d;
  json j = run_ok({d.path(), "--workload", "create", "--files", "50", "--threads", "3"});
  EXPECT_EQ(j["workload"], "create");
  EXPECT_EQ(j["dirs"], "shared");
  EXPECT_EQ(j["threads"], 3);
  EXPECT_EQ(j["files"], 50);
  EXPECT_EQ(j["timed"]["create"], 150);
  EXPECT_EQ(j["timed"]["close"], 150);
  EXPECT_EQ(j["timed"]["write"], 0);
  EXPECT_EQ(j["timed"]["fsync"], 0);
  EXPECT_EQ(j["setup"]["mkdir"], 1);
  EXPECT_EQ(j["counts"]["close"], 150 + 2);  // + DIR and DIR/shared
  expect_counts_add_up(j);
  EXPECT_EQ(entries(d / "shared"), 150u);
  EXPECT_TRUE(fs::exists(d / "shared/t2-49"));
}

TEST(Workload, CreateInPrivateDirectoriesWritesAndFsyncs) {
  TempDir d;
  json j = run_ok({d.path(), "--workload", "create", "--files", "20", "--threads", "2", "--dirs",
                   "private", "--write", "100", "--fsync"});
  EXPECT_EQ(j["dirs"], "private");
  EXPECT_EQ(j["timed"]["create"], 40);
  EXPECT_EQ(j["timed"]["write"], 40);
  EXPECT_EQ(j["timed"]["fsync"], 40);
  EXPECT_EQ(j["setup"]["mkdir"], 2);
  EXPECT_EQ(entries(d / "t0"), 20u);
  EXPECT_EQ(entries(d / "t1"), 20u);
  EXPECT_EQ(fs::file_size(d / "t1/t1-19"), 100u);
}

TEST(Workload, RemoveUnlinksInTheTimedPhaseWhatSetupCreated) {
  TempDir d;
  json j = run_ok({d.path(), "--workload", "remove", "--files", "40", "--threads", "2"});
  EXPECT_EQ(j["setup"]["create"], 80);
  EXPECT_EQ(j["setup"]["close"], 80 + 2);
  EXPECT_EQ(j["timed"]["unlink"], 80);
  EXPECT_EQ(j["timed"]["create"], 0);
  expect_counts_add_up(j);
  EXPECT_EQ(entries(d / "shared"), 0u);
  // ops_per_s is the timed phase only: unlinks.
  EXPECT_NEAR(j["ops_per_s"].get<double>() * j["elapsed_s"].get<double>(), 80, 1);
}

TEST(Workload, MixedIssuesTheCyclePerIteration) {
  TempDir d;
  json j = run_ok(
      {d.path(), "--workload", "mixed", "--files", "10", "--threads", "2", "--write", "8192"});
  const json& t = j["timed"];
  EXPECT_EQ(j["dirs"], "private");
  for (const char* op : {"create", "fsync", "close", "link", "rename", "mkdir", "rmdir", "symlink"})
    EXPECT_EQ(t[op], 20) << op;
  EXPECT_EQ(t["unlink"], 60);
  EXPECT_GE(t["write"], 20);
  EXPECT_EQ(t["open"], 0);
  EXPECT_EQ(j["setup"]["mkdir"], 2);
  EXPECT_EQ(j["setup"]["open"], 3);  // DIR, t0, t1
  EXPECT_EQ(j["setup"]["close"], 3);
  expect_counts_add_up(j);
  EXPECT_EQ(entries(d / "t0"), 0u) << "every iteration cleans up";
}

TEST(Workload, MixedCanShareOneDirectory) {
  TempDir d;
  json j = run_ok(
      {d.path(), "--workload", "mixed", "--files", "5", "--threads", "2", "--dirs", "shared"});
  EXPECT_EQ(j["timed"]["create"], 10);
  EXPECT_EQ(entries(d / "shared"), 0u);
}

TEST(Workload, OpenCloseOpensOneTargetPerDirectory) {
  TempDir d;
  json shared = run_ok({d.path(), "--workload", "openclose", "--files", "100", "--threads", "2"});
  EXPECT_EQ(shared["timed"]["open"], 200);
  EXPECT_EQ(shared["timed"]["close"], 200);
  EXPECT_EQ(shared["setup"]["create"], 1);
  fs::create_directory(d / "p");
  json priv = run_ok(
      {d / "p", "--workload", "openclose", "--files", "10", "--threads", "2", "--dirs", "private"});
  EXPECT_EQ(priv["setup"]["create"], 2);
  EXPECT_EQ(priv["timed"]["open"], 20);
}

json run_random(const TempDir& d, const std::string& sub, const std::string& seed) {
  fs::create_directory(d / sub);
  return run_ok(
      {d / sub, "--workload", "random", "--files", "300", "--threads", "2", "--seed", seed});
}

TEST(Workload, RandomIsReproducibleFromTheSeed) {
  TempDir d;
  json a = run_random(d, "a", "7"), b = run_random(d, "b", "7"), c = run_random(d, "c", "8");
  EXPECT_EQ(a["seed"], 7);
  EXPECT_EQ(a["timed"], b["timed"]);
  EXPECT_EQ(a["sequence_hash"], b["sequence_hash"]);
  EXPECT_NE(a["timed"], c["timed"]);
  EXPECT_NE(a["sequence_hash"], c["sequence_hash"]);
  // Every kind of operation ran, and the namespace stayed bounded.
  for (const char* op :
       {"create", "mkdir", "unlink", "rmdir", "rename", "link", "symlink", "write", "fsync"})
    EXPECT_GT(a["timed"][op], 0) << op;
  EXPECT_EQ(a["write_bytes"], 4096);
  EXPECT_LE(entries(d / "a/t0"), 256u);
  expect_counts_add_up(a);
}

TEST(Workload, FilesPerDirRollsOverToNewSubdirectories) {
  TempDir d;
  fs::create_directory(d / "s");
  // Shared: the threads fill each subdirectory together, 7 files apiece.
  json s = run_ok(
      {d / "s", "--workload", "create", "--files", "10", "--threads", "2", "--files-per-dir", "7"});
  EXPECT_EQ(s["files_per_dir"], 7);
  EXPECT_EQ(s["setup"]["mkdir"], 1 + 3);
  EXPECT_EQ(entries(d / "s/shared"), 3u);
  EXPECT_EQ(entries(d / "s/shared/d0000"), 7u);
  EXPECT_EQ(entries(d / "s/shared/d0001"), 7u);
  EXPECT_EQ(entries(d / "s/shared/d0002"), 6u);
  // Private: each thread's own files, 4 per subdirectory.
  fs::create_directory(d / "p");
  json p = run_ok({d / "p", "--workload", "create", "--files", "10", "--threads", "2", "--dirs",
                   "private", "--files-per-dir", "4"});
  EXPECT_EQ(p["setup"]["mkdir"], 2 + 2 * 3);
  EXPECT_EQ(entries(d / "p/t1"), 3u);
  EXPECT_EQ(entries(d / "p/t1/d0001"), 4u);
  EXPECT_EQ(entries(d / "p/t1/d0002"), 2u);
  EXPECT_TRUE(fs::exists(d / "p/t1/d0002/t1-9"));
  // Remove finds the same names.
  fs::create_directory(d / "r");
  json r = run_ok(
      {d / "r", "--workload", "remove", "--files", "10", "--threads", "2", "--files-per-dir", "3"});
  EXPECT_EQ(r["timed"]["unlink"], 20);
  EXPECT_EQ(entries(d / "r/shared/d0006"), 0u);
}

TEST(Workload, FsopsFlagsStillWork) {
  TempDir d;
  json j = run_ok({d.path(), "--mode", "create", "--n", "5", "--threads", "2", "--private-dirs"});
  EXPECT_EQ(j["mode"], "create");
  EXPECT_EQ(j["n"], 5);
  EXPECT_EQ(j["dirs"], "private");
  EXPECT_EQ(j["counts"]["create"], 10);
  EXPECT_TRUE(fs::exists(d / "t1/t1-4"));
  for (const char* key : {"elapsed_s", "ops_per_s", "user_s", "sys_s"})
    EXPECT_TRUE(j[key].is_number()) << key;
}

TEST(Workload, ReportsItsUserShare) {
  TempDir d;
  json j = run_ok({d.path(), "--workload", "create", "--files", "2000"});
  double user = j["user_s"].get<double>(), sys = j["sys_s"].get<double>();
  double share = j["user_share"].get<double>();
  EXPECT_GE(share, 0.0);
  EXPECT_LE(share, 1.0);
  if (user + sys > 0) {
    EXPECT_NEAR(share, user / (user + sys), 1e-3);
  }
}

TEST(Workload, QuietPrintsNothing) {
  TempDir d;
  ProcessOutput out = run_workload({d.path(), "--workload", "create", "--files", "3", "--quiet"});
  EXPECT_TRUE(out.ok()) << out.err;
  EXPECT_EQ(out.out, "");
  EXPECT_EQ(entries(d / "shared"), 3u);
}

TEST(Workload, BadOptionsPrintUsageAndExit2) {
  TempDir d;
  std::vector<std::vector<std::string>> bad = {
      {},
      {d.path(), "--bogus"},
      {d.path(), "--workload", "nope"},
      {d.path(), "--files", "0"},
      {d.path(), "--files"},
      {d.path(), "--threads", "two"},
      {d.path(), "--dirs", "both"},
      {d.path(), "--workload", "mixed", "--files-per-dir", "5"},
      {d.path(), "--workload", "mixed", "--fsync"},
      {d.path(), d.path()},
  };
  for (const auto& args : bad) {
    ProcessOutput out = run_workload(args);
    std::string shown = args.empty() ? "(none)" : args.back();
    EXPECT_EQ(out.exit_code, 2) << shown << ": " << out.err;
    EXPECT_NE(out.err.find("usage: fscost-workload"), std::string::npos) << shown;
  }
  EXPECT_EQ(entries(d.path()), 0u) << "nothing created on bad options";
}

TEST(Workload, FailedSyscallNamesTheOpAndPathAndExits1) {
  TempDir d;
  run_ok({d.path(), "--workload", "create", "--files", "1"});
  // DIR/shared exists now: the second run must not reuse it.
  ProcessOutput again = run_workload({d.path(), "--workload", "create", "--files", "1"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("mkdir " + d.path() + "/shared: File exists"), std::string::npos)
      << again.err;
  ProcessOutput missing = run_workload({d / "missing"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("open " + d.path() + "/missing: No such file"), std::string::npos)
      << missing.err;
}

}  // namespace
}  // namespace fscost
