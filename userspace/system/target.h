// What is recorded: a command's process tree, an existing process, or the
// whole system; and that target's resource usage over the recording.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/profile.h"
#include "model/result.h"

namespace fscost {

// Where a command's standard streams go, and whether it leads a process
// group of its own (fscost compare signals the workload's whole tree; a
// terminal's ^C then reaches only compare, which forwards it).
struct CommandIo {
  int stdout_fd = -1, stderr_fd = -1;  // -1: inherited
  bool null_stdin = false;
  bool own_group = false;
};

class Target {
 public:
  // Forks the command stopped before exec, so probes are attached before it
  // runs its first instruction (perf's workload prepare/start).
  static Result<Target> command(const std::vector<std::string>& argv, const CommandIo& io = {});
  static Result<Target> process(pid_t pid);
  static Target system();

  Target(Target&& o) noexcept;
  Target& operator=(Target&&) = delete;
  ~Target();

  // A command is offered a control channel as `perf record --control` offers
  // one: FSCOST_CONTROL_FD=CTL,ACK in its environment; it writes "disable\n"
  // or "enable\n" to CTL and reads "ack\n" from ACK once the recording has
  // paused or resumed. The built-in workload pauses over its untimed setup
  // (docs/WORKLOAD.md). `on` is called from wait() with each request.
  void on_control(std::function<void(bool enable)> on) { control_ = std::move(on); }
  // Time the command kept the recording paused.
  std::uint64_t paused_ns() const { return paused_ns_; }

  // tgid to put in the tracked map; 0 for the whole system.
  pid_t tgid() const { return pid_; }
  const std::string& kind() const { return kind_; }
  const std::string& description() const { return description_; }

  // Releases the command (reporting a failed exec) or takes the starting
  // CPU counters of a process or the system.
  Result<std::monostate> start();

  // Until the command exits; for -p/-a until --duration, SIGINT/SIGTERM, or
  // the process exits. Returns the target's rusage over the recording.
  // `tick`, if given, is called about every 100 ms meanwhile (a command is
  // then waited for on a pidfd, which wakes the moment it exits).
  Rusage wait(std::optional<std::chrono::milliseconds> duration,
              const std::function<void()>& tick = {});

  // Command exit status as a shell reports it (128+signal when killed).
  int exit_code() const { return exit_code_; }

 private:
  Target() = default;
  void serve_control();  // one read of ctl_fd_: requests answered, EOF closes it
  // A pause, if one is running, ends at `now` and adds to paused_ns_.
  void end_pause(std::chrono::steady_clock::time_point now);

  std::string kind_;
  std::string description_;
  pid_t pid_ = 0;
  int gate_fd_ = -1;   // write end; closing it lets the child exec
  int exec_fd_ = -1;   // read end; the child writes errno here if exec fails
  int ctl_fd_ = -1;    // read end of the command's requests
  int ack_fd_ = -1;    // write end of the acknowledgements
  std::function<void(bool)> control_;
  std::string ctl_partial_;  // a request not yet ended by its newline
  std::optional<std::chrono::steady_clock::time_point> paused_since_;
  std::uint64_t paused_ns_ = 0;
  int exit_code_ = 0;
  Rusage start_cpu_;   // -p / -a counters at start()
  std::chrono::steady_clock::time_point t0_;
};

// Installs SIGINT/SIGTERM handlers that end the recording; a signal sent to
// fscost alone (not by the terminal) is forwarded to the command.
void install_stop_handlers();
bool stop_requested();

}  // namespace fscost
