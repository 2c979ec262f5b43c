// The runs' filesystems, one ahead. A compare formats a fresh filesystem
// for every run; on a RAM disk of two images (CompareStorage::slots) the
// next run's is made and mounted on the other image while the current run's
// recording is written: after its workload has exited and the recording
// stopped, so the mkfs never runs inside a measurement.
#pragma once

#include <cstddef>
#include <future>
#include <optional>
#include <string>

#include "compare/options.h"
#include "system/ramdisk.h"  // Mount

namespace fscost {

class CompareStorage;

// A run's filesystem, made and mounted on one of the storage's slots.
struct MadeFs {
  int config = -1;
  std::size_t slot = 0;
  std::string device;  // /dev/loopN
  std::string mkfs_cmd, mkfs_output;
  std::optional<Mount> mount;  // unmounted when this goes
  std::string error;           // why it could not be made; "" when it was
};

class FsPipeline {
 public:
  FsPipeline(const CompareOptions& o, const CompareStorage& storage) : o_(o), storage_(storage) {}
  FsPipeline(const FsPipeline&) = delete;
  FsPipeline& operator=(const FsPipeline&) = delete;
  // Waits for a filesystem being made ahead, and unmounts it.
  ~FsPipeline();

  // The filesystem for a run of `config`: the one made ahead when it is
  // that configuration's, else one made now.
  MadeFs take(int config);
  // With two slots: starts making `config`'s filesystem on the slot the
  // current run (`in_use`) does not hold. No-op with one.
  void make_ahead(int config, std::size_t in_use);
  // Unmounts a run's filesystem on a thread (an umount evicts every inode
  // the run made: a third of fscost's own CPU in a compare) while the run's
  // profile is written; the next take() waits for it, so it never runs
  // inside a recording.
  void release(MadeFs made);

 private:
  const CompareOptions& o_;
  const CompareStorage& storage_;
  std::future<MadeFs> ahead_;
  std::future<void> released_;
};

}  // namespace fscost
