// The test filesystem as the kernel's tracepoints see it: its device number,
// its block-layer name, and (XFS) where its internal log lies on the device.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/result.h"

namespace fscost {

struct FsDevice {
  // major << 20 | minor of sb->s_dev, as the filesystems' tracepoints carry it: the
  // mount's (mountinfo), which for btrfs is not what stat() says.
  std::uint32_t kernel_dev = 0;
  // The block device it writes to, as block:* events name it: kernel_dev,
  // except where the superblock's is an anonymous one (btrfs: 0:NN), then
  // the mount's source device.
  std::uint32_t block_dev = 0;
  std::string block_name;        // "loop0", "dm-1": /sys/class/block/<name>
  bool xfs = false;
  // 512-byte sectors [first, end) of an internal XFS log; both 0 when the
  // log is external or the filesystem is not XFS.
  std::uint64_t log_first_sector = 0, log_end_sector = 0;
};

// The filesystem `dir` is on. An error if `dir` cannot be stat'ed.
Result<FsDevice> fs_device(const std::string& dir);

// The log's sector range from XFS geometry (XFS_IOC_FSGEOMETRY's logstart,
// a filesystem block number, agno << agblklog | agbno). Pure, for tests.
struct SectorRange {
  std::uint64_t first = 0, end = 0;
};
SectorRange xfs_log_sectors(std::uint64_t logstart, std::uint32_t agblocks,
                            std::uint32_t blocksize, std::uint32_t logblocks);

// Bytes written to a block device since boot (/sys/class/block/<name>/stat,
// sectors written × 512); nullopt if unreadable.
std::optional<std::uint64_t> device_written_bytes(const std::string& block_name);

}  // namespace fscost
