// Synthetic runs drawn the way cpu-clock samples are: Poisson counts
// around a rate that itself moves from run to run (a lognormal factor that
// every function of a run shares: the host's drift). For the power tests
// of the diff (diff_power_test, diff_descent_test, diff_exact_test).
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "diff/diff.h"
#include "diff_fixture.h"  // kCreatePath, frames_of

namespace fscost::test {

// Draws from mt19937's specified output only, so every standard library
// gives the same runs.
class Draw {
 public:
  explicit Draw(std::uint32_t seed) : g_(seed) {}
  double uniform() { return (static_cast<double>(g_()) + 0.5) / 4294967296.0; }
  double z() {
    return std::sqrt(-2 * std::log(uniform())) * std::cos(6.283185307179586 * uniform());
  }
  // Poisson: by inversion while e^-λ is representable, else normal.
  std::uint64_t poisson(double lambda) {
    if (lambda <= 0) return 0;
    if (lambda > 30) return static_cast<std::uint64_t>(std::max(0.0, std::round(lambda + std::sqrt(lambda) * z())));
    double p = std::exp(-lambda), cdf = p, u = uniform();
    std::uint64_t k = 0;
    while (u > cdf && k < 1000) {
      p *= lambda / static_cast<double>(++k);
      cdf += p;
    }
    return k;
  }

 private:
  std::mt19937 g_;
};

struct Function {
  std::string leaf;
  double per_run = 0;  // mean samples per run
  Stack under = {};    // its callers below xfs_create, outermost first
};

inline constexpr std::uint32_t kFreq = 4999;
inline constexpr std::uint64_t kOps = 20000;

// One run: every function one stack under create, its samples Poisson
// around per_run × a run factor (lognormal, sd `run_sd`: the machine's
// drift between runs); the op count moves ±5% (its exposure).
inline Profile make_run(const std::vector<Function>& fns, double run_sd, Draw& d) {
  Profile p;
  p.meta.kernel_release = "6.8.0-test";
  p.meta.cpus = 2;
  p.meta.freq_hz = kFreq;
  p.meta.command = "synthetic";
  const double factor = std::exp(run_sd * d.z() - run_sd * run_sd / 2);
  const auto ops = static_cast<std::uint64_t>(static_cast<double>(kOps) * (1 + 0.05 * (2 * d.uniform() - 1)));
  const double scale = static_cast<double>(ops) / static_cast<double>(kOps);
  std::uint64_t total = 0;
  for (const auto& f : fns) {
    std::uint64_t k = d.poisson(f.per_run * factor * scale);
    if (k == 0) continue;
    Stack tail = f.under;
    tail.push_back(Frame(f.leaf));
    p.samples.push_back({SampleKind::Op, "create", frames_of(kCreatePath, tail), k});
    total += k;
  }
  const auto oncpu = static_cast<std::uint64_t>(static_cast<double>(total) * 1e9 / kFreq);
  p.ops.push_back({"create", ops, 0, oncpu, oncpu, std::vector<std::uint64_t>(kLatencyBuckets, 0), 0});
  p.rusage = {true, oncpu / 10, oncpu, oncpu * 2};
  p.meta.duration_ns = oncpu * 2;
  return p;
}

inline RunSet make_side(const std::vector<Function>& fns, double run_sd, std::size_t runs, Draw& d,
                 const std::string& label) {
  RunSet s;
  s.label = label;
  for (std::size_t i = 0; i < runs; ++i) {
    s.runs.push_back(make_run(fns, run_sd, d));
    s.sources.push_back(label + "/run" + std::to_string(i + 1) + ".profile");
  }
  return s;
}

// `n` functions whose rates span 1 to 5000 samples per run, log-uniformly:
// a real create profile's long tail of rarely sampled functions.
inline std::vector<Function> background(std::size_t n, Draw& d) {
  std::vector<Function> fns;
  for (std::size_t i = 0; i < n; ++i)
    fns.push_back({"xfs_synth_f" + std::to_string(i), std::exp(std::log(5000.0) * d.uniform())});
  return fns;
}

}  // namespace fscost::test
