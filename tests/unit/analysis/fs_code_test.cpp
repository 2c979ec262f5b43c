// Whose code a frame is (model/fs_code.h): prefixes, the unprefixed static
// functions perf showed in each filesystem's create stacks, and the VFS
// helpers they call, which belong to none.
#include "model/fs_code.h"

#include <gtest/gtest.h>

namespace fscost {
namespace {

std::string_view owner(std::string_view frame) {
  const FsCode* c = fs_code_of(frame);
  return c ? c->fs : std::string_view("none");
}

TEST(FsCode, PrefixesAndStaticHelpers) {
  EXPECT_EQ(owner("xfs_create"), "xfs");
  EXPECT_EQ(owner("xlog_cil_commit"), "xfs");
  EXPECT_EQ(owner("_xfs_trans_bjoin"), "xfs");
  EXPECT_EQ(owner("ext4_create"), "ext4");
  EXPECT_EQ(owner("jbd2__journal_start"), "ext4");
  EXPECT_EQ(owner("start_this_handle"), "ext4");
  EXPECT_EQ(owner("dx_insert_block.isra.0"), "ext4");
  EXPECT_EQ(owner("btrfs_search_slot"), "btrfs");
  EXPECT_EQ(owner("split_leaf"), "btrfs");
  EXPECT_EQ(owner("memmove_extent_buffer"), "btrfs");
  EXPECT_EQ(owner("setup_items_for_insert.isra.0"), "btrfs");
}

TEST(FsCode, VfsAndSharedNamesBelongToNone) {
  for (const char* f : {"path_openat", "insert_inode_locked", "insert_inode_locked4", "new_inode",
                        "d_instantiate_new", "init_once", "down_write", "__getblk_slow", "up"})
    EXPECT_EQ(owner(f), "none") << f;
}

TEST(FsCode, RowsByName) {
  ASSERT_NE(fs_code("ext4"), nullptr);
  EXPECT_EQ(fs_code("ext4")->label, "ext4/jbd2");
  EXPECT_EQ(fs_code("zfs"), nullptr);
  EXPECT_TRUE(is_fs_code("btrfs_add_link", fs_code("btrfs")));
  EXPECT_FALSE(is_fs_code("btrfs_add_link", fs_code("xfs")));
  EXPECT_FALSE(is_fs_code("btrfs_add_link", nullptr));
}

}  // namespace
}  // namespace fscost
