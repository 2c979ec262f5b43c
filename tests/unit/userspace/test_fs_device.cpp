// Where an XFS internal log lies on its device, from the geometry the
// kernel reports (record --fs passes it to block_rq_issue to tell log
// writes from other metadata). The runtime test checks it against xfs_db.
#include <gtest/gtest.h>

#include "system/fs_device.h"

namespace fscost {
namespace {

TEST(XfsLogSectors, FromLogstartByAllocationGroup) {
  // AG 2, block 6 of 65536-block AGs (agblklog 16), 4 KiB blocks.
  SectorRange r = xfs_log_sectors((2ull << 16) | 6, 65536, 4096, 16384);
  EXPECT_EQ(r.first, (2ull * 65536 + 6) * 8);
  EXPECT_EQ(r.end - r.first, 16384ull * 8);
  // An AG size that is no power of two still takes 16 bits of the block
  // number: AG 1 starts at block 60000 on disk, not at 65536.
  r = xfs_log_sectors((1ull << 16) | 10, 60000, 4096, 1000);
  EXPECT_EQ(r.first, (60000ull + 10) * 8);
  // 1 KiB blocks: two sectors a block.
  r = xfs_log_sectors(100, 262144, 1024, 10);
  EXPECT_EQ(r.first, 200u);
  EXPECT_EQ(r.end, 220u);
}

TEST(XfsLogSectors, AnExternalLogHasNoRange) {
  SectorRange r = xfs_log_sectors(0, 65536, 4096, 16384);
  EXPECT_EQ(r.first, 0u);
  EXPECT_EQ(r.end, 0u);
}

TEST(FsDevice, AMissingDirectoryIsAnError) {
  auto d = fs_device("/nonexistent/fscost-test");
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("cannot stat /nonexistent/fscost-test"), std::string::npos);
}

}  // namespace
}  // namespace fscost
