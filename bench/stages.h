// Timed stages run in a forked child, so each pipeline's peak RSS is its own
// and not the generator's or another pipeline's.
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace fscost::bench {

struct StageResult {
  std::string name;
  double seconds = 0;
  long peak_rss_kb = 0;  // the process's peak so far (cumulative over the pipeline)
  std::string note;      // sizes and counts the stage produced
};

// Inside the child: times each stage and notes the peak RSS after it.
class StageRecorder {
 public:
  template <typename F>
  decltype(auto) time(const std::string& name, F&& f) {
    auto t0 = std::chrono::steady_clock::now();
    struct Finish {
      StageRecorder* self;
      const std::string& name;
      std::chrono::steady_clock::time_point t0;
      ~Finish() { self->finish(name, t0); }
    } finish{this, name, t0};
    return f();
  }
  // A row that sums earlier stages (e.g. a whole command), peak RSS as now.
  void add(const std::string& name, double seconds, std::string note) {
    finish(name, std::chrono::steady_clock::now());
    results_.back().seconds = seconds;
    results_.back().note = std::move(note);
  }
  double seconds_of(const std::string& name) const {
    for (const auto& r : results_)
      if (r.name == name) return r.seconds;
    return 0;
  }
  // Attaches `note` to the last finished stage.
  void note(std::string note) { results_.back().note = std::move(note); }
  const std::vector<StageResult>& results() const { return results_; }

 private:
  void finish(const std::string& name, std::chrono::steady_clock::time_point t0) {
    std::chrono::duration<double> d = std::chrono::steady_clock::now() - t0;
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    results_.push_back({name, d.count(), ru.ru_maxrss, {}});
  }

  std::vector<StageResult> results_;
};

// The median of the rounds' figures (the bench tables' summary).
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Runs `pipeline` in a child process and returns the stages it recorded.
// Throws std::runtime_error with the child's message if it failed.
std::vector<StageResult> run_isolated(const std::function<void(StageRecorder&)>& pipeline);

}  // namespace fscost::bench
