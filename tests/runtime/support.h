// Shared helpers for runtime tests: real BPF, real XFS, root.
#pragma once

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "system/ramdisk.h"
#include "system/subprocess.h"

namespace fscost::test {

// A whole file's text; "" if it cannot be read (the assertion on it says
// what was missing).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Issue 31's limits on a summary.txt: a first screen (up to the rule) of at
// most 40 lines, at most 150 lines in all, none wider than 72 columns.
inline void expect_summary_limits(const std::string& text) {
  auto to = text.find("\n" + std::string(72, '-') + "\n");
  ASSERT_NE(to, std::string::npos) << text;
  EXPECT_LE(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(to), '\n') + 1, 40)
      << text;
  EXPECT_LE(std::count(text.begin(), text.end(), '\n'), 150) << text;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::size_t cols = 0;
    for (char c : line) cols += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    EXPECT_LE(cols, 72u) << line;
  }
}

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

// What else had the machine between construction and a call (issue 30:
// load as data, not retries): the share of the vCPUs' time the host took
// (steal, /proc/stat), and the share that went to neither this process's
// waited-for children (RUSAGE_CHILDREN: fscost record and its workload)
// nor idle nor niced tasks — other tasks, and kernel threads working for
// anyone. Niced CPU is left out: a nice-19 job (scripts/test.sh builds the
// sanitized tree so beside the runtime tests) runs on what they leave
// idle, at a weight of 15 against their 1024. A test
// that compares traced time to rusage or to samples cannot judge its
// figure when either is large, and says so as a skip with the figures
// instead of a bound widened or a second recording.
// The figures of one measurement, read once: the decision and the skip's
// message come from the same numbers.
struct HostLoad {
  double steal = 0, other = 0;  // shares, above
  static constexpr double kSteal = 0.05;  // of the vCPUs' time
  static constexpr double kOther = 0.20;  // of the machine's CPU
  // Whether the host's figures say it, not the code, set a ratio.
  bool busy() const { return steal > kSteal || other > kOther; }
  // "steal 2%, other work 41% of the machine": for a skip's message.
  std::string describe() const {
    return "steal " + std::to_string(static_cast<int>(100 * steal)) + "%, other work " +
           std::to_string(static_cast<int>(100 * other)) + "% of the machine";
  }
};

class HostMeter {
 public:
  HostMeter() : start_(read()) {}
  // The load since construction.
  HostLoad load() const {
    Times now = read();
    double total = now.total - start_.total;
    if (total <= 0) return {};
    double ours = (now.children - start_.children) * ::sysconf(_SC_CLK_TCK);
    double busy = now.busy() - start_.busy();
    return {(now.steal - start_.steal) / total, std::max(0.0, busy - ours) / total};
  }

 private:
  struct Times {
    double total = 0, nice = 0, idle = 0, steal = 0;  // clock ticks, all CPUs
    double children = 0;                              // seconds of CPU
    double busy() const { return total - nice - idle - steal; }
  };
  static Times read() {
    std::ifstream in("/proc/stat");
    std::string cpu;
    in >> cpu;  // the "cpu" line: user nice system idle iowait irq softirq steal ...
    Times t;
    double v = 0;
    for (int i = 0; i < 8 && in >> v; ++i) {
      t.total += v;
      if (i == 1) t.nice = v;
      if (i == 3 || i == 4) t.idle += v;
      if (i == 7) t.steal = v;
    }
    rusage ru{};
    ::getrusage(RUSAGE_CHILDREN, &ru);
    auto sec = [](const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; };
    t.children = sec(ru.ru_utime) + sec(ru.ru_stime);
    return t;
  }
  Times start_;
};

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
