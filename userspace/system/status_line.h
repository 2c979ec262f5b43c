// What a long command is doing, for the person waiting (perf's and git's
// habit): on a terminal one line redrawn in place, at most twice a second;
// elsewhere (logs, CI) a plain line at most every `plain_every`, so a log
// is not flooded. Nothing before `delay`, so a command that takes a second
// prints nothing; nothing at all when quiet. Thread-safe: a ticker thread
// may update it while the main thread prints notes.
#pragma once

#include <chrono>
#include <cstdio>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <functional>

namespace fscost {

class StatusLine {
 public:
  using Clock = std::chrono::steady_clock;
  // `tty`: whether `out` is a terminal (isatty of its fd by default).
  StatusLine(std::FILE* out, bool quiet, std::chrono::milliseconds delay = std::chrono::seconds(2),
             std::chrono::milliseconds plain_every = std::chrono::seconds(10));
  StatusLine(std::FILE* out, bool quiet, bool tty, std::chrono::milliseconds delay,
             std::chrono::milliseconds plain_every);
  ~StatusLine() { clear(); }
  StatusLine(const StatusLine&) = delete;
  StatusLine& operator=(const StatusLine&) = delete;

  // The current state ("loading B: 3/5 profiles"); drawn when due.
  void update(const std::string& text);
  // A stage that starts now: drawn when due like update(), and on a
  // non-terminal as a plain line at once if the command has already run
  // past `delay` (a stage change is worth a line in a log).
  void stage(const std::string& text);
  // Erases the line on a terminal (before other output, and at the end).
  void clear();
  // Seconds since construction.
  double elapsed() const;

 private:
  void draw_locked(const std::string& text, bool force_plain);

  std::FILE* out_;
  bool quiet_, tty_;
  std::chrono::milliseconds delay_, plain_every_;
  Clock::time_point start_, last_draw_{};
  bool shown_ = false;  // a terminal line is on screen
  std::mutex mu_;
};

// Calls `text()` and updates `line` with it every `period` on a thread of
// its own until destroyed (a command's wait for its workload).
class StatusTicker {
 public:
  StatusTicker(StatusLine& line, std::function<std::string()> text,
               std::chrono::milliseconds period = std::chrono::milliseconds(500));

 private:
  std::jthread thread_;
};

}  // namespace fscost
