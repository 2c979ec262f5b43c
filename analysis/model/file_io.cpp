#include "model/file_io.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <system_error>
#include <utility>

namespace fscost {

namespace {

std::string errno_text(int err) { return std::generic_category().message(err); }

constexpr const char* kWriteHint =
    "check that the directory exists, is writable and has free space";

Error write_error(std::string_view what, const std::string& path, int err) {
  return Error{fmt::format("cannot {} '{}': {}", what, path, errno_text(err)), kWriteHint};
}

// Owns a file descriptor.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // Closes now and reports the error (NFS reports write errors at close).
  int close() { return ::close(std::exchange(fd_, -1)); }

 private:
  int fd_;
};

// A temporary file beside the target, removed unless kept.
class TempFile {
 public:
  TempFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  TempFile(TempFile&& o) noexcept : path_(std::exchange(o.path_, {})), fd_(std::move(o.fd_)) {}
  ~TempFile() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }
  Fd& fd() { return fd_; }
  void keep() { path_.clear(); }

 private:
  std::string path_;
  Fd fd_;
};

// O_EXCL with a unique name rather than mkstemp so the kernel applies the
// umask to mode 0666, as for any file the user creates.
Result<TempFile> create_temp_beside(const std::string& target) {
  auto salt =
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  for (int attempt = 0;; ++attempt) {
    std::string tmp = fmt::format("{}.tmp.{}.{:x}", target, ::getpid(), salt + attempt);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return TempFile(std::move(tmp), fd);
    if (errno != EEXIST || attempt == 100) return write_error("create temporary file", tmp, errno);
  }
}

Status write_all_and_sync(TempFile& t, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(t.fd().get(), data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return write_error("write", t.path(), errno);
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  if (::fsync(t.fd().get()) != 0) return write_error("fsync", t.path(), errno);
  if (t.fd().close() != 0) return write_error("close", t.path(), errno);
  return std::monostate{};
}

// Makes the rename itself durable.
Status sync_parent_dir(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0 || ::fsync(fd.get()) != 0)
    return Error{fmt::format("wrote '{}', but cannot sync its directory '{}': {}", path,
                             dir.string(), errno_text(errno)),
                 kWriteHint};
  return std::monostate{};
}

}  // namespace

Result<std::string> read_whole_file(const std::string& path, std::string_view what) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0)
    return Error{fmt::format("cannot open {} '{}': {}", what, path, errno_text(errno)),
                 "check the path and its permissions"};
  std::string text;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)  // e.g. EISDIR: open() accepts a directory, read() refuses it
      return Error{fmt::format("cannot read {} '{}': {}", what, path, errno_text(errno)),
                   "check the path and its permissions"};
    if (n == 0) return text;
    text.append(buf, static_cast<std::size_t>(n));
  }
}

Status write_file_atomic(std::string_view data, const std::string& path) {
  auto tmp = create_temp_beside(path);
  if (!tmp) return tmp.error();
  if (auto s = write_all_and_sync(tmp.value(), data); !s) return s;
  if (::rename(tmp.value().path().c_str(), path.c_str()) != 0)
    return write_error("rename temporary file over", path, errno);
  tmp.value().keep();
  return sync_parent_dir(path);
}

}  // namespace fscost
