#include "system/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace fscost {

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) reset(o.release());
  return *this;
}

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

std::string ProcessOutput::status_text() const {
  if (signal != 0)
    return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit status " + std::to_string(exit_code);
}

namespace {

struct Pipe {
  UniqueFd read, write;
};

Result<Pipe> make_pipe() {
  int fds[2];
  // CLOEXEC so the child keeps only the ends dup2'ed onto its stdout/stderr.
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error{std::string("pipe2: ") + strerror(errno), {}};
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

// Owns posix_spawn_file_actions_t.
class FileActions {
 public:
  FileActions() { posix_spawn_file_actions_init(&fa_); }
  ~FileActions() { posix_spawn_file_actions_destroy(&fa_); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  posix_spawn_file_actions_t* get() { return &fa_; }

 private:
  posix_spawn_file_actions_t fa_;
};

// Reads both pipes until both hit EOF; polling avoids the deadlock of reading
// one while the child blocks writing a full other.
void drain(UniqueFd& out_fd, UniqueFd& err_fd, std::string& out, std::string& err) {
  char buf[4096];
  while (out_fd || err_fd) {
    pollfd pfds[2] = {{out_fd.get(), POLLIN, 0}, {err_fd.get(), POLLIN, 0}};
    if (::poll(pfds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    for (int i = 0; i < 2; i++) {
      if (pfds[i].fd < 0 || pfds[i].revents == 0) continue;
      ssize_t n = ::read(pfds[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      UniqueFd& fd = i == 0 ? out_fd : err_fd;
      if (n <= 0) {
        fd.reset();
        continue;
      }
      (i == 0 ? out : err).append(buf, static_cast<size_t>(n));
    }
  }
}

}  // namespace

Result<ProcessOutput> run_capture(const std::vector<std::string>& argv) {
  if (argv.empty()) return Error{"run_capture: empty command line", {}};
  auto out_pipe = make_pipe();
  if (!out_pipe) return out_pipe.error();
  auto err_pipe = make_pipe();
  if (!err_pipe) return err_pipe.error();

  FileActions fa;
  posix_spawn_file_actions_addopen(fa.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(fa.get(), out_pipe.value().write.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(fa.get(), err_pipe.value().write.get(), STDERR_FILENO);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  // posix_spawn rather than fork+exec: safe in a multithreaded process, and
  // glibc reports a failed exec (e.g. ENOENT) as its return value.
  pid_t pid;
  int rc = posix_spawnp(&pid, args[0], fa.get(), nullptr, args.data(), environ);
  if (rc != 0) {
    return Error{"cannot run " + argv[0] + ": " + strerror(rc),
                 rc == ENOENT
                     ? "is " + argv[0] + " installed and in PATH? (scripts/setup.sh installs it)"
                     : std::string()};
  }
  // Close our copies of the write ends, or we would never see EOF.
  out_pipe.value().write.reset();
  err_pipe.value().write.reset();

  ProcessOutput po;
  drain(out_pipe.value().read, err_pipe.value().read, po.out, po.err);

  int status;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return Error{"waitpid " + argv[0] + ": " + strerror(errno), {}};
  }
  if (WIFSIGNALED(status))
    po.signal = WTERMSIG(status);
  else
    po.exit_code = WEXITSTATUS(status);
  return po;
}

}  // namespace fscost
