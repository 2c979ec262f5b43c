#include "system/device_check.h"

#include <blkid/blkid.h>
#include <fmt/format.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <memory>
#include <type_traits>

#include "system/subprocess.h"
#include "system/sys_util.h"

namespace fscost {

// ---- check_device_unused ----

namespace {

// "an xfs filesystem": blkid type names are mostly spoken letter by letter.
const char* article(const std::string& type) {
  static const char* spelled[] = {"xfs", "ntfs", "hfs", "hfsplus", "f2fs", "nilfs2", "LVM2_member"};
  bool vowel = !type.empty() && std::strchr("aeiouAEIOU", type[0]);
  bool an = vowel || std::find(std::begin(spelled), std::end(spelled), type) != std::end(spelled);
  return an ? "an" : "a";
}

std::string probe_value(blkid_probe pr, const char* name) {
  const char* data = nullptr;
  return blkid_probe_lookup_value(pr, name, &data, nullptr) == 0 && data ? data : "";
}

// Describes the first signature libblkid finds, or "" when there is none.
Result<std::string> find_signature(const std::string& dev) {
  std::unique_ptr<std::remove_pointer_t<blkid_probe>, void (*)(blkid_probe)> pr(
      blkid_new_probe_from_filename(dev.c_str()), blkid_free_probe);
  if (!pr)
    return Error{"cannot probe " + dev + " for signatures: " + errno_text(), errno_hint(errno)};
  blkid_probe_enable_superblocks(pr.get(), 1);
  blkid_probe_set_superblocks_flags(
      pr.get(), BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE | BLKID_SUBLKS_UUID | BLKID_SUBLKS_LABEL);
  blkid_probe_enable_partitions(pr.get(), 1);
  int rc = blkid_do_safeprobe(pr.get());
  if (rc == 1) return std::string();
  if (rc == -2) return std::string("holds several conflicting signatures");
  if (rc < 0) return Error{"cannot probe " + dev + " for signatures: " + errno_text(), {}};

  std::string pttype = probe_value(pr.get(), "PTTYPE");
  if (!pttype.empty())
    return "holds " + std::string(article(pttype)) + " " + pttype + " partition table";
  std::string type = probe_value(pr.get(), "TYPE");
  std::string usage = probe_value(pr.get(), "USAGE");
  std::string what = usage == "filesystem" ? "filesystem"
                     : usage == "raid"     ? "RAID member signature"
                     : usage == "crypto"   ? "encrypted volume"
                                           : "signature";
  std::string desc = "holds " + std::string(article(type)) + " " + type + " " + what;
  std::string uuid = probe_value(pr.get(), "UUID"), label = probe_value(pr.get(), "LABEL");
  if (!uuid.empty() || !label.empty()) {
    desc += " (";
    if (!uuid.empty()) desc += "UUID " + uuid;
    if (!label.empty()) desc += (uuid.empty() ? "" : ", ") + std::string("LABEL \"") + label + "\"";
    desc += ")";
  }
  return desc;
}

// A device in use is refused even with --force: formatting it under a
// mount or a device-mapper holder would corrupt what uses it.
Error in_use(const std::string& dev, const std::string& what) {
  return Error{dev + " " + what,
               "unmount it or stop what holds it first; --force does not override this"};
}

// A signature only says what was there: --force overwrites it.
Error holds_data(const std::string& dev, const std::string& what) {
  return Error{dev + " " + what, "pass --force to overwrite it"};
}

}  // namespace

Status check_device_unused(const std::string& dev, bool force) {
  struct stat st;
  if (::stat(dev.c_str(), &st) != 0)
    return Error{"cannot use " + dev + ": " + errno_text(), errno_hint(errno)};
  if (!S_ISBLK(st.st_mode)) return Error{dev + " is not a block device", {}};

  std::string majmin = std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev));
  for (const MountEntry& m : read_mountinfo()) {
    if (m.majmin == majmin || m.source == dev) return in_use(dev, "is mounted on " + m.mountpoint);
  }
  std::vector<std::string> holders = list_dir("/sys/dev/block/" + majmin + "/holders");
  if (!holders.empty())
    return in_use(dev, "is in use by " + holders[0] + " (device-mapper or RAID)");
  // Anything else holding it exclusively (a mount in another namespace, a
  // running mkfs) makes an O_EXCL open of a block device fail with EBUSY.
  UniqueFd excl(::open(dev.c_str(), O_RDONLY | O_EXCL | O_CLOEXEC));
  if (!excl && errno == EBUSY)
    return in_use(dev, "is in use (opened exclusively by another program)");
  excl.reset();
  if (force) return std::monostate{};

  auto sig = find_signature(dev);
  if (!sig) return sig.error();
  if (!sig.value().empty()) return holds_data(dev, sig.value());
  return std::monostate{};
}

}  // namespace fscost
