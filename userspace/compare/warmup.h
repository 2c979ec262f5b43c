// How many runs a compare discards before it measures (docs/COMPARE.md,
// "Warm-up"). By default (--warmup auto) the number follows the runs: one
// short run per configuration first (a tenth of the built-in workload's
// files), which warms the workload's binary and the kernel's caches and
// measures fscost's probes with bpf_stats; then, once the planned runs are
// done, a configuration's first measured run that stands above its later
// runs (first_run_was_warmup) is discarded as a warm-up after all and
// replaced by one more run, at most kMaxLateWarmups times per
// configuration and thread count. --warmup N instead runs N full
// warm-ups per configuration and keeps every measured run.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "compare/options.h"

namespace fscost {

// A first run judged a warm-up is replaced at most this often, per
// configuration and thread count: a run that is slow every time is the
// configuration's, not a warm-up.
inline constexpr int kMaxLateWarmups = 2;

// The short warm-up's files per thread: a tenth of the run's, at least this.
inline constexpr std::uint64_t kShortWarmupMinFiles = 100;

// Whether a configuration's first measured run (its wall time `first`) was
// still warming up: it lies above the range of the later runs by more than
// that range is wide, and by more than a tenth of their median (a floor for
// runs that happen to agree closely). Needs two later runs at least.
bool first_run_was_warmup(double first, std::span<const double> later);

// The sentence the summary prints for a discarded first run:
// "1.92 s against 0.51–0.60 s of its later runs".
std::string late_warmup_reason(double first, std::span<const double> later);

// The short warm-up's workload: the built-in one with a tenth of the files
// per thread; nullopt for a command, which cannot be scaled (its warm-up is
// a full run).
std::optional<WorkloadSpec> short_warmup_workload(const WorkloadSpec& w);

}  // namespace fscost
