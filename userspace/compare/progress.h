// Progress of a compare: on a terminal one line redrawn in place with the
// elapsed time and an ETA; elsewhere (logs, CI) plain lines, one when a run
// starts and one when it ends.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "compare/plan.h"

namespace fscost {

// "7s", "1m05s", "2h03m".
std::string format_duration(double seconds);

// Seconds left: the remaining runs (from `next`, which has run for
// `current_s` already), each estimated from the finished runs at its thread
// count; for a thread count not reached yet, from the nearest lower one
// scaled by the work (threads × files per thread) over the CPUs it can use.
// `seconds[i]` is run i's duration once finished. nullopt before any run
// has finished.
std::optional<double> estimate_remaining(const std::vector<PlannedRun>& plan,
                                         const std::vector<std::optional<double>>& seconds,
                                         std::size_t next, double current_s, unsigned cpus);

// "t=4 B (rmapbt=1) run 2/3": which run, for humans.
std::string describe_run(const PlannedRun& r, const std::string& label, int runs);

// "[3/12] t=4 B (rmapbt=1) run 2/3 · 0m41s · ETA 1m20s", cut to `width`.
std::string progress_line(std::size_t number, std::size_t total, const std::string& what,
                          double elapsed_s, std::optional<double> eta_s, std::size_t width);

class Progress {
 public:
  // labels: each configuration's, by PlannedRun::config.
  Progress(std::FILE* out, bool tty, std::vector<PlannedRun> plan,
           std::vector<std::string> labels, int runs, unsigned cpus);
  ~Progress() { clear(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void start(std::size_t index);
  // A run added to the plan after the start (compare --until-resolved).
  void extend(const PlannedRun& run);
  void tick();  // while a run is going; redraws at most twice a second
  void finish(std::size_t index, double seconds, std::optional<double> ops_per_s);
  void note(const std::string& line);  // a message, kept above the progress line
  void clear();

 private:
  using Clock = std::chrono::steady_clock;
  void draw();
  std::optional<double> eta() const;
  std::string what(std::size_t index) const;

  std::FILE* out_;
  bool tty_;
  std::vector<PlannedRun> plan_;
  std::vector<std::string> labels_;
  int runs_;
  unsigned cpus_;
  std::vector<std::optional<double>> seconds_;
  std::size_t current_ = 0;
  Clock::time_point t0_ = Clock::now(), run_t0_ = Clock::now(), drawn_{};
  bool line_shown_ = false;
};

// Whether `f` is a terminal.
bool is_terminal(std::FILE* f);

}  // namespace fscost
