// speedscope output: exact JSON for literal profiles, and the schema's
// structural rules on a real import.
#include "report/speedscope.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fixture.h"
#include "io/perf_script.h"

namespace fscost {
namespace {

using nlohmann::json;

const std::string kExporter = std::string("fscost ") + FSCOST_VERSION;

Profile small_profile() {
  Profile p;
  p.meta.command = "fsops create 2";
  p.samples = {
      {SampleKind::Op, "create", {"a", "b"}, 3},  {SampleKind::Op, "create", {"a", "c"}, 1},
      {SampleKind::Op, "unlink", {"a", "d"}, 5},  {SampleKind::User, "fsops", {}, 2},
      {SampleKind::Kthread, "kworker", {"k"}, 1},
  };
  return p;
}

void expect_json(const json& actual, const std::string& expected) {
  EXPECT_EQ(actual, json::parse(expected)) << actual.dump(2);
}

TEST(FormatSpeedscope, OnCpuOneProfilePerRootOpsFirst) {
  expect_json(to_speedscope(small_profile(), {}), R"({
    "$schema": "https://www.speedscope.app/file-format-schema.json",
    "exporter": ")" + kExporter + R"(",
    "name": "fsops create 2 [oncpu]",
    "activeProfileIndex": 0,
    "shared": {"frames": [
      {"name": "unlink"}, {"name": "a"}, {"name": "d"},
      {"name": "create"}, {"name": "b"}, {"name": "c"},
      {"name": "[user]"},
      {"name": "[kthread:kworker]"}, {"name": "k"}
    ]},
    "profiles": [
      {"type": "sampled", "name": "unlink", "unit": "none", "startValue": 0, "endValue": 5,
       "samples": [[0, 1, 2]], "weights": [5]},
      {"type": "sampled", "name": "create", "unit": "none", "startValue": 0, "endValue": 4,
       "samples": [[3, 1, 4], [3, 1, 5]], "weights": [3, 1]},
      {"type": "sampled", "name": "[user]", "unit": "none", "startValue": 0, "endValue": 2,
       "samples": [[6]], "weights": [2]},
      {"type": "sampled", "name": "[kthread:kworker]", "unit": "none", "startValue": 0,
       "endValue": 1, "samples": [[7, 8]], "weights": [1]}
    ]
  })");
}

TEST(FormatSpeedscope, OnlyTheRequestedOp) {
  ReportOptions opt;
  opt.op = "create";
  expect_json(to_speedscope(small_profile(), opt), R"({
    "$schema": "https://www.speedscope.app/file-format-schema.json",
    "exporter": ")" + kExporter + R"(",
    "name": "fsops create 2 [oncpu, op create]",
    "activeProfileIndex": 0,
    "shared": {"frames": [{"name": "create"}, {"name": "a"}, {"name": "b"}, {"name": "c"}]},
    "profiles": [
      {"type": "sampled", "name": "create", "unit": "none", "startValue": 0, "endValue": 4,
       "samples": [[0, 1, 2], [0, 1, 3]], "weights": [3, 1]}
    ]
  })");
}

TEST(FormatSpeedscope, OffCpuInNanosecondsWithWaker) {
  Profile p;
  p.meta.command = "fsops fsync 1";
  p.offcpu = {{SampleKind::Op,
               "fsync",
               "io",
               {"f", "io_schedule"},
               {"w1", "wake"},
               "kworker",
               2,
               3'000'000}};
  ReportOptions opt;
  opt.view = View::OffCpu;
  expect_json(to_speedscope(p, opt), R"({
    "$schema": "https://www.speedscope.app/file-format-schema.json",
    "exporter": ")" + kExporter + R"(",
    "name": "fsops fsync 1 [offcpu]",
    "activeProfileIndex": 0,
    "shared": {"frames": [
      {"name": "fsync"}, {"name": "[io]"}, {"name": "f"}, {"name": "io_schedule"},
      {"name": "--"}, {"name": "wake"}, {"name": "w1"}, {"name": "kworker"}
    ]},
    "profiles": [
      {"type": "sampled", "name": "fsync", "unit": "nanoseconds", "startValue": 0,
       "endValue": 3000000, "samples": [[0, 1, 2, 3, 4, 5, 6, 7]], "weights": [3000000]}
    ]
  })");
}

TEST(FormatSpeedscope, NoStacksNoProfiles) {
  ReportOptions opt;
  opt.view = View::Locks;
  json doc = to_speedscope(small_profile(), opt);
  EXPECT_EQ(doc["profiles"], json::array());
  EXPECT_EQ(doc["shared"]["frames"], json::array());
}

// The schema's rules (file-format-schema.json) on a real recording: every
// index names a frame, samples and weights pair up, endValue is the sum.
TEST(FormatSpeedscope, RealImportFollowsTheSchema) {
  auto text = read_whole_file(test::data_path("formats/perf-script-x86_64.txt"), "fixture");
  ASSERT_TRUE(text) << text.error().message;
  auto p = import_perf_script(text.value(), "perf.txt");
  ASSERT_TRUE(p) << p.error().message;
  json doc = to_speedscope(p.value(), {});
  const auto& frames = doc["shared"]["frames"];
  std::vector<std::string> names;
  for (const auto& prof : doc["profiles"]) {
    names.push_back(prof["name"]);
    EXPECT_EQ(prof["type"], "sampled");
    EXPECT_EQ(prof["unit"], "none");
    ASSERT_EQ(prof["samples"].size(), prof["weights"].size());
    std::uint64_t sum = 0;
    for (const auto& w : prof["weights"]) sum += w.get<std::uint64_t>();
    EXPECT_EQ(prof["endValue"], sum);
    for (const auto& stack : prof["samples"]) {
      ASSERT_FALSE(stack.empty());
      EXPECT_EQ(frames[stack[0].get<std::size_t>()]["name"], prof["name"]);  // root at the bottom
      for (const auto& i : stack) EXPECT_LT(i.get<std::size_t>(), frames.size());
    }
  }
  // Ops by weight (ties by name), then user, kernel, kernel threads.
  EXPECT_EQ(names, (std::vector<std::string>{"mkdir", "other", "open", "rmdir", "unlink", "[user]",
                                             "[kernel]", "[kthread:kworker/1:1H-kb]"}));
}

}  // namespace
}  // namespace fscost
