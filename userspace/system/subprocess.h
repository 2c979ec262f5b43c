// Run a helper program (mkfs.xfs, ...) without a shell and capture its output.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/result.h"

namespace fscost {

// Owns one file descriptor; closes it on destruction. Move-only.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  void reset(int fd = -1);
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_ = -1;
};

struct ProcessOutput {
  int exit_code = 0;  // valid when signal == 0
  int signal = 0;     // non-zero when the child was killed by a signal
  std::string out;    // everything it wrote to stdout
  std::string err;    // everything it wrote to stderr

  bool ok() const { return signal == 0 && exit_code == 0; }
  // "exit status 1" / "killed by signal 9 (Killed)", for error messages.
  std::string status_text() const;
};

// Runs argv[0] (looked up in PATH) with argv, stdin from /dev/null, and waits
// for it. An Error means it could not be started at all (e.g. not installed);
// a non-zero exit is reported in ProcessOutput, not as an Error.
Result<ProcessOutput> run_capture(const std::vector<std::string>& argv);

}  // namespace fscost
