#include "collector/map_sizes.h"

#include <algorithm>

namespace fscost {
namespace {

std::uint32_t size_of(const std::optional<std::uint32_t>& asked, MapSizeRule rule, unsigned cpus) {
  if (asked) return *asked;
  std::uint64_t scaled = static_cast<std::uint64_t>(rule.per_cpu) * std::max(1u, cpus);
  // --max-* accept at most 2^22; so does the default.
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(std::max<std::uint64_t>(rule.floor, scaled), 1u << 22));
}

}  // namespace

MapSizes resolve_map_sizes(const MapSizeOptions& a, unsigned cpus) {
  return {size_of(a.stack_storage, kStackStorage, cpus), size_of(a.max_stacks, kMaxStacks, cpus),
          size_of(a.max_threads, kMaxThreads, cpus),     size_of(a.max_procs, kMaxProcs, cpus),
          size_of(a.max_offcpu, kMaxOffcpu, cpus),       size_of(a.max_locks, kMaxLocks, cpus),
          size_of(a.max_background, kMaxBackground, cpus)};
}

}  // namespace fscost
