#include <gtest/gtest.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <sstream>

#include "symbols/mapped_file.h"
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

// The identity a mapped file must still have when it is opened: maps
// prints the kernel's dev_t as hex major:minor (12 and 20 bits), the inode
// in decimal, and a deleted file's name with " (deleted)" (or a name with
// spaces) as the rest of the line.
TEST(ProcMaps, ParsesDeviceAndInode) {
  std::istringstream in(
      "1000-2000 r-xp 00000000 fd:01 123 /usr/bin/fsops\n"
      "3000-4000 r-xp 00001000 103:a0 18446744073709551615 /lib/lib z.so (deleted)\n"
      "5000-6000 r-xp 00000000 fff:fffff 7 /big/minor\n"
      "7000-8000 r-xp 00000000 1000:00 7 /major/too/big\n"
      "9000-a000 r-xp 00000000 08:01 12x /inode/not/decimal\n"
      "b000-c000 r-xp 00000000 0801 12 /no/colon\n"
      "d000-e000 r-xp 00000000 08:g1 12 /minor/not/hex\n"
      "f000-e000 r-xp 00000000 08:01 12 /end/before/start\n");
  ProcMaps m = ProcMaps::parse(in);
  ASSERT_EQ(m.mappings().size(), 3u);
  EXPECT_EQ(m.mappings()[0].dev, makedev(0xfd, 0x01));
  EXPECT_EQ(m.mappings()[0].inode, 123u);
  EXPECT_EQ(m.mappings()[1].dev, makedev(0x103, 0xa0));
  EXPECT_EQ(m.mappings()[1].inode, 18446744073709551615u);
  EXPECT_EQ(m.mappings()[1].path, "/lib/lib z.so (deleted)");
  EXPECT_EQ(m.mappings()[1].offset, 0x1000u);
  EXPECT_EQ(m.mappings()[2].dev, makedev(0xfff, 0xfffff));
  EXPECT_EQ(parse_maps_dev("00:00"), makedev(0, 0));
  EXPECT_EQ(parse_maps_dev("fd:01"), makedev(253, 1));
  for (const char* bad : {"", ":", "fd:", ":01", "fd01", "-1:01", "fd:01:02", "1000:0", "0:100000"})
    EXPECT_FALSE(parse_maps_dev(bad)) << bad;
}

// This test's own binary, as the symbolizer pins it: through
// /proc/self/map_files, with the dev and inode its maps line gives.
TEST(MappedFile, PinsThisProgramsTextAndRefusesAnotherIdentity) {
  auto maps = ProcMaps::read(getpid());
  ASSERT_TRUE(maps);
  auto fo = maps->resolve(reinterpret_cast<std::uint64_t>(&fscost_test_marker_function));
  ASSERT_TRUE(fo);
  auto pinned = pin_mapped_file(getpid(), *fo->mapping);
  ASSERT_TRUE(std::holds_alternative<UniqueFd>(pinned));
  EXPECT_TRUE(open_pinned(std::get<UniqueFd>(pinned)));
  Mapping other = *fo->mapping;
  other.inode += 1;
  auto refused = pin_mapped_file(getpid(), other);
  ASSERT_TRUE(std::holds_alternative<MapRefusal>(refused));
  EXPECT_EQ(std::get<MapRefusal>(refused), MapRefusal::Replaced);
  EXPECT_EQ(refusal_counter(MapRefusal::Replaced), "user_mapping_replaced");
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
