// Before formatting a block device: make sure nothing on it would be lost
// (filesystems.h then formats it).
#pragma once

#include <string>

#include "model/file_io.h"  // Status
#include "model/result.h"

namespace fscost {

// Ok when `dev` is a block device that is not mounted, has no holders
// (device-mapper, md), is not opened exclusively and carries no filesystem,
// RAID or partition-table signature. With `force` only "is a block device" is
// checked (mkfs.xfs itself still refuses a mounted device). The Error names
// what was found and hints at --force.
Status check_device_unused(const std::string& dev, bool force);

}  // namespace fscost
