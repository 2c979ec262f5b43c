#include "system/ramdisk.h"

#include <fcntl.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <thread>
#include <utility>

#include "system/run_state.h"
#include "system/sys_util.h"

namespace fscost {

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
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Error{std::string("cannot stat ") + name + ": " + errno_text(), {}};
  if (auto ok = run_state::add_image({name, st.st_dev, st.st_ino}); !ok) return ok.error();
  if (::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0)
    return Error{"cannot size " + img.path_ + " to " + human_bytes(bytes) + ": " + errno_text(),
                 {}};
  return img;
}

Status ShmImage::allocate() {
  UniqueFd fd(::open(path_.c_str(), O_RDWR | O_CLOEXEC));
  if (!fd) return Error{"cannot open " + path_ + ": " + errno_text(), {}};
  if (::fallocate(fd.get(), 0, 0, static_cast<off_t>(bytes_)) != 0)
    return Error{"cannot allocate the " + human_bytes(bytes_) + " RAM disk " + path_ + ": " +
                     errno_text(),
                 "free memory in /dev/shm, or choose a smaller --size"};
  return std::monostate{};
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
  if (path_.empty()) return;
  if (::unlink(path_.c_str()) != 0 && errno != ENOENT)
    std::fprintf(stderr, "warning: cannot remove %s: %s\n", path_.c_str(), strerror(errno));
  else
    run_state::forget_image(path_);
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
    if (ok) {
      LoopDevice loop(std::move(dev), path);  // detached on the error paths below
      struct stat d {}, b {};
      if (::fstat(loop.fd_.get(), &d) != 0 || ::fstat(backing.get(), &b) != 0)
        return Error{"cannot stat " + path + " or " + file + ": " + errno_text(), {}};
      if (auto st = run_state::add_loop({path, d.st_rdev, b.st_dev, b.st_ino}); !st)
        return st.error();
      return loop;
    }
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
  // Autoclear finishes the detach at the mount's last close; the mount is
  // recorded on its own, so the loop device is no longer ours to undo.
  run_state::forget_loop(path_);
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
    {"suid", 0},
    {"dev", 0},
    {"exec", 0},
};

// The scratch filesystem is fscost's: no set-id program or device node on
// it acts, unless the configuration asks ("mount: suid,dev").
constexpr unsigned long kDefaultMountFlags = MS_NOSUID | MS_NODEV;

// Splits "noatime,logbsize=256k" into MS_NOATIME and "logbsize=256k": mount(2)
// takes generic flags as bits, and XFS rejects them in its data string.
std::pair<unsigned long, std::string> split_mount_options(const std::string& options) {
  unsigned long flags = kDefaultMountFlags;
  std::string data, opt;
  std::istringstream in(options);
  while (std::getline(in, opt, ',')) {
    if (opt.empty()) continue;
    bool generic = false;
    for (const MountFlag& f : kMountFlags) {
      if (opt == f.name) flags |= f.flag, generic = true;
    }
    if (opt == "suid") flags &= ~MS_NOSUID;
    if (opt == "dev") flags &= ~MS_NODEV;
    if (!generic) data += (data.empty() ? "" : ",") + opt;
  }
  return {flags, data};
}

}  // namespace

Result<Mount> Mount::create(const std::string& dev, const std::string& fstype,
                            const std::string& options) {
  auto dir = run_state::make_mountpoint();
  if (!dir) return dir.error();
  std::string tmpl = std::move(dir).value();
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
  // The mount's id tells `fscost cleanup` it is still this mount.
  struct statx stx {};
  if (::statx(AT_FDCWD, tmpl.c_str(), AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) != 0 ||
      !(stx.stx_mask & STATX_MNT_ID))
    return Error{"cannot read the mount id of " + tmpl + ": " + errno_text(), {}};
  if (auto ok = run_state::set_mount(tmpl, stx.stx_mnt_id); !ok) return ok.error();
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
  else
    run_state::forget_mount(dir_);
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
                    std::move(mkfs).value().command);
}

}  // namespace fscost
