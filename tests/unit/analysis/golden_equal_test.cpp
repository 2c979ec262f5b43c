// Goldens keep what a reader sees, and a double to a relative 1e-9: the
// comparison must pass a change in the last digits and fail any other.
#include <gtest/gtest.h>

#include "fixture.h"

namespace fscost::test {
namespace {

TEST(GoldenEqual, LastDigitsOfADoublePass) {
  EXPECT_TRUE(golden_equal(R"({"p": 0.5786941551268949})", R"({"p": 0.5786941551268951})"));
  EXPECT_TRUE(golden_equal("ci -114.60750148907633..", "ci -114.6075014890763.."));
  EXPECT_TRUE(golden_equal("t 1.5e-300 x", "t 1.5000000000001e-300 x"));
  EXPECT_TRUE(golden_equal("same", "same"));
}

TEST(GoldenEqual, AnythingElseFails) {
  EXPECT_FALSE(golden_equal("xfs_trans_commit 1.02 -> 2.02", "xfs_trans_commit 1.02 -> 2.03"));
  EXPECT_FALSE(golden_equal(R"({"p": 0.5786941551268949})", R"({"p": 0.5786951551268949})"));
  EXPECT_FALSE(golden_equal("q 0.001", "q -0.001"));
  EXPECT_FALSE(golden_equal("create", "unlink"));
  EXPECT_FALSE(golden_equal("12 runs", "12 runs\n"));
  EXPECT_FALSE(golden_equal("12", "1"));
  // digits inside a name are text: xfs_buf2 is not xfs_buf2.0000000001
  EXPECT_FALSE(golden_equal("xfs_buf2", "xfs_buf2.0000000000001"));
}

}  // namespace
}  // namespace fscost::test
