#include "compare/storage.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

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

}  // namespace

Result<CompareStorage> CompareStorage::ram_disk(std::uint64_t bytes) {
  auto image = ShmImage::create(bytes);
  if (!image) return image.error();
  CompareStorage s;
  s.bytes_ = bytes;
  s.image_.emplace(std::move(image).value());
  return s;
}

Result<CompareStorage> CompareStorage::device(const std::string& dev, bool force) {
  if (auto ok = check_device_unused(dev, force); !ok) return ok.error();
  auto bytes = device_bytes(dev);
  if (!bytes) return bytes.error();
  CompareStorage s;
  s.dev_ = dev;
  s.bytes_ = bytes.value();
  return s;
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
  if (image_ && !fs.dry_run.empty()) {
    target = image_->path();
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
                       : image_ ? fmt::format("give a larger --size ({})", fs.min_size)
                                : fmt::format("this device is too small: {}", fs.min_size);
    return Error{fmt::format("configuration {} ({}): {} rejects its options: {}", side, c.label,
                             fs.mkfs, m),
                 hint};
  }
  return std::monostate{};
}

Status CompareStorage::attach() {
  if (!image_ || loop_) return std::monostate{};
  if (auto ok = image_->allocate(); !ok) return ok.error();
  auto loop = LoopDevice::attach(image_->path());
  if (!loop) return loop.error();
  loop_.emplace(std::move(loop).value());
  dev_ = loop_->path();
  // A fresh loop over a fresh image is empty; checked anyway, as every
  // device is before its first mkfs.
  return check_device_unused(dev_, false);
}

std::string CompareStorage::description() const {
  if (image_) return fmt::format("{} RAM disk (loop device over /dev/shm)", human_bytes(bytes_));
  return fmt::format("{} ({})", dev_, human_bytes(bytes_));
}

}  // namespace fscost
