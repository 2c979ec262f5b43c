// The kernel-side maps' sizes: what --max-* and --stack-storage-size ask,
// or by default a floor that grows with the CPU count. The maps aggregate
// in the kernel, so what fills them is distinct keys, not events: at 997 Hz
// on 256 CPUs (255k samples/s) a sample only bumps a count, but per-CPU
// kernel threads (ksoftirqd/N, migration/N, …) and more concurrent
// operations bring more distinct (who, stack) keys (docs/PERFORMANCE.md,
// "Scaling past this machine").
#pragma once

#include <cstdint>
#include <optional>

namespace fscost {

struct MapSizeOptions {  // unset: from the CPU count
  std::optional<std::uint32_t> stack_storage, max_stacks, max_threads, max_procs, max_offcpu,
      max_locks, max_background;
};

struct MapSizes {
  std::uint32_t stack_storage, max_stacks, max_threads, max_procs, max_offcpu, max_locks,
      max_background;
};

// Default = max(floor, per_cpu × cpus): the floors are the sizes that were
// measured to suffice on 2–8 CPUs; the per-CPU terms take over above 128 CPUs.
struct MapSizeRule {
  std::uint32_t floor, per_cpu;
};
inline constexpr MapSizeRule kStackStorage{16384, 128}, kMaxStacks{32768, 256},
    kMaxThreads{16384, 128}, kMaxProcs{8192, 64}, kMaxOffcpu{16384, 128}, kMaxLocks{16384, 128},
    kMaxBackground{1024, 8};

MapSizes resolve_map_sizes(const MapSizeOptions& asked, unsigned cpus);

}  // namespace fscost
