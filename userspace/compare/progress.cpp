#include "compare/progress.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace fscost {

std::string format_duration(double s) {
  long t = std::lround(std::max(s, 0.0));
  if (t < 60) return fmt::format("{}s", t);
  if (t < 3600) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}h{:02}m", t / 3600, (t % 3600) / 60);
}

namespace {

// Mean seconds of the finished runs per thread count (0 → 1).
std::map<int, double> mean_by_threads(const std::vector<PlannedRun>& plan,
                                      const std::vector<std::optional<double>>& seconds) {
  std::map<int, std::pair<double, int>> sum;
  for (std::size_t i = 0; i < plan.size() && i < seconds.size(); i++) {
    if (!seconds[i]) continue;
    auto& [s, n] = sum[std::max(plan[i].threads, 1)];
    s += *seconds[i], n++;
  }
  std::map<int, double> mean;
  for (const auto& [t, sn] : sum) mean[t] = sn.first / sn.second;
  return mean;
}

// Work grows with the threads (files are per thread); the time it takes
// shrinks with the CPUs they can use.
double scale(int from, int to, unsigned cpus) {
  double c = std::max(cpus, 1u);
  return (double(to) / from) * (std::min<double>(from, c) / std::min<double>(to, c));
}

std::optional<double> estimate_one(const std::map<int, double>& mean, int threads, unsigned cpus) {
  if (mean.empty()) return std::nullopt;
  auto it = mean.upper_bound(threads);  // first above
  if (it != mean.begin()) {
    --it;  // at or below
    return it->second * scale(it->first, threads, cpus);
  }
  return it->second * scale(it->first, threads, cpus);
}

}  // namespace

std::optional<double> estimate_remaining(const std::vector<PlannedRun>& plan,
                                         const std::vector<std::optional<double>>& seconds,
                                         std::size_t next, double current_s, unsigned cpus) {
  auto mean = mean_by_threads(plan, seconds);
  if (mean.empty()) return std::nullopt;
  double left = 0;
  for (std::size_t i = next; i < plan.size(); i++) {
    double e = estimate_one(mean, std::max(plan[i].threads, 1), cpus).value_or(0);
    left += i == next ? std::max(e - current_s, 0.0) : e;
  }
  return left;
}

std::string describe_run(const PlannedRun& r, const std::string& label, int runs) {
  std::string t = r.threads > 0 ? fmt::format("t={} ", r.threads) : "";
  if (r.rep == 0) return fmt::format("{}{} ({}) warm-up run", t, config_letter(r.config), label);
  return fmt::format("{}{} ({}) run {}/{}", t, config_letter(r.config), label, r.rep, runs);
}

std::string progress_line(std::size_t number, std::size_t total, const std::string& what,
                          double elapsed_s, std::optional<double> eta_s, std::size_t width) {
  std::string eta = eta_s ? format_duration(*eta_s) : "?";
  std::string line =
      fmt::format("[{}/{}] {} · {} · ETA {}", number, total, what, format_duration(elapsed_s), eta);
  // Cut by code points: "·" is two bytes.
  std::size_t cols = 0, i = 0;
  for (; i < line.size(); i++) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) continue;
    if (cols == width) break;
    cols++;
  }
  return line.substr(0, i);
}

bool is_terminal(std::FILE* f) { return ::isatty(::fileno(f)) == 1; }

Progress::Progress(std::FILE* out, bool tty, std::vector<PlannedRun> plan,
                   std::vector<std::string> labels, int runs, unsigned cpus)
    : out_(out),
      tty_(tty),
      plan_(std::move(plan)),
      labels_(std::move(labels)),
      runs_(runs),
      cpus_(cpus),
      seconds_(plan_.size()) {}

std::string Progress::what(std::size_t index) const {
  const PlannedRun& r = plan_[index];
  return describe_run(r, labels_[r.config], runs_);
}

std::optional<double> Progress::eta() const {
  double in_run = std::chrono::duration<double>(Clock::now() - run_t0_).count();
  return estimate_remaining(plan_, seconds_, current_, in_run, cpus_);
}

void Progress::start(std::size_t index) {
  current_ = index;
  run_t0_ = Clock::now();
  if (tty_) return draw();
  auto e = eta();
  fmt::print(out_, "fscost compare: [{}/{}] {} started{}\n", index + 1, plan_.size(), what(index),
             e ? "; ETA " + format_duration(*e) : "");
  std::fflush(out_);
}

void Progress::extend(const PlannedRun& run) {
  plan_.push_back(run);
  seconds_.emplace_back();
}

void Progress::tick() {
  if (tty_ && Clock::now() - drawn_ >= std::chrono::milliseconds(500)) draw();
}

void Progress::finish(std::size_t index, double seconds, std::optional<double> ops_per_s) {
  seconds_[index] = seconds;
  std::string rate = ops_per_s ? fmt::format(", {:.0f} ops/s", *ops_per_s) : "";
  if (tty_) return draw();
  fmt::print(out_, "fscost compare: [{}/{}] {} done in {:.1f} s{}\n", index + 1, plan_.size(),
             what(index), seconds, rate);
  std::fflush(out_);
}

void Progress::note(const std::string& line) {
  clear();
  fmt::print(out_, "fscost compare: {}\n", line);
  std::fflush(out_);
  if (tty_ && current_ < plan_.size()) draw();
}

void Progress::clear() {
  if (!line_shown_) return;
  fmt::print(out_, "\r\033[K");
  std::fflush(out_);
  line_shown_ = false;
}

void Progress::draw() {
  winsize ws{};
  std::size_t width = ::ioctl(::fileno(out_), TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
  double elapsed = std::chrono::duration<double>(Clock::now() - t0_).count();
  std::string line =
      progress_line(current_ + 1, plan_.size(), what(current_), elapsed, eta(), width - 1);
  fmt::print(out_, "\r\033[K{}", line);
  std::fflush(out_);
  drawn_ = Clock::now();
  line_shown_ = true;
}

}  // namespace fscost
