// Scaling over thread counts: at each count and for each configuration, the
// workload's rate and each lock's wait per operation, and the first thread
// count at which a lock's contention becomes significant.
//
// Significant (docs/COMPARE.md): the mean wait on that lock per operation
// (over all of the workload's operations, spin and sleep) reaches
// `threshold` (5%) of the mean operation latency at that thread count and
// configuration — the lock then costs every operation at least that share
// of its time. A share of latency rather than an absolute figure, so it
// reads the same for a 2 µs create and a 2 ms fsync.
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/profile.h"
#include "diff/stats.h"

namespace fscost {

inline constexpr double kLockSignificantShare = 0.05;

// One run reduced to what scaling needs.
struct RunFigures {
  int threads = 0;  // 0 = no thread dimension
  int config = 0;   // 0 = A, 1 = B
  std::optional<double> ops_per_s;
  double latency_ns = 0;                       // mean entry-to-exit time per operation
  std::map<std::string, double> lock_wait_ns;  // lock_name() → wait per operation
};

// ops_per_s comes from the run (the workload's own figure when it has one).
RunFigures run_figures(const Profile& p, int threads, int config, std::optional<double> ops_per_s);

struct ScalingSide {
  stats::Summary ops_per_s;
  stats::Summary latency_ns;
  std::map<std::string, stats::Summary> lock_wait_ns;  // every lock seen at this point
};

struct ScalingPoint {
  int threads = 0;
  ScalingSide side[2];
  // Whether B's ops/s differ from A's: Welch's t p-value, Benjamini–Hochberg
  // adjusted over the thread counts; NaN when a side has fewer than 2 runs.
  double ops_q = 0;
};

inline constexpr double kScalingAlpha = 0.05;  // '*' in the text when ops_q < this

struct LockOnset {
  std::string lock;
  int threads[2] = {0, 0};  // first significant thread count per config; 0 = never
};

struct Scaling {
  double threshold = kLockSignificantShare;
  std::vector<ScalingPoint> points;  // thread counts ascending
  std::vector<std::string> locks;    // the top locks by their largest share of latency
  std::vector<LockOnset> onsets;     // one per entry of `locks`, same order
};

// Runs grouped by thread count and config; the `top` locks kept are those
// with the largest wait share anywhere in the sweep.
Scaling compute_scaling(const std::vector<RunFigures>& runs, std::size_t top = 6,
                        double threshold = kLockSignificantShare);

// The first thread count at which `lock` is significant for `config`; 0
// when it never is.
int onset_threads(const Scaling& s, const std::string& lock, int config);

// ≤ `width` columns: ops/s per thread count for A and B with the change and
// its q, then each significant lock's onset.
std::string render_scaling_text(const Scaling& s, const std::string& label_a,
                                const std::string& label_b, std::size_t width = 72);

nlohmann::json scaling_json(const Scaling& s);

// HTML fragment: an ops/s chart and one wait-per-op chart per top lock
// (inline SVG, onsets marked), and the numbers behind them.
std::string render_scaling_html(const Scaling& s, const std::string& label_a,
                                const std::string& label_b);

}  // namespace fscost
