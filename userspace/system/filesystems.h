// The filesystems fscost formats, one row each: how to make one (mkfs and
// the flags that force, keep the RAM disk allocated, or only check), which
// version made it, and the tool that prints its settings once mounted. A
// new filesystem is a row in filesystems.cpp; the device checks
// (device_check.h) are the same for all.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

namespace fscost {

struct Filesystem {
  std::string_view name;  // the mount type and a configuration's "fs:" ("xfs")
  std::string_view mkfs;  // the default mkfs program ("mkfs.xfs")
  // Overwrite an old signature without asking; callers have checked the
  // device first (check_device_unused).
  std::string_view force;
  // mkfs words for a RAM disk: no discard, which would punch the image
  // back to holes (ShmImage::allocate); for ext4 also no lazy init, which
  // a kernel thread would do while the workload runs.
  std::vector<std::string_view> no_discard;
  // Checks the options without writing ("-N"); empty: the check formats a
  // scratch file instead.
  std::string_view dry_run;
  // Printed by `<mkfs> -V` (on stdout or stderr) for the right program.
  std::string_view version_word;
  // Reads the mounted filesystem's settings: {dir} and {dev} are replaced.
  std::vector<std::string_view> info;
  std::string_view min_size;  // what mkfs wants, for the hint when it refuses
  // Option keys whose value names another device: mkfs sub-options
  // ("-l logdev=/dev/sdc") and mount options ("logdev=/dev/sdc"). fscost
  // formats only the device it checked, so a configuration may not give them.
  std::vector<std::string_view> mkfs_device_keys;
  std::vector<std::string_view> mount_device_keys;
};

// Every filesystem fscost can format, XFS first.
std::span<const Filesystem> filesystems();
// The row for "xfs", "ext4", "btrfs"; nullptr for another name.
const Filesystem* find_filesystem(std::string_view name);
const Filesystem& xfs_filesystem();
// "xfs, ext4, btrfs", for error messages.
std::string filesystem_names();

// `opts` with the filesystem's no_discard words (merged into the user's
// own -E for mke2fs, which keeps only the last one; the user's win).
std::vector<std::string> without_discard(const Filesystem& fs, std::vector<std::string> opts);

// What a mkfs run printed: the geometry of the filesystem as built.
struct MkfsRun {
  std::string command;  // "mkfs.xfs -f -m rmapbt=1 /dev/loop0", for reports
  std::string output;   // its standard output
};

// Runs `<mkfs> <force> <extra_opts...> <dev>` (mkfs: a path or a name in
// PATH; "" = the filesystem's own). Callers must have run
// check_device_unused(dev, ...) first, which is where the user is asked. On
// failure the Error carries mkfs's own complaint.
Result<MkfsRun> run_mkfs(const Filesystem& fs, const std::string& dev,
                         const std::vector<std::string>& extra_opts, const std::string& mkfs = {});
inline Result<MkfsRun> run_mkfs_xfs(const std::string& dev,
                                    const std::vector<std::string>& extra_opts,
                                    const std::string& mkfs = {}) {
  return run_mkfs(xfs_filesystem(), dev, extra_opts, mkfs);
}

// `<mkfs> -V`'s first line: "mkfs.xfs version 6.15.0", "mke2fs 1.47.0
// (5-Feb-2023)". An Error if it does not run or is another filesystem's.
Result<std::string> mkfs_version(const Filesystem& fs, const std::string& mkfs);

// Why root should not run `path`: it, or a directory above it, is not
// root's or is writable by group or others (symlinks resolved first).
std::optional<std::string> not_root_only(const std::string& path);

// The xfs_info of a built xfsprogs tree beside a --mkfs given by path
// (<dir>/xfs_info, <dir>/../spaceman/xfs_info.sh), taken only if
// not_root_only() finds nothing; `note` says why one that is there was not,
// and what was taken instead.
struct XfsInfoBesideMkfs {
  std::string script;
  std::string note;
};
XfsInfoBesideMkfs xfs_info_beside_mkfs(const Filesystem& fs, const std::string& mkfs);

// The settings of the filesystem mounted at `dir` on `dev` as its own tool
// prints them (xfs_info, dumpe2fs -h, btrfs inspect-internal dump-super);
// "" if it does not run. For XFS, xfs_info_beside_mkfs() first.
std::string run_fs_info(const Filesystem& fs, const std::string& dir, const std::string& dev,
                        const std::string& mkfs);

}  // namespace fscost
