// Before formatting a block device: make sure nothing on it would be lost,
// then run mkfs.xfs on it.
#pragma once

#include <string>
#include <vector>

#include "model/file_io.h"  // Status
#include "model/result.h"

namespace fscost {

// Ok when `dev` is a block device that is not mounted, has no holders
// (device-mapper, md), is not opened exclusively and carries no filesystem,
// RAID or partition-table signature. With `force` only "is a block device" is
// checked (mkfs.xfs itself still refuses a mounted device). The Error names
// what was found and hints at --force.
Status check_device_unused(const std::string& dev, bool force);

// Runs `mkfs.xfs -f -q <extra_opts...> <dev>` and returns that command line
// (for reports). -f overwrites old signatures without asking; callers must
// have run check_device_unused(dev, ...) first, which is where the user is
// asked. On failure the Error carries mkfs's own message.
Result<std::string> run_mkfs_xfs(const std::string& dev,
                                 const std::vector<std::string>& extra_opts);

}  // namespace fscost
