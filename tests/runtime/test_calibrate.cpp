// fscost calibrate end to end on real XFS: a tiny A-vs-A calibration
// writes calibration.json, a compare reads it and says on its first screen
// that its intervals were floored, and a broken file stops the compare
// before anything is made.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "diff/calibration.h"
#include "support.h"

namespace fscost {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Args = std::vector<std::string>;

using test::slurp;

const Args kWorkload{"--size", "512M", "--workload", "create", "--files", "300"};

class CalibrateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FSCOST_REQUIRE_ROOT();
    dir_ = fs::temp_directory_path() / ("fscost-calibrate-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // `fscost <command> -q <args> <kWorkload>`; a failure to start fails.
  ProcessOutput fscost(const std::string& command, Args args) {
    Args argv{FSCOST_BIN, command, "-q"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), kWorkload.begin(), kWorkload.end());
    auto r = run_capture(argv);
    EXPECT_TRUE(r) << r.error().message;
    return r ? std::move(r).value() : ProcessOutput{};
  }

  fs::path dir_;
};

void expect_calibration_file(const std::string& path) {
  json j = json::parse(slurp(path), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << path;
  EXPECT_EQ(j["format"], "fscost-calibration");
  EXPECT_EQ(j["runs"], 3);
  EXPECT_EQ(j["compares"], 2);
  EXPECT_FALSE(j["host"]["hostname"].get<std::string>().empty());
  EXPECT_GE(j["host"]["cpus"].get<int>(), 1);
  EXPECT_NE(j["workload"].get<std::string>().find("fscost-workload {dir} --workload create"),
            std::string::npos)
      << j["workload"];
  ASSERT_TRUE(j["ops"].contains("create")) << j.dump(2);
  // Off-CPU time may be 0 in a block's A runs (no relative delta): only
  // on-CPU and latency are always there.
  for (const char* figure : {"oncpu", "offcpu", "latency"}) {
    if (std::string(figure) == "offcpu" && !j["ops"]["create"].contains(figure)) continue;
    const json& f = j["ops"]["create"][figure];
    ASSERT_TRUE(f.is_object()) << figure << ": " << j.dump(2);
    EXPECT_EQ(f["deltas"].size(), 2u);
    EXPECT_GT(f["rel_sd"].get<double>(), 0);
    EXPECT_LE(f["significant"].get<int>(), 2);
  }
  auto back = read_calibration(path);
  EXPECT_TRUE(back) << back.error().message;
}

TEST_F(CalibrateTest, CalibrationThenAFlooredCompare) {
  const std::string cal = (dir_ / "cal").string(), cmp = (dir_ / "cmp").string();
  ProcessOutput c =
      fscost("calibrate", {"--config", "mkfs: -m rmapbt=0", "--runs", "3", "--compares", "2",
                           "-o", cal});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.out.find("fscost calibrate: 2 compares of 3+3 runs"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("create "), std::string::npos) << c.out;
  EXPECT_TRUE(fs::exists(cal + "/runs/t1/a/run-06.profile")) << "3 × 2 runs a side";
  expect_calibration_file(cal + "/calibration.json");

  ProcessOutput d = fscost("compare", {"--a", "mkfs: -m rmapbt=0", "--b", "mkfs: -m rmapbt=1",
                                       "--runs", "3", "--calibration", cal + "/calibration.json",
                                       "-o", cmp});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  std::string text = slurp(cmp + "/summary.txt");
  EXPECT_NE(text.find("intervals floored by this host's between-compare"), std::string::npos)
      << text;
  EXPECT_NE(text.find("2 compares of 3+3 runs"), std::string::npos) << text;
  json j = json::parse(slurp(cmp + "/summary.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["config"]["calibration"]["compares"], 2);
  EXPECT_EQ(j["compare"]["options"]["calibration"], cal + "/calibration.json");
  for (const auto& w : j["warnings"])
    EXPECT_NE(w["kind"], "calibration-mismatch") << "same host, same workload: " << w.dump();
}

TEST_F(CalibrateTest, ABrokenCalibrationStopsTheCompareFirst) {
  const std::string bad = (dir_ / "calibration.json").string(), out = (dir_ / "out").string();
  std::ofstream(bad) << R"({"format": "fscost-calibration", "schema": 1})";
  ProcessOutput d = fscost("compare", {"--a", "", "--b", "mkfs: -m rmapbt=1", "--runs", "2",
                                       "--calibration", bad, "-o", out});
  EXPECT_EQ(d.exit_code, 1);
  EXPECT_NE(d.err.find("calibration " + bad + ": date: missing"), std::string::npos) << d.err;
  EXPECT_NE(d.err.find("hint: "), std::string::npos) << d.err;
  EXPECT_FALSE(fs::exists(out)) << "refused before the output directory was made";
}

TEST_F(CalibrateTest, RefusesTooFewCompares) {
  ProcessOutput c = fscost("calibrate", {"--config", "", "--compares", "1", "-o",
                                         (dir_ / "x").string()});
  EXPECT_EQ(c.exit_code, 1);
  EXPECT_NE(c.err.find("--compares 1"), std::string::npos) << c.err;
}

}  // namespace
}  // namespace fscost
