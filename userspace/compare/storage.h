// Where a compare's runs happen: a RAM disk (a loop device over a sparse
// image in /dev/shm, made once and re-formatted every run) or the user's
// block device. Both are checked before anything is formatted.
#pragma once

#include <cstdint>
#include <optional>
#include <sys/types.h>
#include <string>

#include "compare/options.h"
#include "system/ramdisk.h"

namespace fscost {

class CompareStorage {
 public:
  // The image only (its size checked against /dev/shm's free space); the
  // loop device comes with attach(), after the options are checked.
  static Result<CompareStorage> ram_disk(std::uint64_t bytes);
  // check_device_unused(dev, force): refuses a mounted device or one that
  // holds a filesystem (or any signature) unless --force. `dev` is resolved
  // once, to its device number and its node under /dev: a symlink changed
  // later cannot point the next mkfs elsewhere.
  static Result<CompareStorage> device(const std::string& dev, bool force);

  // Before every mkfs: the node still is the device checked at the start
  // (same device number) and nothing mounted or opened it meanwhile.
  Status check_before_mkfs() const;

  // mkfs.xfs -N (dry run: nothing written) with the configuration's
  // options on a sparse file of the same size, so a rejected option stops
  // the compare before anything is formatted. `side` is "A" or "B".
  Status check_mkfs(const ConfigSpec& c, const std::string& side, const std::string& mkfs) const;

  // RAM disk: binds the loop device. No-op for a device.
  Status attach();

  const std::string& device() const { return dev_; }
  // "1.0 GiB RAM disk (loop device over /dev/shm)" or "/dev/sdb (100.0 GiB)".
  std::string description() const;

 private:
  CompareStorage() = default;
  std::optional<ShmImage> image_;
  std::optional<LoopDevice> loop_;
  std::string dev_;
  dev_t rdev_ = 0;
  std::uint64_t bytes_ = 0;
};

}  // namespace fscost
