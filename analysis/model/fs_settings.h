// A filesystem's settings as its tools print them, so two configurations
// can be compared setting by setting (docs/COMPARE.md "What differs"): the
// geometry block mkfs.xfs and xfs_info print, and the mount options the
// kernel shows in /proc/self/mountinfo.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fscost {

// name → value, in the order printed. Names are "<section>.<key>" for the
// geometry ("naming.parent", "meta-data.isize", "log.blocks") and
// "mount.<option>" for mount options ("mount.logbsize", "mount.wsync" = "").
using Settings = std::vector<std::pair<std::string, std::string>>;

// The xfs_info / mkfs.xfs geometry block:
//   meta-data=/dev/loop0   isize=512    agcount=4, agsize=65536 blks
//            =             sectsz=512   attr=2, projid32bit=1
//   naming   =version 2    bsize=4096   ascii-ci=0, ftype=1, parent=1
// Each key=value becomes "<section>.<key>"; a section's own value
// ("version 2", "internal log") becomes "<section>" — except meta-data's,
// the device, which differs between runs and is no setting. Lines outside
// the block ("Discarding blocks...Done.") are ignored.
Settings parse_xfs_geometry(std::string_view text);

// "rw,inode64,logbufs=8,logbsize=32k,noquota" → mount.rw="", mount.logbufs="8", ...
Settings parse_mount_options(std::string_view options);

// The settings a mkfs.xfs command line and a mount option list name, as
// setting names: "-n parent=1" → naming.parent, "-i size=1024" →
// meta-data.isize, "-n size=64k" → naming.bsize, "-d agcount=1" →
// meta-data.agcount, "wsync" → mount.wsync. A suboption of a section maps to
// every geometry section that section's keys are printed in.
std::set<std::string> asked_settings(std::string_view mkfs_command, std::string_view mount_options);

}  // namespace fscost
