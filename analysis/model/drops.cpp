#include "model/drops.h"

#include <array>

namespace fscost {

namespace {

// Keep in sync with enum fscost_drop (bpf/fscost.h) and docs/PROFILE.md.
constexpr std::array<DropCounter, 11> kDropCounters = {{
    {"stack_map_full", "kernel stacks lost: the stack map was full", "raise --stack-storage-size"},
    {"stack_other_errors",
     "kernel stacks lost: bpf_get_stack failed, or a stack vanished before it was read",
     "see `fscost features`"},
    {"sample_map_full", "samples lost: the (operation, stack) aggregation map was full",
     "raise --max-stacks"},
    {"task_map_full",
     "operations lost: no per-thread state could be stored (the raw_tp flavour's tid hash was "
     "full, or task storage found no memory)",
     "raise --max-threads (raw_tp flavour; task storage has no size limit)"},
    {"tracked_map_full", "processes not followed: the tracked-process map was full",
     "raise --max-procs"},
    {"offcpu_map_full",
     "off-CPU intervals lost: the (operation, off-CPU stack, waker) map was full",
     "raise --max-offcpu"},
    {"lock_map_full", "lock contentions lost: the (operation, lock, stack) map was full",
     "raise --max-locks"},
    {"lock_nesting",
     "lock contentions not timed: a third contention began while a task already waited on two "
     "(an interrupt contending inside a contention)",
     "none needed when small next to the contention counts; the BPF side tracks two nested "
     "waits per task"},
    {"prog_missed",
     "BPF program runs the kernel skipped (bpf_prog_info.recursion_misses): events not seen",
     "another tracer may be on the same hooks, or lower --freq"},
    // Imports (docs/FORMATS.md), not recordings:
    {"folded_rounded_to_zero",
     "folded stacks left out: a fractional count rounded to zero whole samples",
     "scale the folded values up before importing"},
    {"perf_no_stack", "perf script samples without any stack frame",
     "record with perf record -g (call graphs)"},
}};

}  // namespace

std::span<const DropCounter> drop_counters() { return kDropCounters; }

DropCounter describe_drop(std::string_view name) {
  for (const auto& d : kDropCounters)
    if (d.name == name) return d;
  return {name, "counter unknown to this fscost (recorded by a newer version?)",
          "upgrade fscost for its description"};
}

}  // namespace fscost
