// Target::command: the forked child is held at its gate until start().
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "system/target.h"

namespace fscost {
namespace {

// The command is tracked only once it waits at the gate: its own syscalls
// before that (closing the pipes' other ends, opening /dev/null) are
// fscost's, not the workload's. A loaded CI run counted them in a compare's
// runs: 2 closes, an open and a read more than the same command recorded
// alone (runtime.CompareTest.EachRunCountsWhatASeparateRecordCounts).
TEST(Target, CommandWaitsAtTheGateWhenItReturns) {
  for (int i = 0; i < 20; ++i) {
    auto t = Target::command({"true"}, CommandIo{.null_stdin = true});
    ASSERT_TRUE(t) << t.error().message;
    std::ifstream in("/proc/" + std::to_string(t.value().tgid()) + "/syscall");
    std::string line;
    std::getline(in, line);
    EXPECT_TRUE(line.starts_with("0 ")) << "not in read(2) at the gate: " << line;
    ASSERT_TRUE(t.value().start());
    t.value().wait(std::nullopt);
  }
}

}  // namespace
}  // namespace fscost
