// record --time-functions on the real kernel. Where trampolines are allowed
// (Debian's stock kernel, run by tests/vm/stock_kernel_test.sh), each call of
// a named XFS function is counted under the operation that made it, exactly,
// and agrees with bpftrace's kfunc count of the same run; where they are
// refused (this project's 6.18 build: EPERM), the recording goes on and says
// why. Each kernel runs one of the two; FSCOST_EXPECT_FENTRY=1 (the VM test)
// makes a kernel that refuses them a failure, so the counting test cannot
// pass by skipping everywhere.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <regex>
#include <string>

#include "collector/kernel_features.h"
#include "system/ramdisk.h"
#include "system/subprocess.h"
#include "support.h"

namespace fscost {
namespace {

using nlohmann::json;

constexpr int kN = 500;
// xfs_create has 7 arguments: x86 trampolines before Linux 6.6 take at most
// 6, so 6.1 refuses it (ENOTSUPP) and must time the other three anyway.
constexpr const char* kFunctions = "xfs_dialloc,xfs_remove,xfs_link,xfs_create";

bool expect_fentry() {
  const char* e = std::getenv("FSCOST_EXPECT_FENTRY");
  return e && std::string(e) == "1";
}

class FunctionTiming : public test::ScratchXfsTest {
 protected:
  FunctionTiming() : ScratchXfsTest(512ull << 20) {}

  void SetUp() override {
    ScratchXfsTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    fentry_ = Features::probe().fentry;
    if (expect_fentry()) {
      ASSERT_TRUE(fentry_) << Features::probe().reason("fentry");
    }
  }

  std::vector<std::string> record_argv() const {
    return {FSCOST_BIN, "record", "-o", profile_, "--time-functions", kFunctions, "--",
            WORKLOAD_BIN, fs_->dir(), "--files", std::to_string(kN)};
  }

  json report() {
    auto rep = run({FSCOST_BIN, "report", profile_, "--format", "json"});
    EXPECT_TRUE(rep.ok()) << rep.err;
    return json::parse(rep.out, nullptr, false);
  }

  static std::uint64_t op_count(const json& report, const std::string& name) {
    for (const auto& op : report["ops"])
      if (op["name"] == name) return op["count"].get<std::uint64_t>();
    return 0;
  }

  // The (function, op) row, or an empty object.
  static json row(const json& report, const std::string& fn, const std::string& op) {
    for (const auto& r : report["functions"]["rows"])
      if (r["function"] == fn && r["op"] == op) return r;
    return json::object();
  }

  bool fentry_ = false;
};

TEST_F(FunctionTiming, EachCallCountedUnderTheOperationThatMadeIt) {
  if (!fentry_) GTEST_SKIP() << "this kernel refuses fentry/fexit: " << Features::probe().reason("fentry");
  auto rec = run(record_argv());
  ASSERT_TRUE(rec.ok()) << rec.status_text() << "\n" << rec.err;
  json issued = json::parse(rec.out, nullptr, false);
  ASSERT_FALSE(issued.is_discarded()) << rec.out;
  json r = report();
  // xfs_dialloc allocates the inode of each file, directory and symlink,
  // xfs_remove unlinks files and directories, xfs_link links: once per
  // operation (fs/xfs/xfs_inode.c, xfs_symlink.c), and no other
  // operation of this workload calls them.
  std::vector<std::pair<std::string, std::string>> calls = {
      {"xfs_dialloc", "create"}, {"xfs_dialloc", "mkdir"}, {"xfs_dialloc", "symlink"},
      {"xfs_remove", "unlink"},  {"xfs_remove", "rmdir"},  {"xfs_link", "link"}};
  // xfs_create (create, mkdir) where the kernel takes its 7 arguments; else
  // it is said, with why.
  const json& not_timed = r["functions"]["not_timed"];
  if (not_timed.empty()) {
    calls.insert(calls.end(), {{"xfs_create", "create"}, {"xfs_create", "mkdir"}});
  } else {
    ASSERT_EQ(not_timed.size(), 1u) << not_timed.dump();
    EXPECT_NE(not_timed[0].get<std::string>().find("fentry/fexit xfs_create (the kernel refused to "
                                                   "attach fentry/fexit: ENOTSUPP; x86 trampolines"),
              std::string::npos)
        << not_timed.dump();
  }
  for (const auto& [fn, op] : calls) {
    SCOPED_TRACE(fn + " under " + op);
    std::uint64_t ops = issued["counts"][op].get<std::uint64_t>();
    ASSERT_GT(ops, 0u);
    EXPECT_EQ(op_count(r, op), ops);
    json x = row(r, fn, op);
    ASSERT_FALSE(x.empty()) << r["functions"].dump();
    EXPECT_EQ(x["count"].get<std::uint64_t>(), ops);
    EXPECT_EQ(x["timed"].get<std::uint64_t>(), ops);
    EXPECT_DOUBLE_EQ(x["calls_per_op"].get<double>(), 1.0);
    // Inside the operation: more than nothing, less than the operation.
    std::uint64_t total = x["total_ns"].get<std::uint64_t>();
    EXPECT_GT(total, 0u);
    for (const auto& op_row : r["ops"]) {
      if (op_row["name"] == op) {
        EXPECT_LT(static_cast<double>(total),
                  op_row["wall_ns_per_op"].get<double>() * static_cast<double>(ops));
      }
    }
    EXPECT_GE(x["max_ns"].get<std::uint64_t>(), total / ops);
  }
  // Nothing else: no other operation, and nothing outside operations.
  EXPECT_EQ(r["functions"]["rows"].size(), calls.size()) << r["functions"].dump();
  EXPECT_EQ(r["drops"]["function_call_map_full"].get<std::uint64_t>(), 0u);
  EXPECT_NE(r["meta"].dump().find("fentry/fexit xfs_dialloc"), std::string::npos);
}

// bpftrace's kfunc and kretfunc on the same function through the same run
// (bpftrace -c runs fscost record): the calls agree exactly, the time inside
// closely (both are trampolines around the same calls).
TEST_F(FunctionTiming, AgreesWithBpftraceKfunc) {
  if (!fentry_) GTEST_SKIP() << "this kernel refuses fentry/fexit: " << Features::probe().reason("fentry");
  auto which = run({"sh", "-c", "command -v bpftrace"});
  FSCOST_REQUIRE(which.ok(), "no bpftrace");
  std::string cmd;
  for (const auto& a : record_argv()) cmd += (cmd.empty() ? "" : " ") + a;
  auto bt = run({"bpftrace", "-c", cmd, "-e",
                 "kfunc:xfs_remove { @calls = count(); @start[tid] = nsecs; } "
                 "kretfunc:xfs_remove /@start[tid]/ { @ns = sum(nsecs - @start[tid]); "
                 "delete(@start[tid]); } END { clear(@start); }"});
  ASSERT_TRUE(bt.ok()) << bt.status_text() << "\n" << bt.err << bt.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(bt.out, m, std::regex(R"(@calls: (\d+))"))) << bt.out;
  std::uint64_t bt_calls = std::stoull(m[1]);
  ASSERT_TRUE(std::regex_search(bt.out, m, std::regex(R"(@ns: (\d+))"))) << bt.out;
  double bt_ns = std::stod(m[1]);

  json r = report();
  std::uint64_t calls = 0, ns = 0;
  for (const auto& x : r["functions"]["rows"])
    if (x["function"] == "xfs_remove") {
      calls += x["count"].get<std::uint64_t>();
      ns += x["total_ns"].get<std::uint64_t>();
    }
  EXPECT_EQ(calls, bt_calls);
  RecordProperty("fscost_ns", std::to_string(ns));
  RecordProperty("bpftrace_ns", std::to_string(static_cast<std::uint64_t>(bt_ns)));
  std::printf("xfs_remove: %llu calls; inside %.3f ms (fscost) vs %.3f ms (bpftrace)\n",
              static_cast<unsigned long long>(calls), ns / 1e6, bt_ns / 1e6);
  EXPECT_GT(static_cast<double>(ns), 0.8 * bt_ns);
  EXPECT_LT(static_cast<double>(ns), 1.25 * bt_ns);
}

TEST_F(FunctionTiming, RefusedTrampolinesAreSaidAndTheRecordingGoesOn) {
  if (fentry_) GTEST_SKIP() << "this kernel allows fentry/fexit";
  auto rec = run(record_argv());
  ASSERT_TRUE(rec.ok()) << rec.status_text() << "\n" << rec.err;
  EXPECT_NE(rec.err.find("not probing fentry/fexit xfs_dialloc (the kernel refused"),
            std::string::npos)
      << rec.err;
  json issued = json::parse(rec.out, nullptr, false);
  ASSERT_FALSE(issued.is_discarded()) << rec.out;
  json r = report();
  EXPECT_EQ(op_count(r, "create"), issued["counts"]["create"].get<std::uint64_t>());
  ASSERT_EQ(r["functions"]["not_timed"].size(), 4u) << r["functions"].dump();
  EXPECT_TRUE(r["functions"]["rows"].empty());
  auto text = run({FSCOST_BIN, "report", profile_});
  EXPECT_NE(text.out.find("not timed: fentry/fexit xfs_link (the kernel refused"),
            std::string::npos)
      << text.out;
}

// A name the kernel has no function of is the user's mistake, on every
// kernel: an error before anything runs, not a recording without it.
TEST_F(FunctionTiming, UnknownFunctionIsAnError) {
  auto rec = run({FSCOST_BIN, "record", "-o", profile_, "--time-functions",
                  "xfs_create,no_such_function_fscost", "--", "true"});
  EXPECT_FALSE(rec.ok());
  EXPECT_NE(rec.err.find("no function 'no_such_function_fscost' in the kernel's BTF"),
            std::string::npos)
      << rec.err;
  auto bad = run({FSCOST_BIN, "record", "-o", profile_, "--time-functions", "xfs create", "--",
                  "true"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("'xfs create' is not a kernel function name"), std::string::npos)
      << bad.err;
}

}  // namespace
}  // namespace fscost
