// The sweep's guardrails (compare/guardrail.h): commands that differ in
// more than the thread count, and more threads than CPUs.
#include <gtest/gtest.h>

#include "compare/guardrail.h"

namespace fscost {
namespace {

WorkloadSpec at(std::map<int, std::string> cmds) {
  WorkloadSpec w;
  for (const auto& [t, cmd] : cmds) w.cmd_at[t] = split_words(cmd).value();
  w.cmd = w.cmd_at.begin()->second;
  return w;
}

// The seed's table (../shared/context/002): its three commands differ in
// the file size as well as the task count.
TEST(Guardrail, TheSeedsCommandsDifferInTheFileSize) {
  auto w = workload_guardrail(
      at({{1, "fs_mark -d{dir}/test -D5 -N100 -L1 -p5 -r5 -s1048576 -w4096 -n1000 -t1"},
          {16, "fs_mark -d{dir}/test -D5 -N100 -L1 -p5 -r5 -s65536 -w4096 -n1000 -t16"},
          {64, "fs_mark -d{dir}/test -D5 -N100 -L1 -p5 -r5 -s4096 -w4096 -n1000 -t64"}}));
  ASSERT_TRUE(w);
  EXPECT_EQ(w->kind, WarningKind::WorkloadVaries);
  EXPECT_NE(w->message.find("at 1 `-s1048576`, at 16 `-s65536`, at 64 `-s4096`"), std::string::npos)
      << w->message;
}

TEST(Guardrail, OnlyTheThreadCountIsNoWarning) {
  EXPECT_FALSE(workload_guardrail(
      at({{1, "fs_mark -d {dir} -s 4096 -t 1"}, {16, "fs_mark -d {dir} -s 4096 -t 16"}})));
  EXPECT_FALSE(workload_guardrail(at({{1, "fs_mark -d{dir} -s4096 -t1"}})));
  // A flag that carries the count in every command is the count; one that
  // equals it in one command only ("-L1" at 1 thread) is compared.
  auto one =
      workload_guardrail(at({{1, "fs_mark -d {dir} -L1 -t1"}, {16, "fs_mark -d {dir} -L2 -t16"}}));
  ASSERT_TRUE(one);
  EXPECT_NE(one->message.find("at 1 `-L1`, at 16 `-L2`"), std::string::npos) << one->message;
  auto more =
      workload_guardrail(at({{1, "fs_mark -d {dir} -t 1"}, {4, "fs_mark -d {dir} -t 4 -S 0"}}));
  ASSERT_TRUE(more);
  EXPECT_NE(more->message.find("at 4 `-S 0`"), std::string::npos) << more->message;
}

TEST(Guardrail, OversubscriptionSaysTheCeiling) {
  Warning w = oversubscription_warning(64, 2, {{"xfs", 20.0, 50000}, {"ext4", 0, 0}});
  EXPECT_EQ(w.kind, WarningKind::Oversubscribed);
  EXPECT_NE(w.message.find("64 threads on 2 CPUs: at most 2 run at once"), std::string::npos);
  // 2 CPUs / 20 µs = 100000/s, half of it reached; 64 CPUs: 3.2M/s.
  EXPECT_NE(w.message.find("xfs 20.0 µs CPU/op: ceiling 100000/s here, reached 50%; 3200000/s "
                           "on 64 CPUs"),
            std::string::npos)
      << w.message;
  EXPECT_EQ(w.message.find("ext4"), std::string::npos) << "no CPU figure, no arithmetic";
}

}  // namespace
}  // namespace fscost
