// Shared helpers for runtime tests: real BPF, real XFS, root.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "system/ramdisk.h"
#include "system/subprocess.h"

namespace fscost::test {

inline bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

}  // namespace fscost::test

// A runtime test that cannot run says why; in CI (CI=true) that is a failure,
// because the CI machine can run it.
#define FSCOST_REQUIRE(cond, why)                                      \
  do {                                                                 \
    if (!(cond)) {                                                     \
      if (::fscost::test::in_ci()) FAIL() << "cannot run in CI: " << why; \
      GTEST_SKIP() << why;                                             \
    }                                                                  \
  } while (0)

#define FSCOST_REQUIRE_ROOT() \
  FSCOST_REQUIRE(::geteuid() == 0, "needs root to load BPF and mount XFS")

namespace fscost::test {

// The share of the vCPUs' time the host took (steal, /proc/stat) between
// construction and share(): a test that compares traced time to rusage
// cannot judge its figure when the host took much of it, and says so as a
// skip with the figure instead of a bound widened or a retry (issue 30).
class StealMeter {
 public:
  StealMeter() : start_(read()) {}
  double share() const {
    auto now = read();
    double total = now.total - start_.total;
    return total > 0 ? (now.steal - start_.steal) / total : 0;
  }

 private:
  struct Times {
    double total = 0, steal = 0;
  };
  static Times read() {
    std::ifstream in("/proc/stat");
    std::string cpu;
    in >> cpu;  // the "cpu" line: user nice system idle iowait irq softirq steal ...
    Times t;
    double v = 0;
    for (int i = 0; i < 8 && in >> v; ++i) {
      t.total += v;
      if (i == 7) t.steal = v;
    }
    return t;
  }
  Times start_;
};

// Above this much steal a time-to-rusage figure is the host's as much as ours.
inline constexpr double kStealSkip = 0.05;

// A fresh RAM-disk XFS per test and a profile path next to its image; both
// are removed after the test, whatever it did.
class ScratchXfsTest : public ::testing::Test {
 protected:
  explicit ScratchXfsTest(std::uint64_t bytes) : bytes_(bytes) {}

  void SetUp() override {
    FSCOST_REQUIRE_ROOT();
    auto fs = ScratchXfs::create(bytes_);
    ASSERT_TRUE(fs) << fs.error().message;
    fs_.emplace(std::move(fs).value());
    profile_ = (std::filesystem::path(fs_->image()).parent_path() /
                ("fscost-test-" + std::to_string(::getpid()) + ".profile"))
                   .string();
  }
  void TearDown() override {
    if (!profile_.empty()) std::filesystem::remove(profile_);
  }

  // Runs argv; a failure to start fails the test.
  ProcessOutput run(const std::vector<std::string>& argv) {
    auto r = run_capture(argv);
    EXPECT_TRUE(r) << r.error().message;
    return r ? std::move(r).value() : ProcessOutput{};
  }

  std::optional<ScratchXfs> fs_;
  std::string profile_;

 private:
  std::uint64_t bytes_;
};

}  // namespace fscost::test
