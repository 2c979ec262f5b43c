#include "system/fs_device.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "system/subprocess.h"
#include "system/sys_util.h"

namespace fscost {
namespace {

// include/uapi/linux/magic.h has no XFS entry; fs/xfs/libxfs/xfs_format.h does.
constexpr long kXfsSuperMagic = 0x58465342;

// fs/xfs/libxfs/xfs_fs.h, XFS_IOC_FSGEOMETRY_V1: the oldest layout, which
// every kernel keeps answering (xfsprogs-dev would bring the header along).
struct xfs_fsop_geom_v1 {
  __u32 blocksize, rtextsize, agblocks, agcount, logblocks, sectsize, inodesize, imaxpct;
  __u64 datablocks, rtblocks, rtextents, logstart;
  unsigned char uuid[16];
  __u32 sunit, swidth;
  __s32 version;
  __u32 flags, logsectsize, rtsectsize, dirblocksize;
};
static_assert(sizeof(xfs_fsop_geom_v1) == 112);
#define FSCOST_XFS_IOC_FSGEOMETRY_V1 _IOR('X', 100, struct xfs_fsop_geom_v1)

// The block-layer name of a dev_t, from sysfs ("loop0").
std::string block_name_of(unsigned major, unsigned minor) {
  std::ifstream in(fmt::format("/sys/dev/block/{}:{}/uevent", major, minor));
  for (std::string line; std::getline(in, line);)
    if (line.rfind("DEVNAME=", 0) == 0) return line.substr(8);
  return {};
}

// The mount `dir` is on: the longest mount point that contains it. Its
// major:minor is the superblock's s_dev, which the filesystems' tracepoint
// arguments carry; stat()'s st_dev is that for XFS and ext4, but btrfs
// answers with its subvolume's own anonymous dev_t.
std::optional<MountEntry> mount_of(const std::string& dir) {
  std::error_code ec;
  std::string path = std::filesystem::canonical(dir, ec).string();
  if (ec) return std::nullopt;
  std::optional<MountEntry> best;
  for (MountEntry& m : read_mountinfo()) {
    const std::string& point = m.mountpoint;
    bool inside = path == point || point == "/" ||
                  (path.starts_with(point) && path[point.size()] == '/');
    // a later mount on the same point hides the earlier one
    if (inside && (!best || point.size() >= best->mountpoint.size())) best = std::move(m);
  }
  return best;
}

}  // namespace

SectorRange xfs_log_sectors(std::uint64_t logstart, std::uint32_t agblocks,
                            std::uint32_t blocksize, std::uint32_t logblocks) {
  if (logstart == 0 || agblocks == 0 || blocksize < 512) return {};
  // agblklog = log2 of agblocks rounded up (mkfs: highbit32(agblocks - 1) + 1)
  unsigned agblklog = 0;
  while ((std::uint64_t{1} << agblklog) < agblocks) ++agblklog;
  std::uint64_t agno = logstart >> agblklog;
  std::uint64_t agbno = logstart & ((std::uint64_t{1} << agblklog) - 1);
  std::uint64_t per_block = blocksize / 512;
  std::uint64_t first = (agno * agblocks + agbno) * per_block;
  return {first, first + std::uint64_t{logblocks} * per_block};
}

Result<FsDevice> fs_device(const std::string& dir) {
  struct stat st{};
  if (::stat(dir.c_str(), &st) != 0)
    return Error{fmt::format("cannot stat {}: {}", dir, errno_text()), "give a mounted directory"};
  FsDevice d;
  unsigned maj = major(st.st_dev), min = minor(st.st_dev);
  auto mount = mount_of(dir);
  if (mount && std::sscanf(mount->majmin.c_str(), "%u:%u", &maj, &min) != 2)
    maj = major(st.st_dev), min = minor(st.st_dev);
  d.kernel_dev = (maj << 20) | min;
  d.block_dev = d.kernel_dev;
  d.block_name = block_name_of(maj, min);
  struct stat src{};
  if (d.block_name.empty() && mount && ::stat(mount->source.c_str(), &src) == 0 &&
      S_ISBLK(src.st_mode)) {
    d.block_dev = (major(src.st_rdev) << 20) | minor(src.st_rdev);
    d.block_name = block_name_of(major(src.st_rdev), minor(src.st_rdev));
  }
  struct statfs sf{};
  d.xfs = ::statfs(dir.c_str(), &sf) == 0 && sf.f_type == kXfsSuperMagic;
  if (!d.xfs) return d;
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  xfs_fsop_geom_v1 g{};
  if (fd && ::ioctl(fd.get(), FSCOST_XFS_IOC_FSGEOMETRY_V1, &g) == 0) {
    SectorRange log = xfs_log_sectors(g.logstart, g.agblocks, g.blocksize, g.logblocks);
    d.log_first_sector = log.first;
    d.log_end_sector = log.end;
  }
  return d;
}

std::optional<std::uint64_t> device_written_bytes(const std::string& block_name) {
  if (block_name.empty()) return std::nullopt;
  std::istringstream in(read_first_line("/sys/class/block/" + block_name + "/stat"));
  // read I/Os, merges, sectors, ticks; write I/Os, merges, sectors, ...
  std::uint64_t v[7];
  for (auto& x : v)
    if (!(in >> x)) return std::nullopt;
  return v[6] * 512;
}

}  // namespace fscost
