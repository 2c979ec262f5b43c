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

// What a mkfs run printed: the geometry block of the filesystem as built.
struct MkfsRun {
  std::string command;  // "mkfs.xfs -f -m rmapbt=1 /dev/loop0", for reports
  std::string output;   // its standard output
};

// Runs `<mkfs> -f <extra_opts...> <dev>` (mkfs: a path, or a name found in
// PATH; "" = "mkfs.xfs"). -f overwrites old signatures without asking;
// callers must have run check_device_unused(dev, ...) first, which is where
// the user is asked. On failure the Error carries mkfs's own message.
Result<MkfsRun> run_mkfs_xfs(const std::string& dev, const std::vector<std::string>& extra_opts,
                             const std::string& mkfs = {});

// `<mkfs> -V`: "mkfs.xfs version 6.15.0". An Error if it does not run.
Result<std::string> mkfs_version(const std::string& mkfs);

// xfs_info of the filesystem mounted at `dir`: the one beside `mkfs` if
// there is one (a built xfsprogs tree: ../spaceman/xfs_info.sh), else
// xfs_info in PATH. "" if neither runs: the mkfs output has the geometry too.
std::string run_xfs_info(const std::string& dir, const std::string& mkfs);

}  // namespace fscost
