// Scratch storage on a RAM disk: a sparse image on /dev/shm (tmpfs), attached
// to a loop device, formatted with mkfs.xfs and mounted on a temp directory.
// Each piece is an RAII owner, so a failed run or test leaves nothing behind;
// the kernel-side pieces (LO_FLAGS_AUTOCLEAR) also go away if we are killed.
// The machines have no brd/null_blk; loop over tmpfs is the RAM disk.
// Formatting checks live in device_check.h, crash cleanup in leftovers.h;
// both are included here for callers of the whole RAM-disk interface.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "system/device_check.h"  // check_device_unused
#include "system/filesystems.h"   // run_mkfs_xfs
#include "model/file_io.h"       // Status
#include "system/leftovers.h"     // find_leftovers
#include "model/result.h"
#include "system/subprocess.h"

namespace fscost {

// Sparse file /dev/shm/fscost-<pid>-<random>.img; unlinked on destruction.
class ShmImage {
 public:
  static Result<ShmImage> create(uint64_t bytes);
  ShmImage(ShmImage&& o) noexcept;
  ShmImage& operator=(ShmImage&& o) noexcept;
  ShmImage(const ShmImage&) = delete;
  ShmImage& operator=(const ShmImage&) = delete;
  ~ShmImage() { remove(); }

  const std::string& path() const { return path_; }
  uint64_t size() const { return bytes_; }

  // Allocates every page of the image now (fallocate), so that no run
  // pays for it: a sparse image is filled page by page during the runs, and
  // pages the guest freed may have gone back to the host, which makes the
  // next touch slow. Keep it allocated by formatting with mkfs.xfs -K (no
  // discard, which would punch it back to holes).
  Status allocate();

 private:
  ShmImage(std::string path, uint64_t bytes) : path_(std::move(path)), bytes_(bytes) {}
  void remove();
  std::string path_;
  uint64_t bytes_ = 0;
};

// A /dev/loopN bound to a file, with LO_FLAGS_AUTOCLEAR. Detached (LOOP_CLR_FD)
// on destruction; the detach completes when the last opener (a mount) is gone.
class LoopDevice {
 public:
  static Result<LoopDevice> attach(const std::string& file);
  LoopDevice(LoopDevice&&) noexcept = default;
  LoopDevice& operator=(LoopDevice&& o) noexcept;
  LoopDevice(const LoopDevice&) = delete;
  LoopDevice& operator=(const LoopDevice&) = delete;
  ~LoopDevice() { detach(); }

  const std::string& path() const { return path_; }  // "/dev/loopN"

 private:
  LoopDevice(UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  void detach();
  UniqueFd fd_;
  std::string path_;
};

// A mount on a fresh directory /tmp/fscost-mnt-<pid>-XXXXXX. On destruction:
// umount (retrying while busy, lazy-detach as a last resort), then rmdir.
// `options` is a mount(8)-style list; generic flags (ro, noatime, ...) become
// MS_* flags and the rest goes to the filesystem.
class Mount {
 public:
  static Result<Mount> create(const std::string& dev, const std::string& fstype,
                              const std::string& options);
  Mount(Mount&& o) noexcept;
  Mount& operator=(Mount&& o) noexcept;
  Mount(const Mount&) = delete;
  Mount& operator=(const Mount&) = delete;
  ~Mount() { unmount(); }

  const std::string& dir() const { return dir_; }

 private:
  explicit Mount(std::string dir) : dir_(std::move(dir)) {}
  void unmount();
  std::string dir_;
};

// Fresh XFS on a RAM disk: image → loop → mkfs → mount.
class ScratchXfs {
 public:
  static Result<ScratchXfs> create(uint64_t bytes, std::vector<std::string> mkfs_opts = {},
                                   std::string mount_opts = {});

  const std::string& dir() const { return mount_.dir(); }     // mountpoint
  const std::string& device() const { return loop_.path(); }  // /dev/loopN
  const std::string& image() const { return image_.path(); }  // backing file
  const std::string& mkfs_command() const { return mkfs_cmd_; }

 private:
  ScratchXfs(ShmImage image, LoopDevice loop, Mount mount, std::string mkfs_cmd)
      : image_(std::move(image)),
        loop_(std::move(loop)),
        mount_(std::move(mount)),
        mkfs_cmd_(std::move(mkfs_cmd)) {}
  // Declaration order is the teardown order reversed: mount, loop, image.
  ShmImage image_;
  LoopDevice loop_;
  Mount mount_;
  std::string mkfs_cmd_;
};

}  // namespace fscost
