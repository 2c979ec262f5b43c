#include "ramdisk.h"

#include <blkid/blkid.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <thread>

namespace fscost {

namespace {

constexpr const char* kShmDir = "/dev/shm";
constexpr const char* kImagePrefix = "fscost-";
constexpr const char* kMountPrefix = "/tmp/fscost-mnt-";

std::string errno_text() { return strerror(errno); }

// The hint for an errno the user can fix by themselves.
std::string errno_hint(int err) { return err == EACCES || err == EPERM ? "run as root" : ""; }

std::string human_bytes(uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 6) v /= 1024, u++;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

bool pid_alive(pid_t pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

// Parses the <pid> of "<prefix><pid>-..." ; 0 when the name does not fit.
pid_t pid_after(const std::string& s, const std::string& prefix) {
  if (s.rfind(prefix, 0) != 0) return 0;
  size_t end = 0;
  try {
    long pid = std::stol(s.substr(prefix.size()), &end);
    return s[prefix.size() + end] == '-' ? static_cast<pid_t>(pid) : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

std::vector<std::string> list_dir(const std::string& path) {
  std::vector<std::string> names;
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(path.c_str()), ::closedir);
  if (!d) return names;
  while (dirent* e = ::readdir(d.get())) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
      names.emplace_back(e->d_name);
  }
  return names;
}

// mountinfo escapes blanks and backslashes in paths as \ooo.
std::string unescape_mountinfo(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 3), nullptr, 8));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

struct MountEntry {
  std::string majmin;  // "7:0"
  std::string mountpoint;
  std::string source;
};

std::vector<MountEntry> read_mountinfo() {
  std::vector<MountEntry> mounts;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string id, parent, majmin, root, mountpoint, field;
    f >> id >> parent >> majmin >> root >> mountpoint;
    while (f >> field && field != "-") continue;  // optional fields end at "-"
    std::string fstype, source;
    f >> fstype >> source;
    mounts.push_back({majmin, unescape_mountinfo(mountpoint), unescape_mountinfo(source)});
  }
  return mounts;
}

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

// ---- ShmImage ----

Result<ShmImage> ShmImage::create(uint64_t bytes) {
  if (bytes == 0) return Error{"RAM disk size must be positive", {}};
  struct statvfs vfs;
  if (::statvfs(kShmDir, &vfs) != 0) {
    return Error{std::string("cannot inspect ") + kShmDir + ": " + errno_text(),
                 "the RAM disk lives on /dev/shm; mount a tmpfs there"};
  }
  // The image is sparse, but a tmpfs that runs full under XFS shows up as I/O
  // errors and a shut-down filesystem; refuse up front instead.
  uint64_t avail = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  if (bytes > avail) {
    return Error{"a " + human_bytes(bytes) + " RAM disk does not fit in " + kShmDir + " (" +
                     human_bytes(avail) + " free)",
                 "choose a smaller size, or grow it: mount -o remount,size=<N>G /dev/shm"};
  }
  std::random_device rd;
  char name[64];
  std::snprintf(name, sizeof name, "%s/%s%d-%08x.img", kShmDir, kImagePrefix, ::getpid(), rd());
  UniqueFd fd(::open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (!fd) return Error{std::string("cannot create ") + name + ": " + errno_text(), {}};
  ShmImage img(name, bytes);  // from here on the destructor unlinks it
  if (::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0)
    return Error{"cannot size " + img.path_ + " to " + human_bytes(bytes) + ": " + errno_text(),
                 {}};
  return img;
}

ShmImage::ShmImage(ShmImage&& o) noexcept
    : path_(std::exchange(o.path_, {})), bytes_(std::exchange(o.bytes_, 0)) {}

ShmImage& ShmImage::operator=(ShmImage&& o) noexcept {
  if (this != &o) {
    remove();
    path_ = std::exchange(o.path_, {});
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

void ShmImage::remove() {
  if (!path_.empty() && ::unlink(path_.c_str()) != 0 && errno != ENOENT)
    std::fprintf(stderr, "warning: cannot remove %s: %s\n", path_.c_str(), strerror(errno));
  path_.clear();
}

// ---- LoopDevice ----

namespace {

// Pre-5.8 kernels lack LOOP_CONFIGURE: bind, then set flags, in two steps.
bool bind_legacy(int dev, int file, const loop_info64& info) {
  if (::ioctl(dev, LOOP_SET_FD, file) != 0) return false;
  if (::ioctl(dev, LOOP_SET_STATUS64, &info) == 0) return true;
  int saved = errno;
  ::ioctl(dev, LOOP_CLR_FD, 0);
  errno = saved;
  return false;
}

}  // namespace

Result<LoopDevice> LoopDevice::attach(const std::string& file) {
  UniqueFd ctl(::open("/dev/loop-control", O_RDWR | O_CLOEXEC));
  if (!ctl) {
    return Error{"cannot open /dev/loop-control: " + errno_text(),
                 errno == ENOENT ? "load the loop driver: modprobe loop" : errno_hint(errno)};
  }
  UniqueFd backing(::open(file.c_str(), O_RDWR | O_CLOEXEC));
  if (!backing) return Error{"cannot open " + file + ": " + errno_text(), errno_hint(errno)};

  loop_config cfg{};
  cfg.fd = static_cast<uint32_t>(backing.get());
  // AUTOCLEAR: the kernel detaches the device when its last opener closes it,
  // so a killed fscost does not leak loop devices.
  cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
  std::snprintf(reinterpret_cast<char*>(cfg.info.lo_file_name), LO_NAME_SIZE, "%s", file.c_str());

  // GET_FREE and binding are not atomic: another process may take the same
  // device in between (EBUSY), so ask again.
  for (int attempt = 0; attempt < 32; attempt++) {
    int n = ::ioctl(ctl.get(), LOOP_CTL_GET_FREE);
    if (n < 0) return Error{"no free loop device (LOOP_CTL_GET_FREE): " + errno_text(), {}};
    std::string path = "/dev/loop" + std::to_string(n);
    UniqueFd dev(::open(path.c_str(), O_RDWR | O_CLOEXEC));
    if (!dev) {
      if (errno == ENOENT) continue;  // devtmpfs node not there yet
      return Error{"cannot open " + path + ": " + errno_text(), errno_hint(errno)};
    }
    bool ok = ::ioctl(dev.get(), LOOP_CONFIGURE, &cfg) == 0;
    if (!ok && (errno == ENOTTY || errno == EINVAL))
      ok = bind_legacy(dev.get(), backing.get(), cfg.info);
    if (ok) return LoopDevice(std::move(dev), path);
    if (errno != EBUSY)
      return Error{"cannot bind " + file + " to " + path + ": " + errno_text(), {}};
  }
  return Error{"cannot bind " + file + " to a loop device: all candidates were busy",
               "other programs are grabbing loop devices; retry"};
}

LoopDevice& LoopDevice::operator=(LoopDevice&& o) noexcept {
  if (this != &o) {
    detach();
    fd_ = std::move(o.fd_);
    path_ = std::move(o.path_);
  }
  return *this;
}

void LoopDevice::detach() {
  if (!fd_) return;
  // ENXIO: already detached. While still open elsewhere the kernel defers the
  // detach to the last close (autoclear), which is what we want.
  if (::ioctl(fd_.get(), LOOP_CLR_FD, 0) != 0 && errno != ENXIO)
    std::fprintf(stderr, "warning: cannot detach %s: %s\n", path_.c_str(), strerror(errno));
  fd_.reset();
}

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

Error in_use(const std::string& dev, const std::string& what) {
  return Error{dev + " " + what, "pass --force to overwrite it"};
}

}  // namespace

Status check_device_unused(const std::string& dev, bool force) {
  struct stat st;
  if (::stat(dev.c_str(), &st) != 0)
    return Error{"cannot use " + dev + ": " + errno_text(), errno_hint(errno)};
  if (!S_ISBLK(st.st_mode)) return Error{dev + " is not a block device", {}};
  if (force) return std::monostate{};

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

  auto sig = find_signature(dev);
  if (!sig) return sig.error();
  if (!sig.value().empty()) return in_use(dev, sig.value());
  return std::monostate{};
}

// ---- run_mkfs_xfs ----

namespace {

// mkfs.xfs follows its one-line complaint with the whole usage text; keep the
// complaint (and e.g. "Filesystem must be larger than 300MB.").
std::string mkfs_complaint(const std::string& err) {
  std::istringstream in(err);
  std::string line, kept;
  bool in_usage = false;
  while (std::getline(in, line)) {
    if (line.rfind("Usage:", 0) == 0)
      in_usage = true;
    else if (in_usage && !line.empty() && line[0] != '/' && line[0] != '\t' && line[0] != ' ' &&
             line[0] != '<')
      in_usage = false;
    if (!in_usage && !line.empty()) kept += (kept.empty() ? "" : "\n") + line;
  }
  return kept.empty() ? err : kept;
}

}  // namespace

Result<std::string> run_mkfs_xfs(const std::string& dev,
                                 const std::vector<std::string>& extra_opts) {
  std::vector<std::string> argv = {"mkfs.xfs", "-f", "-q"};
  argv.insert(argv.end(), extra_opts.begin(), extra_opts.end());
  argv.push_back(dev);
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;

  auto run = run_capture(argv);
  if (!run) return run.error();
  const ProcessOutput& po = run.value();
  if (!po.ok()) {
    return Error{cmd + " failed (" + po.status_text() + "): " + mkfs_complaint(po.err),
                 "see mkfs.xfs(8) for what this xfsprogs (mkfs.xfs -V) accepts"};
  }
  return cmd;
}

// ---- Mount ----

namespace {

struct MountFlag {
  const char* name;
  unsigned long flag;
};
constexpr MountFlag kMountFlags[] = {
    {"defaults", 0},
    {"rw", 0},
    {"ro", MS_RDONLY},
    {"noatime", MS_NOATIME},
    {"nodiratime", MS_NODIRATIME},
    {"relatime", MS_RELATIME},
    {"strictatime", MS_STRICTATIME},
    {"lazytime", MS_LAZYTIME},
    {"sync", MS_SYNCHRONOUS},
    {"dirsync", MS_DIRSYNC},
    {"nosuid", MS_NOSUID},
    {"nodev", MS_NODEV},
    {"noexec", MS_NOEXEC},
};

// Splits "noatime,logbsize=256k" into MS_NOATIME and "logbsize=256k": mount(2)
// takes generic flags as bits, and XFS rejects them in its data string.
std::pair<unsigned long, std::string> split_mount_options(const std::string& options) {
  unsigned long flags = 0;
  std::string data, opt;
  std::istringstream in(options);
  while (std::getline(in, opt, ',')) {
    if (opt.empty()) continue;
    bool generic = false;
    for (const MountFlag& f : kMountFlags) {
      if (opt == f.name) flags |= f.flag, generic = true;
    }
    if (!generic) data += (data.empty() ? "" : ",") + opt;
  }
  return {flags, data};
}

}  // namespace

Result<Mount> Mount::create(const std::string& dev, const std::string& fstype,
                            const std::string& options) {
  std::string tmpl = kMountPrefix + std::to_string(::getpid()) + "-XXXXXX";
  if (!::mkdtemp(tmpl.data()))
    return Error{"cannot create a mountpoint in /tmp: " + errno_text(), {}};
  Mount m(tmpl);  // from here on the destructor removes the directory
  auto [flags, data] = split_mount_options(options);
  if (::mount(dev.c_str(), tmpl.c_str(), fstype.c_str(), flags, data.c_str()) != 0) {
    int err = errno;
    std::string hint = err == EINVAL
                           ? "the kernel log (dmesg | tail) says what " + fstype + " rejected"
                       : err == ENODEV ? "this kernel has no " + fstype + " support"
                                       : errno_hint(err);
    std::string opts = options.empty() ? "" : " -o " + options;
    return Error{"cannot mount " + dev + " (" + fstype + opts + "): " + strerror(err), hint};
  }
  return m;
}

Mount::Mount(Mount&& o) noexcept : dir_(std::exchange(o.dir_, {})) {}

Mount& Mount::operator=(Mount&& o) noexcept {
  if (this != &o) {
    unmount();
    dir_ = std::exchange(o.dir_, {});
  }
  return *this;
}

void Mount::unmount() {
  if (dir_.empty()) return;
  // Something may briefly hold the filesystem (a child's cwd, a file still
  // being closed); wait a little, then detach lazily rather than leak it.
  int rc = -1;
  for (int i = 0; i < 20; i++) {
    rc = ::umount2(dir_.c_str(), UMOUNT_NOFOLLOW);
    if (rc == 0 || errno != EBUSY) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (rc != 0 && errno == EBUSY) {
    std::fprintf(stderr, "warning: %s still busy; detaching it lazily\n", dir_.c_str());
    rc = ::umount2(dir_.c_str(), UMOUNT_NOFOLLOW | MNT_DETACH);
  }
  // EINVAL: not mounted (the mount failed); just remove the directory.
  if (rc != 0 && errno != EINVAL)
    std::fprintf(stderr, "warning: cannot unmount %s: %s\n", dir_.c_str(), strerror(errno));
  if (::rmdir(dir_.c_str()) != 0)
    std::fprintf(stderr, "warning: cannot remove %s: %s\n", dir_.c_str(), strerror(errno));
  dir_.clear();
}

// ---- ScratchXfs ----

Result<ScratchXfs> ScratchXfs::create(uint64_t bytes, std::vector<std::string> mkfs_opts,
                                      std::string mount_opts) {
  auto image = ShmImage::create(bytes);
  if (!image) return image.error();
  auto loop = LoopDevice::attach(image.value().path());
  if (!loop) return loop.error();
  // A fresh loop over a fresh image is empty; checking anyway keeps the rule
  // "mkfs -f only after check_device_unused" without exceptions.
  auto unused = check_device_unused(loop.value().path(), false);
  if (!unused) return unused.error();
  auto mkfs = run_mkfs_xfs(loop.value().path(), mkfs_opts);
  if (!mkfs) return mkfs.error();
  auto mount = Mount::create(loop.value().path(), "xfs", mount_opts);
  if (!mount) return mount.error();
  return ScratchXfs(std::move(image).value(), std::move(loop).value(), std::move(mount).value(),
                    std::move(mkfs).value());
}

// ---- find_leftovers ----

std::vector<std::string> find_leftovers() {
  std::vector<std::string> found;
  const std::string shm_prefix = std::string(kShmDir) + "/" + kImagePrefix;
  auto stale_image = [&](const std::string& path) {
    pid_t pid = pid_after(path, shm_prefix);
    return pid != 0 && !pid_alive(pid);
  };
  std::vector<std::string> stale_mounts;
  for (const MountEntry& m : read_mountinfo()) {
    pid_t pid = pid_after(m.mountpoint, kMountPrefix);
    if (pid == 0 || pid_alive(pid)) continue;
    stale_mounts.push_back(m.mountpoint);
    found.push_back("mount " + m.mountpoint + " of " + m.source + " (umount " + m.mountpoint + ")");
  }
  for (const std::string& name : list_dir("/sys/block")) {
    if (name.rfind("loop", 0) != 0) continue;
    // Shows "<path> (deleted)" once the image was unlinked.
    std::string backing = read_first_line("/sys/block/" + name + "/loop/backing_file");
    if (stale_image(backing))
      found.push_back("loop device /dev/" + name + " over " + backing + " (losetup -d /dev/" +
                      name + ")");
  }
  for (const std::string& name : list_dir(kShmDir)) {
    std::string path = std::string(kShmDir) + "/" + name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".img") == 0 && stale_image(path))
      found.push_back("image " + path + " (rm " + path + ")");
  }
  for (const std::string& name : list_dir("/tmp")) {
    std::string path = "/tmp/" + name;
    pid_t pid = pid_after(path, kMountPrefix);
    bool mounted = std::find(stale_mounts.begin(), stale_mounts.end(), path) != stale_mounts.end();
    if (pid != 0 && !pid_alive(pid) && !mounted)
      found.push_back("directory " + path + " (rmdir " + path + ")");
  }
  return found;
}

}  // namespace fscost
