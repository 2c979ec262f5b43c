#include "compare/storage.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "system/memory.h"
#include "system/sys_util.h"

namespace fscost {

namespace {

Result<std::uint64_t> device_bytes(const std::string& dev) {
  UniqueFd fd(::open(dev.c_str(), O_RDONLY | O_CLOEXEC));
  std::uint64_t bytes = 0;
  if (!fd || ::ioctl(fd.get(), BLKGETSIZE64, &bytes) != 0)
    return Error{"cannot read the size of " + dev + ": " + errno_text(), errno_hint(errno)};
  return bytes;
}

// A sparse file in /tmp for a mkfs check (mkfs.xfs -N writes nothing;
// mkfs.btrfs formats it); removed on destruction.
class ScratchFile {
 public:
  static Result<ScratchFile> create(std::uint64_t bytes) {
    std::string path = "/tmp/fscost-check-XXXXXX";
    UniqueFd fd(::mkostemp(path.data(), O_CLOEXEC));
    if (!fd) return Error{"cannot create a scratch file in /tmp: " + errno_text(), {}};
    ScratchFile f(path);
    if (::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0)
      return Error{"cannot size " + path + ": " + errno_text(), {}};
    return f;
  }
  ScratchFile(ScratchFile&& o) noexcept : path_(std::exchange(o.path_, {})) {}
  ScratchFile& operator=(ScratchFile&&) = delete;
  ~ScratchFile() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  explicit ScratchFile(std::string p) : path_(std::move(p)) {}
  std::string path_;
};

// The device's own node: `dev` with its symlinks resolved, which must be a
// block device in /dev (where only root makes nodes).
Result<std::pair<std::string, dev_t>> canonical_device(const std::string& dev) {
  struct stat st {};
  if (::stat(dev.c_str(), &st) != 0)
    return Error{"--device " + dev + ": " + errno_text(), "give a block device, e.g. /dev/sdb"};
  if (!S_ISBLK(st.st_mode))
    return Error{"--device " + dev + " is not a block device", "give a block device, e.g. /dev/sdb"};
  std::error_code ec;
  std::string real = std::filesystem::canonical(dev, ec).string();
  struct stat rst {};
  if (ec || real.rfind("/dev/", 0) != 0 || ::lstat(real.c_str(), &rst) != 0 ||
      !S_ISBLK(rst.st_mode) || rst.st_rdev != st.st_rdev)
    return Error{fmt::format("--device {} does not resolve to a device node in /dev ({})", dev,
                             real.empty() ? ec.message() : real),
                 "give the device's own path, e.g. /dev/sdb"};
  return std::pair{real, st.st_rdev};
}

}  // namespace

Result<CompareStorage> CompareStorage::ram_disk(std::uint64_t bytes) {
  auto image = ShmImage::create(bytes);
  if (!image) return image.error();
  CompareStorage s;
  s.bytes_ = bytes;
  s.slots_.emplace_back().image.emplace(std::move(image).value());
  // The images are sparse until attach() allocates them, so both are
  // counted here against what /dev/shm and the machine have free.
  struct statvfs vfs {};
  const std::uint64_t shm = ::statvfs("/dev/shm", &vfs) == 0
                                ? static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize
                                : 0;
  const std::uint64_t mem = mem_available_bytes();
  if (shm >= 2 * bytes && mem >= 3 * bytes) {
    auto second = ShmImage::create(bytes);
    if (!second) return second.error();
    s.slots_.emplace_back().image.emplace(std::move(second).value());
  } else {
    s.one_image_reason_ = fmt::format(
        "one RAM disk image, each run's filesystem made after the last one's recording is "
        "written: two {} images need {} free in /dev/shm ({} there) and {} of available memory "
        "({})",
        human_bytes(bytes), human_bytes(2 * bytes), human_bytes(shm), human_bytes(3 * bytes),
        human_bytes(mem));
  }
  return s;
}

Result<CompareStorage> CompareStorage::device(const std::string& dev, bool force) {
  auto canon = canonical_device(dev);
  if (!canon) return canon.error();
  const std::string& node = canon.value().first;
  if (auto ok = check_device_unused(node, force); !ok) return ok.error();
  auto bytes = device_bytes(node);
  if (!bytes) return bytes.error();
  CompareStorage s;
  Slot& slot = s.slots_.emplace_back();
  slot.dev = node;
  slot.rdev = canon.value().second;
  s.bytes_ = bytes.value();
  return s;
}

Status CompareStorage::check_before_mkfs(std::size_t slot) const {
  const Slot& s = slots_.at(slot);
  struct stat st {};
  if (::lstat(s.dev.c_str(), &st) != 0 || !S_ISBLK(st.st_mode) ||
      (s.rdev != 0 && st.st_rdev != s.rdev))
    return Error{fmt::format("{} is no longer the device checked at the start", s.dev),
                 "something replaced the device node; stopping before formatting it"};
  // The in-use checks only: from the second run on it holds our filesystem.
  return check_device_unused(s.dev, true);
}

Status CompareStorage::check_mkfs(const ConfigSpec& c, const std::string& side,
                                  const std::string& mkfs) const {
  const Filesystem& fs = *find_filesystem(c.fs);
  // The dry run writes nothing, so the RAM disk's image (not bound to a
  // loop device yet) serves. Without one (mkfs.btrfs) the check formats a
  // sparse file in /tmp: a signature on the image would make the loop
  // device look used.
  std::vector<std::string> opts;
  if (!fs.dry_run.empty()) opts.emplace_back(fs.dry_run);
  opts.insert(opts.end(), c.mkfs_opts.begin(), c.mkfs_opts.end());
  std::optional<ScratchFile> scratch;
  std::string target;
  const std::optional<ShmImage>& image = slots_.front().image;
  if (image && !fs.dry_run.empty()) {
    target = image->path();
  } else {
    auto f = ScratchFile::create(bytes_);
    if (!f) return f.error();
    scratch.emplace(std::move(f).value());
    target = scratch->path();
  }
  auto dry = run_mkfs(fs, target, opts, mkfs);
  if (!dry) {
    // Too small a RAM disk fails the same way as a bad option; say which.
    const std::string& m = dry.error().message;
    bool size = m.find("must be larger than") != std::string::npos ||
                m.find("too small") != std::string::npos;
    std::string hint = !size    ? dry.error().hint
                       : image ? fmt::format("give a larger --size ({})", fs.min_size)
                                : fmt::format("this device is too small: {}", fs.min_size);
    return Error{fmt::format("configuration {} ({}): {} rejects its options: {}", side, c.label,
                             fs.mkfs, m),
                 hint};
  }
  return std::monostate{};
}

Status CompareStorage::attach() {
  for (Slot& slot : slots_) {
    if (!slot.image || slot.loop) continue;
    if (auto ok = slot.image->allocate(); !ok) return ok.error();
    auto loop = LoopDevice::attach(slot.image->path());
    if (!loop) return loop.error();
    slot.loop.emplace(std::move(loop).value());
    slot.dev = slot.loop->path();
    struct stat st {};
    if (::stat(slot.dev.c_str(), &st) == 0) slot.rdev = st.st_rdev;
    // A fresh loop over a fresh image is empty; checked anyway, as every
    // device is before its first mkfs.
    if (auto ok = check_device_unused(slot.dev, false); !ok) return ok.error();
  }
  return std::monostate{};
}

std::string CompareStorage::description() const {
  if (slots_.size() == 2)
    return fmt::format("{} RAM disk, two images (loop devices over /dev/shm)", human_bytes(bytes_));
  if (slots_.front().image)
    return fmt::format("{} RAM disk (loop device over /dev/shm)", human_bytes(bytes_));
  return fmt::format("{} ({})", slots_.front().dev, human_bytes(bytes_));
}

}  // namespace fscost
