// Reading a workload's own figures from its output.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "compare/run.h"

namespace fscost {
namespace {

TEST(CompareRun, LastJsonLine) {
  EXPECT_TRUE(last_json_line("no json here\n").is_null());
  auto j =
      last_json_line("{\"ops_per_s\": 1}\nnoise\n{\"ops_per_s\": 2.5, \"counts\": {}}\n{broken\n");
  EXPECT_EQ(j["ops_per_s"], 2.5);
}

TEST(CompareRun, FsMarkTable) {
  const char* out =
      "#  fs_mark  -d /tmp/x -n 3000 -s 0 -t 2 -S 0 -L 2\n"
      "#\tVersion 3.3, 2 thread(s) starting at Mon Nov 30 04:51:03 2026\n"
      "#\tFiles info: size 0 bytes, written with an IO size of 16384 bytes per write\n"
      "\n"
      "FSUse%        Count         Size    Files/sec     App Overhead\n"
      "     6         6000            0      53986.6            27732\n"
      "     6        12000            0      46013.4            28001\n";
  nlohmann::json j = fs_mark_figures(out);
  ASSERT_TRUE(j.is_object());
  EXPECT_DOUBLE_EQ(j["ops_per_s"].get<double>(), 50000.0);
  EXPECT_EQ(j["fs_mark_rows"], 2);
  EXPECT_TRUE(fs_mark_figures("Files/sec\n").is_null());
  EXPECT_TRUE(fs_mark_figures("").is_null());
}

TEST(CompareRun, TailLines) {
  EXPECT_EQ(tail_lines("a\n\nb\n  \nc\nd\n", 3), "b\nc\nd");
  EXPECT_EQ(tail_lines("", 3), "");
}

}  // namespace
}  // namespace fscost
