// fscost calibrate: this host's between-compare noise for one workload,
// and the floor it puts under a compare's intervals (docs/COMPARE.md,
// "Calibration").
//
// Runs inside one compare are correlated in time by the host's load, so
// repeated compares of the same case disagree more than their own
// Welch intervals admit. An A-vs-A compare of R×K runs a side, cut into K
// consecutive blocks of R runs a side, is K compares whose true delta is
// 0: each block's relative delta d_k of an op's time is pure
// between-compare noise, and rel_sd = √(mean d_k²) its size, on K degrees
// of freedom. A compare at n runs a side then takes as the standard error
// of an op's time delta at least rel_sd · |mean A| · √(R / n).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "diff/diff.h"
#include "model/result.h"

namespace fscost {

inline constexpr int kCalibrationSchema = 1;

// The op-level time figures a calibration measures and floors, by their
// names in calibration.json: kOpMetrics' calibrated ones (oncpu, offcpu,
// latency).
inline constexpr auto kCalibratedFigures = [] {
  constexpr auto n = std::ranges::count_if(kOpMetrics, [](const auto& m) { return m.calibrated; });
  std::array<std::string_view, n> out{};
  std::size_t i = 0;
  for (const auto& m : kOpMetrics)
    if (m.calibrated) out[i++] = m.key;
  return out;
}();
const Comparison* calibrated_figure(const OpDiff& op, std::string_view name);
Comparison* calibrated_figure(OpDiff& op, std::string_view name);
// "on-CPU", "off-CPU", "latency".
std::string_view figure_text(std::string_view name);

// One figure of one op over the K blocks.
struct CalibratedFigure {
  double rel_sd = 0;            // √(mean d_k²), relative to A's mean
  std::vector<double> deltas;   // d_k = (mean B − mean A) / mean A, one per block
  std::size_t significant = 0;  // blocks whose diff called it significant
};

// The machine as a profile records it (Profile::meta).
struct CalibrationHost {
  std::string hostname, kernel;
  std::uint32_t cpus = 0;
};

struct Calibration {
  std::string date;  // "2026-12-04T10:11:12Z", when it was written (UTC)
  CalibrationHost host;
  std::string workload;      // workload_identity of its runs
  std::string config;        // the configuration both sides ran (informative)
  std::size_t runs = 0;      // R: runs a side of each block
  std::size_t compares = 0;  // K: blocks
  std::map<std::string, std::map<std::string, CalibratedFigure>> ops;  // op → figure → noise

  const CalibratedFigure* find(const std::string& op, std::string_view figure) const;
};

CalibrationHost host_of(const Profile& p);
// The workload as the profile recorded its command, the program's
// directory left out (the same workload from another build tree is the
// same workload): "fscost-workload {dir} --workload create --files 5000 …".
std::string workload_identity(const Profile& p);

// Runs of an A-vs-A compare, in run order, cut into `compares` blocks of
// `runs` a side, each diffed with `cfg`: ops tested in every block, each
// figure whose relative delta is defined in every block. Runs past the
// last whole block are left out. An error when fewer than 2 blocks fit.
Result<Calibration> calibrate_runs(const RunSet& a, const RunSet& b, std::size_t runs,
                                   std::size_t compares, const DiffConfig& cfg = {});

// What does not match between the calibration and a compare's first run:
// "" when host and workload match, else one sentence.
std::string calibration_mismatch(const Calibration& cal, const Profile& run);

// The floor's standard error for a figure of A-side mean `mean_a` at `n`
// runs a side: rel_sd · |mean_a| · √(R / n); 0 when undefined.
double floor_se(const CalibratedFigure& f, std::size_t calibrated_runs, double mean_a,
                std::size_t n);
// Floors `c` by `f` when the floor's standard error exceeds the deciding
// test's own (Comparison::floor); whether it did.
bool apply_floor(Comparison& c, const CalibratedFigure& f, const Calibration& cal,
                 double level = 0.95);
// Every tested op's calibrated figures (DiffConfig::calibration), before
// the FDR control; nothing without a calibration.
void floor_intervals(Diff& d);
// The floor's half-width relative to A's mean ("±4.1%" as 0.041); NaN if
// `c` is not floored.
double floor_rel_half(const Comparison& c);

// calibration.json (docs/COMPARE.md "calibration.json").
std::string calibration_json_text(const Calibration& c);
// Strict: every key present with its type, counts consistent, rel_sd the
// root mean square of its deltas. `source` names the file in errors.
Result<Calibration> parse_calibration(std::string_view text, const std::string& source);
Result<Calibration> read_calibration(const std::string& path);

}  // namespace fscost
