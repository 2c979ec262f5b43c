// --time-functions' list: names as the kernel spells them, each once, at most
// FSCOST_MAX_FUNCS; anything else is the user's error, said before loading.
#include <gtest/gtest.h>

#include "collector/function_timer.h"

namespace fscost {
namespace {

TEST(FunctionList, SplitsCommaSeparatedNames) {
  auto r = parse_function_list("xfs_trans_roll,xfs_attr_set,__xfs_dir3_data_check");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r.value(), (std::vector<std::string>{"xfs_trans_roll", "xfs_attr_set",
                                                 "__xfs_dir3_data_check"}));
}

TEST(FunctionList, RejectsWhatIsNoName) {
  for (const char* bad : {"", ",", "xfs_create,", "xfs create", "1xfs", "xfs_create;rm",
                          "xfs_create,,xfs_remove", "xfs:xfs_create"}) {
    auto r = parse_function_list(bad);
    EXPECT_FALSE(r) << bad;
    if (!r) {
      EXPECT_NE(r.error().message.find("is not a kernel function name"), std::string::npos);
    }
  }
}

TEST(FunctionList, RejectsRepeatsAndTooMany) {
  auto twice = parse_function_list("xfs_create,xfs_remove,xfs_create");
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().message, "--time-functions: 'xfs_create' is named twice");
  std::string nine;
  for (int i = 0; i < FSCOST_MAX_FUNCS + 1; ++i) nine += (i ? ",f" : "f") + std::to_string(i);
  auto many = parse_function_list(nine);
  ASSERT_FALSE(many);
  EXPECT_EQ(many.error().message, "--time-functions: 9 functions; at most 8 can be timed at once");
  EXPECT_TRUE(parse_function_list(nine.substr(0, nine.rfind(','))));
}

}  // namespace
}  // namespace fscost
