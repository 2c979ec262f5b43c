// The kernel-side maps' sizes: what --max-* and --stack-storage-size ask,
// or by default a floor that grows with the CPU count. The maps aggregate
// in the kernel, so what fills them is distinct keys, not events: at 997 Hz
// on 256 CPUs (255k samples/s) a sample only bumps a count, but per-CPU
// kernel threads (ksoftirqd/N, migration/N, …) and more concurrent
// operations bring more distinct (who, stack) keys (docs/PERFORMANCE.md,
// "cost per event, per run and on 256 CPUs").
#pragma once

#include <cstdint>
#include <optional>

namespace fscost {

struct MapSizeOptions {  // unset: from the CPU count
  std::optional<std::uint32_t> stack_storage, max_stacks, max_threads, max_procs, max_offcpu,
      max_locks, max_background, max_devices;
};

struct MapSizes {
  std::uint32_t stack_storage, max_stacks, max_threads, max_procs, max_offcpu, max_locks,
      max_background, max_devices;
};

inline constexpr std::uint32_t kMinMapEntries = 16, kMaxMapEntries = 1u << 22;

// One row per option: default = max(floor, per_cpu × CPUs), at most
// kMaxMapEntries. The floors are the sizes that sufficed on 2–8 CPUs; the
// per-CPU terms take over above 128 CPUs.
struct MapSizeOption {
  const char* flag;
  const char* what;
  std::optional<std::uint32_t> MapSizeOptions::*asked;
  std::uint32_t MapSizes::*size;
  std::uint32_t floor, per_cpu;
};
inline constexpr MapSizeOption kMapSizeOptions[] = {
    {"--stack-storage-size", "Stack map entries", &MapSizeOptions::stack_storage,
     &MapSizes::stack_storage, 16384, 128},
    {"--max-stacks", "(op, stack) aggregation entries", &MapSizeOptions::max_stacks,
     &MapSizes::max_stacks, 32768, 256},
    {"--max-threads", "Tracked threads (raw_tp flavour; tp_btf uses unbounded task storage)",
     &MapSizeOptions::max_threads, &MapSizes::max_threads, 16384, 128},
    {"--max-procs", "Tracked processes", &MapSizeOptions::max_procs, &MapSizes::max_procs, 8192,
     64},
    {"--max-offcpu", "(op, off-CPU stack, waker) entries", &MapSizeOptions::max_offcpu,
     &MapSizes::max_offcpu, 16384, 128},
    {"--max-locks", "(op, lock, stack) entries", &MapSizeOptions::max_locks, &MapSizes::max_locks,
     16384, 128},
    {"--max-background", "(kernel thread, work function) entries for XFS events",
     &MapSizeOptions::max_background, &MapSizes::max_background, 1024, 8},
    {"--max-devices", "(block device, write class) entries for bytes written",
     &MapSizeOptions::max_devices, &MapSizes::max_devices, 256, 2},
};

MapSizes resolve_map_sizes(const MapSizeOptions& asked, unsigned cpus);

}  // namespace fscost
