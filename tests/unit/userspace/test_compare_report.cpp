// The compare's own parts of the outputs: the header, the incomplete
// marking and summary.json's "compare", on synthetic runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "compare/report.h"

namespace fscost {
namespace {

std::size_t columns(const std::string& line) {
  std::size_t cols = 0;
  for (unsigned char ch : line) cols += (ch & 0xC0) != 0x80;
  return cols;
}

void expect_fits(const std::string& text, std::size_t width) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) EXPECT_LE(columns(line), width) << line;
}

TEST(CompareReport, WrapFoldsAtSpacesAndCutsLongWords) {
  EXPECT_EQ(wrap("a b c", 72, 2), "a b c\n");
  EXPECT_EQ(wrap("aaa bbb ccc", 7, 2), "aaa bbb\n  ccc\n");
  EXPECT_EQ(wrap("A: mkfs.xfs -m rmapbt=0", 12, 3), "A: mkfs.xfs\n   -m\n   rmapbt=0\n");
  std::string cut = wrap("x /a/very/long/path/that/does/not/fit", 12, 2);
  EXPECT_EQ(cut, "x\n  /a/very/lo\n  ng/path/th\n  at/does/no\n  t/fit\n");
  expect_fits(cut, 12);
  EXPECT_EQ(wrap("", 72, 0), "\n");
}

CompareOptions options() {
  CompareArgs a;
  a.a = "mkfs: -m rmapbt=0";
  a.b = "mkfs: -m rmapbt=1 -i sparse=1 -d agcount=32; mount: noatime,logbsize=256k,inode64";
  a.output = "/tmp/out";
  a.runs = 2;
  a.threads = "1,4";
  return check_compare_args(a).value();
}

CompareOutcome interrupted(const CompareOptions& o) {
  CompareOutcome out;
  out.plan = make_plan(o.threads, o.runs, o.order, 1);
  out.storage = "1.0 GiB RAM disk (loop device over /dev/shm)";
  RunResult first;
  first.plan = out.plan[0];
  first.profile = "runs/t1/a/run-01.profile";
  first.ops_per_s = 1000;
  first.ops_source = "workload";
  RunResult stopped;
  stopped.plan = out.plan[1];
  stopped.interrupted = true;
  out.results = {first, stopped};
  out.incomplete = true;
  out.reason = "interrupted by SIGINT";
  return out;
}

TEST(CompareReport, NoCompletePairSaysSo) {
  CompareOptions o = options();
  CompareOutcome out = interrupted(o);
  std::vector<ComparePoint> points(2);
  points[0].threads = 1, points[1].threads = 4;
  std::string text = render_compare_text(o, out, points, std::nullopt, Scaling{});
  expect_fits(text, 72);
  EXPECT_EQ(text.rfind("fscost compare: A rmapbt=0 vs B rmapbt=1 sparse=1 agcount=32\n", 0), 0u)
      << text;
  EXPECT_NE(text.find("\nINCOMPLETE: interrupted by SIGINT; 1 of 8 planned runs finished.\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("No complete pair"), std::string::npos) << text;
  EXPECT_NE(text.find("order abba; threads 1,4"), std::string::npos) << text;
}

TEST(CompareReport, JsonRecordsOrderStatusAndRuns) {
  CompareOptions o = options();
  CompareOutcome out = interrupted(o);
  std::vector<ComparePoint> points(2);
  points[0].threads = 1, points[1].threads = 4;
  nlohmann::json j = compare_json(o, out, points, std::nullopt, Scaling{});
  EXPECT_TRUE(j["incomplete"].get<bool>());
  EXPECT_EQ(j["incomplete_reason"], "interrupted by SIGINT");
  EXPECT_EQ(j["planned_runs"], 8);
  EXPECT_EQ(j["finished_runs"], 1);
  ASSERT_EQ(j["order"].size(), 8u);
  EXPECT_EQ(j["order"][0]["status"], "ok");
  EXPECT_EQ(j["order"][1]["status"], "interrupted");
  EXPECT_EQ(j["order"][2]["status"], "not run");
  EXPECT_EQ(j["order"][2]["config"], "B");  // abba: AB BA
  EXPECT_EQ(j["order"][7]["threads"], 4);
  ASSERT_EQ(j["runs"].size(), 1u);  // the interrupted run is discarded
  EXPECT_EQ(j["runs"][0]["profile"], "runs/t1/a/run-01.profile");
  EXPECT_EQ(j["runs"][0]["ops_per_s"], 1000);
  EXPECT_TRUE(j["headline_threads"].is_null());
  EXPECT_EQ(j["options"]["b"]["mount_opts"], "noatime,logbsize=256k,inode64");
}

// A run the host stole the vCPUs from is named where it was run again:
// in the header and in summary.json, with its share.
TEST(CompareReport, RunsRunAgainForStealAreListed) {
  CompareOptions o = options();
  CompareOutcome out = interrupted(o);
  out.reruns.push_back({out.plan[1], 0.19});
  out.reruns.push_back({out.plan[1], 0.124});
  std::vector<ComparePoint> points(2);
  points[0].threads = 1, points[1].threads = 4;
  std::string text = render_compare_text(o, out, points, std::nullopt, Scaling{});
  expect_fits(text, 72);
  std::string flat = text;
  std::replace(flat.begin(), flat.end(), '\n', ' ');
  EXPECT_NE(flat.find("run again, the host having taken more than 10% of the vCPUs'"),
            std::string::npos)
      << text;
  EXPECT_NE(flat.find("(19%),"), std::string::npos) << text;
  EXPECT_NE(flat.find("(12%)"), std::string::npos) << text;
  nlohmann::json j = compare_json(o, out, points, std::nullopt, Scaling{});
  ASSERT_EQ(j["stolen_runs"].size(), 2u);
  EXPECT_EQ(j["stolen_runs"][0]["config"], "B");
  EXPECT_EQ(j["stolen_runs"][0]["rep"], 1);
  EXPECT_DOUBLE_EQ(j["stolen_runs"][0]["steal_share"].get<double>(), 0.19);
  EXPECT_EQ(j["options"]["steal_reruns"], 4);
  // Without any, nothing is said.
  out.reruns.clear();
  text = render_compare_text(o, out, points, std::nullopt, Scaling{});
  EXPECT_EQ(text.find("run again"), std::string::npos) << text;
}

TEST(CompareReport, SectionsWithoutDiff) {
  CompareOptions o = options();
  CompareOutcome out = interrupted(o);
  std::vector<ComparePoint> points(2);
  auto sections = compare_html_sections(o, out, points, std::nullopt, Scaling{});
  ASSERT_GE(sections.size(), 4u);
  EXPECT_EQ(sections[0].id, "compare-setup");
  EXPECT_NE(sections[0].html.find("Incomplete"), std::string::npos);
  EXPECT_NE(sections[1].html.find("<code>AB BA</code>"), std::string::npos) << sections[1].html;
  std::string page = compare_page_without_diff("t <1>", sections);
  EXPECT_NE(page.find("<title>t &lt;1&gt;</title>"), std::string::npos);
  EXPECT_NE(page.find("id=\"compare-scaling\""), std::string::npos);
}

}  // namespace
}  // namespace fscost
