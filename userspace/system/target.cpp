#include "system/target.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string_view>
#include <thread>

#include "system/subprocess.h"  // UniqueFd
#include "system/sys_util.h"    // timeval_ns

namespace fscost {
namespace {

std::atomic<int> g_stop{0};
std::atomic<pid_t> g_child{0};

void on_stop_signal(int sig, siginfo_t* info, void*) {
  g_stop.store(sig);
  pid_t child = g_child.load();
  // The terminal already signalled the whole foreground group.
  if (child > 0 && info && info->si_code != SI_KERNEL) kill(child, sig);
}

std::uint64_t ticks_to_ns(std::uint64_t ticks) {
  static const long hz = sysconf(_SC_CLK_TCK);
  return ticks * (1'000'000'000ull / static_cast<std::uint64_t>(hz));
}

// utime+cutime and stime+cstime of a process, from /proc/PID/stat.
std::optional<Rusage> proc_cpu(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  auto rparen = stat.rfind(')');  // comm may contain spaces and parens
  if (rparen == std::string::npos) return std::nullopt;
  std::istringstream ss(stat.substr(rparen + 2));
  std::vector<std::string> f{std::istream_iterator<std::string>(ss), {}};
  // Fields after comm start at field 3 (state); utime is field 14.
  if (f.size() < 15) return std::nullopt;
  Rusage r;
  r.valid = true;
  r.user_ns = ticks_to_ns(std::stoull(f[11]) + std::stoull(f[13]));
  r.sys_ns = ticks_to_ns(std::stoull(f[12]) + std::stoull(f[14]));
  return r;
}

// All CPUs: user+nice and system time from /proc/stat.
std::optional<Rusage> system_cpu() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  std::uint64_t user = 0, nice = 0, sys = 0;
  if (!(in >> cpu >> user >> nice >> sys) || cpu != "cpu") return std::nullopt;
  Rusage r;
  r.valid = true;
  r.user_ns = ticks_to_ns(user + nice);
  r.sys_ns = ticks_to_ns(sys);
  return r;
}

[[noreturn]] void child_exec(int gate, int exec_status, const std::vector<std::string>& argv,
                             char* const* envp, int control, pid_t parent, const CommandIo& io) {
  if (io.own_group) setpgid(0, 0);
  // The workload dies with fscost, even a SIGKILLed one: no recording
  // left running unseen on the filesystem.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // fscost died before the prctl
  if (io.null_stdin) {
    int null = open("/dev/null", O_RDONLY);
    if (null < 0 || dup2(null, STDIN_FILENO) < 0) _exit(127);
  }
  if ((io.stdout_fd >= 0 && dup2(io.stdout_fd, STDOUT_FILENO) < 0) ||
      (io.stderr_fd >= 0 && dup2(io.stderr_fd, STDERR_FILENO) < 0))
    _exit(127);
  if (fcntl(control, F_SETFD, 0) != 0) _exit(127);  // the command's end survives exec
  char c;
  // Wait for the parent to attach probes; EOF means go.
  while (read(gate, &c, 1) < 0 && errno == EINTR) {
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvpe(args[0], args.data(), envp);
  int err = errno;
  (void)!write(exec_status, &err, sizeof(err));
  _exit(127);
}

// Waits until `pid` sleeps in read(fd) at the gate (/proc/PID/syscall:
// "0 0x3 ..." on x86-64), for at most 5 s. The child's syscalls before it
// (closing the pipes' other ends, opening /dev/null, dup2) are fscost's,
// not the workload's: tracked from a busy host's late child, they were
// counted as 2 closes, an open and a read more than the same command
// recorded alone (a loaded CI run, 2026-12-04).
void wait_at_gate(pid_t pid, int fd) {
  const std::string want = fmt::format("{} {:#x} ", SYS_read, fd);
  for (int i = 0; i < 5000; ++i) {
    std::ifstream in(fmt::format("/proc/{}/syscall", pid));
    std::string line;
    if (!std::getline(in, line)) return;  // gone, or not ours to read
    if (line.starts_with(want)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

void install_stop_handlers() {
  struct sigaction sa{};
  sa.sa_sigaction = on_stop_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  // A closed terminal (SIGHUP), ^\ (SIGQUIT) and a closed pipe (SIGPIPE)
  // end the recording like ^C: the profile is written, nothing is left.
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) sigaction(sig, &sa, nullptr);
}

bool stop_requested() { return g_stop.load() != 0; }

Result<Target> Target::command(const std::vector<std::string>& argv, const CommandIo& io) {
  if (argv.empty()) return Error{"no command given", "usage: fscost record -o FILE -- COMMAND ARGS..."};
  int gate[2], status[2], control[2];
  if (pipe2(gate, O_CLOEXEC) || pipe2(status, O_CLOEXEC))
    return Error{fmt::format("pipe: {}", strerror(errno)), ""};
  // One socket both ways (requests in, "ack" out): a reply to a command that
  // has exited is EPIPE from send(MSG_NOSIGNAL), never a SIGPIPE, which would
  // stop the recording.
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, control))
    return Error{fmt::format("socketpair: {}", strerror(errno)), ""};
  // The environment is built before fork: the child of a threaded process
  // may only make async-signal-safe calls.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e)
    if (!std::string_view(*e).starts_with("FSCOST_CONTROL_FD=")) env_strings.emplace_back(*e);
  env_strings.push_back(fmt::format("FSCOST_CONTROL_FD={},{}", control[1], control[1]));
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return Error{fmt::format("fork: {}", strerror(errno)), ""};
  if (pid == 0) {
    close(gate[1]);
    close(status[0]);
    close(control[0]);
    child_exec(gate[0], status[1], argv, envp.data(), control[1], parent, io);
  }
  close(control[1]);
  fcntl(control[0], F_SETFL, O_NONBLOCK);
  if (io.own_group) setpgid(pid, pid);  // also here: no window in which a kill(-pid) misses
  wait_at_gate(pid, gate[0]);
  close(gate[0]);
  close(status[1]);
  Target t;
  t.kind_ = "command";
  t.description_ = fmt::format("{}", fmt::join(argv, " "));
  t.pid_ = pid;
  t.gate_fd_ = gate[1];
  t.exec_fd_ = status[0];
  t.ctl_fd_ = control[0];
  g_child.store(pid);
  return t;
}

Result<Target> Target::process(pid_t pid) {
  if (pid <= 0 || kill(pid, 0) != 0)
    return Error{fmt::format("no process with pid {}", pid), "check the pid with ps"};
  Target t;
  t.kind_ = "pid";
  t.description_ = fmt::format("pid {}", pid);
  t.pid_ = pid;
  return t;
}

Target Target::system() {
  Target t;
  t.kind_ = "system";
  t.description_ = "-a (all processes)";
  return t;
}

Target::Target(Target&& o) noexcept
    : kind_(std::move(o.kind_)),
      description_(std::move(o.description_)),
      pid_(o.pid_),
      gate_fd_(std::exchange(o.gate_fd_, -1)),
      exec_fd_(std::exchange(o.exec_fd_, -1)),
      ctl_fd_(std::exchange(o.ctl_fd_, -1)),
      control_(std::move(o.control_)),
      ctl_partial_(std::move(o.ctl_partial_)),
      paused_since_(o.paused_since_),
      paused_ns_(o.paused_ns_),
      exit_code_(o.exit_code_),
      start_cpu_(o.start_cpu_),
      t0_(o.t0_) {
  o.pid_ = 0;
}

Target::~Target() {
  // A command never released (an error before start) must not linger.
  if (gate_fd_ >= 0 && pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    g_child.store(0);
  }
  if (gate_fd_ >= 0) close(gate_fd_);
  if (exec_fd_ >= 0) close(exec_fd_);
  if (ctl_fd_ >= 0) close(ctl_fd_);
}

void Target::serve_control() {
  char buf[256];
  ssize_t n = read(ctl_fd_, buf, sizeof buf);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {  // every holder of the command's end has closed it
    close(std::exchange(ctl_fd_, -1));
    return;
  }
  for (char c : std::string_view(buf, static_cast<std::size_t>(n))) {
    if (c != '\n') {
      if (ctl_partial_.size() < 64) ctl_partial_ += c;  // a longer line is no request
      continue;
    }
    std::string request = std::exchange(ctl_partial_, {});
    bool enable = request == "enable", known = enable || request == "disable";
    auto now = std::chrono::steady_clock::now();
    if (known && control_) control_(enable);
    if (known && !enable && !paused_since_) paused_since_ = now;
    if (known && enable) end_pause(now);
    std::string_view reply = known ? "ack\n" : "error\n";
    (void)!send(ctl_fd_, reply.data(), reply.size(), MSG_NOSIGNAL);
  }
}

void Target::end_pause(std::chrono::steady_clock::time_point now) {
  if (!paused_since_) return;
  paused_ns_ += static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(now - *paused_since_).count());
  paused_since_.reset();
}

Result<std::monostate> Target::start() {
  t0_ = std::chrono::steady_clock::now();
  if (kind_ == "pid") start_cpu_ = proc_cpu(pid_).value_or(Rusage{});
  if (kind_ == "system") start_cpu_ = system_cpu().value_or(Rusage{});
  if (kind_ != "command") return std::monostate{};
  close(std::exchange(gate_fd_, -1));
  int err = 0;
  ssize_t n;
  while ((n = read(exec_fd_, &err, sizeof(err))) < 0 && errno == EINTR) {
  }
  close(std::exchange(exec_fd_, -1));
  if (n == sizeof(err)) {
    waitpid(pid_, nullptr, 0);
    g_child.store(0);
    exit_code_ = 127;
    return Error{fmt::format("cannot run '{}': {}", description_, strerror(err)),
                 "check the command name and PATH"};
  }
  return std::monostate{};
}

Rusage Target::wait(std::optional<std::chrono::milliseconds> duration,
                    const std::function<void()>& tick) {
  using namespace std::chrono;
  auto deadline = duration ? t0_ + *duration : steady_clock::time_point::max();
  Rusage r;
  if (kind_ == "command") {
    int status = 0;
    rusage ru{};
    UniqueFd exited(static_cast<int>(syscall(SYS_pidfd_open, pid_, 0)));
    for (;;) {
      pid_t w = wait4(pid_, &status, exited ? WNOHANG : 0, &ru);
      if (w == pid_ || (w < 0 && errno != EINTR)) break;
      if (w == 0) {
        if (tick) tick();
        pollfd p[2] = {{exited.get(), POLLIN, 0}, {ctl_fd_, POLLIN, 0}};
        // EINTR (a forwarded signal) just loops; a closed channel (-1) is
        // skipped by poll.
        if (poll(p, 2, tick ? 100 : -1) > 0 && p[1].revents) serve_control();
      }
    }
    end_pause(steady_clock::now());  // if paused to the end
    g_child.store(0);
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r = Rusage{true, timeval_ns(ru.ru_utime), timeval_ns(ru.ru_stime), 0};
  } else {
    Rusage last = start_cpu_;
    while (!stop_requested() && steady_clock::now() < deadline) {
      auto now_cpu = kind_ == "pid" ? proc_cpu(pid_) : system_cpu();
      if (!now_cpu) break;  // the process exited: keep the last reading
      last = *now_cpu;
      std::this_thread::sleep_for(milliseconds(50));
    }
    r = Rusage{start_cpu_.valid && last.valid, last.user_ns - start_cpu_.user_ns,
               last.sys_ns - start_cpu_.sys_ns, 0};
  }
  r.wall_ns = static_cast<std::uint64_t>(duration_cast<nanoseconds>(steady_clock::now() - t0_).count());
  return r;
}

}  // namespace fscost
