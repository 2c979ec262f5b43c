// The filesystem table (system/filesystems.h): names, and the RAM-disk
// words each mkfs gets, merged with the user's own.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

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

// Issue 41: compare ran <mkfs dir>/xfs_info as root, a program the user
// never named. It is taken only from a tree nobody but root can change.
class XfsInfoScript : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root: the tree must be root's";
    char tmpl[] = "/run/fscost-unit-XXXXXX";  // /run: root's, 0755
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    std::filesystem::create_directories(root_ + "/mkfs");
    std::filesystem::create_directories(root_ + "/spaceman");
    touch(root_ + "/mkfs/mkfs.xfs");
    ::chmod(root_.c_str(), 0755);
  }
  void TearDown() override {
    if (!root_.empty()) std::filesystem::remove_all(root_);
  }
  static void touch(const std::string& path) {
    std::ofstream(path) << "#!/bin/sh\n";
    ::chmod(path.c_str(), 0755);
  }
  XfsInfoBesideMkfs beside() const {
    return xfs_info_beside_mkfs(xfs_filesystem(), root_ + "/mkfs/mkfs.xfs");
  }
  std::string root_;
};

TEST_F(XfsInfoScript, TakenOnlyFromATreeOnlyRootCanChange) {
  EXPECT_EQ(beside().script, "") << "nothing beside it";
  touch(root_ + "/spaceman/xfs_info.sh");
  EXPECT_EQ(beside().script, root_ + "/spaceman/xfs_info.sh");
  touch(root_ + "/mkfs/xfs_info");
  EXPECT_EQ(beside().script, root_ + "/mkfs/xfs_info") << "the installed name first";
  EXPECT_EQ(beside().note, "");

  ::chmod((root_ + "/mkfs").c_str(), 0777);
  auto b = beside();
  EXPECT_EQ(b.script, root_ + "/spaceman/xfs_info.sh") << "its own directory is others'";
  ::chmod(root_.c_str(), 0775);
  b = beside();
  EXPECT_EQ(b.script, "");
  EXPECT_NE(b.note.find("is writable by its group"), std::string::npos) << b.note;
  EXPECT_NE(b.note.find("the system's xfs_info instead"), std::string::npos) << b.note;
  ::chmod(root_.c_str(), 0755);
  ::chmod((root_ + "/mkfs").c_str(), 0755);
  ASSERT_EQ(::chown((root_ + "/mkfs/xfs_info").c_str(), 65534, 65534), 0);
  b = beside();
  EXPECT_EQ(b.script, root_ + "/spaceman/xfs_info.sh");
  EXPECT_EQ(b.note, "not running " + root_ + "/mkfs/xfs_info as root (" + root_ +
                        "/mkfs/xfs_info is owned by uid 65534); " + root_ +
                        "/spaceman/xfs_info.sh instead");
}

TEST(NotRootOnly, NamesTheFirstComponentOthersCanChange) {
  EXPECT_EQ(not_root_only("/"), std::nullopt);
  auto tmp = not_root_only("/tmp");
  ASSERT_TRUE(tmp);
  EXPECT_EQ(*tmp, "/tmp is writable by others");
  EXPECT_TRUE(not_root_only("/nonexistent/fscost"));
  EXPECT_EQ(xfs_info_beside_mkfs(xfs_filesystem(), "mkfs.xfs").script, "") << "a name in PATH";
}

}  // namespace
}  // namespace fscost
