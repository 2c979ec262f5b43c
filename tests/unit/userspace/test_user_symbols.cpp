#include <gtest/gtest.h>
#include <unistd.h>

#include <sstream>

#include "symbols/proc_maps.h"
#include "symbols/user_symbols.h"

extern "C" __attribute__((noinline, used)) int fscost_test_marker_function(int x) {
  return x * 3 + 1;
}

namespace fscost {
namespace {

TEST(ProcMaps, KeepsExecutableFileMappingsAndResolvesOffsets) {
  std::istringstream in(
      "55d0a0000000-55d0a0001000 r--p 00000000 fd:01 123 /usr/bin/fsops\n"
      "55d0a0001000-55d0a0005000 r-xp 00001000 fd:01 123 /usr/bin/fsops\n"
      "7f0000000000-7f0000100000 r-xp 00028000 fd:01 456 /usr/lib/libc.so.6\n"
      "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n"
      "7fff00000000-7fff00002000 r-xp 00000000 00:00 0 [vdso]\n");
  ProcMaps m = ProcMaps::parse(in);
  ASSERT_EQ(m.mappings().size(), 2u);
  auto fo = m.resolve(0x55d0a0001234);
  ASSERT_TRUE(fo);
  EXPECT_EQ(fo->mapping->path, "/usr/bin/fsops");
  EXPECT_EQ(fo->offset, 0x1234u);
  fo = m.resolve(0x7f0000000010);
  ASSERT_TRUE(fo);
  EXPECT_EQ(fo->offset, 0x28010u);
  EXPECT_FALSE(m.resolve(0x55d0a0000010));  // not executable
  EXPECT_FALSE(m.resolve(0x1000));
}

TEST(UserSymbolizer, NamesAFunctionOfThisProcess) {
  UserSymbolizer usyms;
  usyms.snapshot({getpid()});
  auto addr = reinterpret_cast<std::uint64_t>(&fscost_test_marker_function) + 4;
  auto frames = usyms.frames(getpid(), {addr});
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0], "fscost_test_marker_function");
  EXPECT_EQ(fscost_test_marker_function(1), 4);
}

TEST(UserSymbolizer, UnknownProcessAndAddressStayVisible) {
  UserSymbolizer usyms;
  EXPECT_EQ(usyms.frames(999999, {0x1234}), std::vector<std::string>{"[unknown]"});
  usyms.snapshot({getpid()});
  EXPECT_EQ(usyms.frames(getpid(), {0x10}), std::vector<std::string>{"[unknown]"});
}

}  // namespace
}  // namespace fscost
