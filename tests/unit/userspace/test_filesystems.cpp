// The filesystem table (system/filesystems.h): names, and the RAM-disk
// words each mkfs gets, merged with the user's own.
#include <gtest/gtest.h>

#include "system/filesystems.h"

namespace fscost {
namespace {

using Words = std::vector<std::string>;

TEST(Filesystems, TableNamesXfsFirst) {
  EXPECT_EQ(filesystem_names(), "xfs, ext4, btrfs");
  EXPECT_EQ(&xfs_filesystem(), find_filesystem("xfs"));
  EXPECT_EQ(find_filesystem("ext4")->mkfs, "mkfs.ext4");
  EXPECT_EQ(find_filesystem("zfs"), nullptr);
}

TEST(Filesystems, RamDiskWordsJoinTheUsersOwn) {
  const Filesystem& xfs = *find_filesystem("xfs");
  const Filesystem& ext4 = *find_filesystem("ext4");
  EXPECT_EQ(without_discard(xfs, {"-m", "rmapbt=1"}), (Words{"-K", "-m", "rmapbt=1"}));
  EXPECT_EQ(without_discard(ext4, {}),
            (Words{"-E", "nodiscard,lazy_itable_init=0,lazy_journal_init=0"}));
  // mke2fs keeps the last -E only: ours go into the user's, before theirs,
  // so that an explicit lazy_itable_init=1 wins.
  EXPECT_EQ(without_discard(ext4, {"-b", "4096", "-E", "lazy_itable_init=1"}),
            (Words{"-b", "4096", "-E",
                   "nodiscard,lazy_itable_init=0,lazy_journal_init=0,lazy_itable_init=1"}));
}

}  // namespace
}  // namespace fscost
