// fscost diff end to end: two runs each of two XFS configurations (rmapbt
// off and on, each run on a fresh RAM-disk filesystem), recorded by
// `fscost record`, diffed by `fscost diff -o DIR`. Asserts structure (files
// written, lines within 72 columns, operations present), not timings.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "model/file_io.h"
#include "system/ramdisk.h"
#include "system/subprocess.h"
#include "support.h"

namespace fscost {
namespace {

using nlohmann::json;

// A fresh directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "fscost-diff.XXXXXX").string();
    if (::mkdtemp(tmpl.data())) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  bool ok() const { return !path_.empty(); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

ProcessOutput run(const std::vector<std::string>& argv) {
  auto r = run_capture(argv);
  EXPECT_TRUE(r) << r.error().message;
  return r ? std::move(r).value() : ProcessOutput{};
}

std::size_t columns(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

void expect_mail_width(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) EXPECT_LE(columns(line), 72u) << "line " << ++n << ": " << line;
}

std::string contents(const std::string& path) {
  auto r = read_whole_file(path, "output");
  EXPECT_TRUE(r) << path << ": " << (r ? "" : r.error().message);
  return r ? r.value() : std::string();
}

class DiffCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FSCOST_REQUIRE_ROOT();
    ASSERT_TRUE(tmp_.ok());
  }

  // `runs` recordings of fscost-workload (mixed), each on a fresh XFS made
  // with `mkfs`, as DIR/<set>/runN.profile.
  void record(const std::string& set, const std::vector<std::string>& mkfs, int runs) {
    std::filesystem::create_directories(tmp_ / set);
    for (int i = 0; i < runs; ++i) {
      auto fs = ScratchXfs::create(512ull << 20, mkfs);
      ASSERT_TRUE(fs) << fs.error().message;
      std::string out = tmp_ / (set + "/run" + std::to_string(i) + ".profile");
      auto r = run({FSCOST_BIN, "record", "-o", out, "--", WORKLOAD_BIN, fs.value().dir(),
                    "--files", "400"});
      ASSERT_TRUE(r.ok()) << r.status_text() << "\n" << r.err;
    }
  }

  TempDir tmp_;
};

TEST_F(DiffCliTest, RmapbtOffAgainstOnWritesTextJsonAndHtml) {
  record("rmapbt0", {"-m", "rmapbt=0"}, 2);
  record("rmapbt1", {"-m", "rmapbt=1"}, 2);
  if (HasFatalFailure()) return;
  std::string out = tmp_ / "diff";
  auto d = run({FSCOST_BIN, "diff", tmp_ / "rmapbt0", tmp_ / "rmapbt1", "--label-a", "rmapbt=0",
                "--label-b", "rmapbt=1", "-o", out});
  ASSERT_TRUE(d.ok()) << d.status_text() << "\n" << d.err;

  // stdout is the text summary, the same as summary.txt.
  std::string text = contents(out + "/summary.txt");
  EXPECT_EQ(d.out, text);
  EXPECT_TRUE(text.starts_with("A = rmapbt=0, B = rmapbt=1: 2+2 runs")) << text;
  EXPECT_TRUE(text.ends_with("tables.txt.\n")) << text;
  expect_mail_width(text);
  // Two runs a side resolve little: every op's sentence and table are in
  // tables.txt, whatever the first screen shows.
  std::string tables = contents(out + "/tables.txt");
  EXPECT_TRUE(tables.starts_with(text.substr(0, text.find(std::string(72, '-'))))) << tables;
  EXPECT_NE(tables.find("create: on-CPU "), std::string::npos) << tables;
  EXPECT_NE(tables.find("create, per operation"), std::string::npos) << tables;
  expect_mail_width(tables);

  json j = json::parse(contents(out + "/summary.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["format"], "fscost-diff");
  EXPECT_EQ(j["a"]["runs"], 2);
  EXPECT_EQ(j["b"]["runs"], 2);
  ASSERT_TRUE(j["ops"].is_array());
  std::vector<std::string> ops;
  for (const auto& op : j["ops"]) ops.push_back(op["op"].get<std::string>());
  for (const char* op : {"create", "unlink", "rename", "mkdir"})
    EXPECT_NE(std::find(ops.begin(), ops.end(), op), ops.end()) << op << " missing";
  const std::set<std::string> issued = {"create", "fsync", "link",  "rename",
                                        "unlink", "mkdir", "rmdir", "symlink"};
  for (const auto& op : j["ops"]) {
    EXPECT_EQ(op["oncpu"]["a"].size(), 2u) << op["op"];
    // The workload issues the same operations every run ("other" holds exec
    // and the loader's syscalls, which vary).
    if (issued.contains(op["op"].get<std::string>())) {
      EXPECT_EQ(op["count"]["a_summary"]["mean"], op["count"]["b_summary"]["mean"]) << op["op"];
    }
  }

  std::string page = contents(out + "/report.html");
  EXPECT_TRUE(page.starts_with("<!DOCTYPE html>"));
  EXPECT_TRUE(page.ends_with("</html>\n"));
  EXPECT_NE(page.find("id=\"graphs-create-oncpu\""), std::string::npos);
  EXPECT_NE(page.find("<pre class=\"diff-text\">"), std::string::npos);
  EXPECT_EQ(page.find("src=\"http"), std::string::npos);

  auto js = run({FSCOST_BIN, "diff", tmp_ / "rmapbt0", tmp_ / "rmapbt1", "--format", "json"});
  ASSERT_TRUE(js.ok()) << js.err;
  EXPECT_FALSE(json::parse(js.out, nullptr, false).is_discarded());
}

TEST(DiffCli, CorruptProfileIsAClearError) {
  TempDir tmp;
  ASSERT_TRUE(tmp.ok());
  std::string bad = tmp / "bad.profile";
  ASSERT_TRUE(write_file_atomic("this is not a profile\n", bad));
  auto r = run({FSCOST_BIN, "diff", bad, bad});
  EXPECT_EQ(r.exit_code, 1) << r.status_text();
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("fscost: error:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(bad), std::string::npos) << "the message names the file: " << r.err;

  std::filesystem::create_directories(tmp / "empty");
  auto e = run({FSCOST_BIN, "diff", tmp / "empty", bad});
  EXPECT_EQ(e.exit_code, 1) << e.status_text();
  EXPECT_NE(e.err.find(tmp / "empty"), std::string::npos) << e.err;
}

}  // namespace
}  // namespace fscost
