// Where a compare's runs happen: a RAM disk (a loop device over a sparse
// image in /dev/shm, made once and re-formatted every run) or the user's
// block device. Both are checked before anything is formatted. A RAM disk
// is two images when the memory allows, so that the next run's filesystem
// is made while the current one's recording is written (compare/run.h).
#pragma once

#include <cstdint>
#include <optional>
#include <sys/types.h>
#include <string>
#include <vector>

#include "compare/options.h"
#include "system/ramdisk.h"

namespace fscost {

class CompareStorage {
 public:
  // The image only (its size checked against /dev/shm's free space); the
  // loop device comes with attach(), after the options are checked. A
  // second image when /dev/shm holds two and the machine's available memory
  // three (the run's own page cache beside them).
  static Result<CompareStorage> ram_disk(std::uint64_t bytes);
  // check_device_unused(dev, force): refuses a mounted device or one that
  // holds a filesystem (or any signature) unless --force. `dev` is resolved
  // once, to its device number and its node under /dev: a symlink changed
  // later cannot point the next mkfs elsewhere.
  static Result<CompareStorage> device(const std::string& dev, bool force);

  // Before every mkfs: the node still is the device checked at the start
  // (same device number) and nothing mounted or opened it meanwhile.
  Status check_before_mkfs(std::size_t slot = 0) const;

  // mkfs.xfs -N (dry run: nothing written) with the configuration's
  // options on a sparse file of the same size, so a rejected option stops
  // the compare before anything is formatted. `side` is "A" or "B".
  Status check_mkfs(const ConfigSpec& c, const std::string& side, const std::string& mkfs) const;

  // RAM disk: binds the loop devices. No-op for a device.
  Status attach();

  // Filesystems that can exist at once: 2 for a RAM disk of two images.
  std::size_t slots() const { return slots_.size(); }
  const std::string& device(std::size_t slot = 0) const { return slots_.at(slot).dev; }
  // "1.0 GiB RAM disk (loop device over /dev/shm)" or "/dev/sdb (100.0 GiB)".
  std::string description() const;
  // Why a RAM disk is one image ("" when two, or a device).
  const std::string& one_image_reason() const { return one_image_reason_; }

 private:
  struct Slot {
    std::optional<ShmImage> image;
    std::optional<LoopDevice> loop;
    std::string dev;
    dev_t rdev = 0;
  };
  CompareStorage() = default;
  std::vector<Slot> slots_;
  std::uint64_t bytes_ = 0;
  std::string one_image_reason_;
};

}  // namespace fscost
