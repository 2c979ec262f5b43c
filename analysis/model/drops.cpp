#include "model/drops.h"

#include <array>
#include <utility>

namespace fscost {

namespace {

// The BPF side's counters from their table, then those userspace or an
// import counts. docs/PROFILE.md lists them all.
#define DROP_ROW(id, name, what, hint) DropCounter{name, what, hint},
constexpr auto kDropCounters = std::to_array<DropCounter>({
    FSCOST_DROP_TABLE(DROP_ROW)
    {"prog_missed",
     "BPF program runs the kernel skipped (bpf_prog_info.recursion_misses): events not seen",
     "another tracer may be on the same hooks, or lower --freq"},
    // Recordings with --user-stacks:
    FSCOST_USER_MAPPING_DROP_TABLE(DROP_ROW)
    // Imports (docs/FORMATS.md), not recordings:
    {"folded_rounded_to_zero",
     "folded stacks left out: a fractional count rounded to zero whole samples",
     "scale the folded values up before importing"},
    {"perf_no_stack", "perf script samples without any stack frame",
     "record with perf record -g (call graphs)"},
    {"perf_truncated_stack",
     "perf script samples left out: a stack frame line was cut (no closing \"(dso)\")",
     "the file was cut short or its lines shortened; run perf script again"},
    {"pprof_negative_values", "pprof sample values below zero, read as 0",
     "the profile's producer wrote negative counts; check the tool that wrote it"},
    {"pprof_frames_capped",
     "pprof samples left out: the stacks of those before them held 33,554,432 frames in all",
     "import a smaller profile (pprof -focus/-prune_from, or fewer samples merged into it)"},
    // Any profile read (docs/HARDENING.md, "Input limits"):
    {"stack_depth_truncated",
     "stacks deeper than 1024 frames, cut to their outermost 1023 and a [truncated] frame",
     "no kernel stack is that deep (127 at most): the file came from elsewhere"},
});
#undef DROP_ROW

}  // namespace

std::span<const DropCounter> bpf_drop_counters() {
  return std::span(kDropCounters).first<kBpfDropCount>();
}

std::span<const DropCounter> drop_counters() { return kDropCounters; }

ProbeFeed probe_feed(std::string_view probe) {
  // By the tracepoint's category, then the few events that differ in it.
  static constexpr std::pair<std::string_view, ProbeFeed> kFeeds[] = {
      {"raw_syscalls:", {"op counts and times: an op whose entry or exit it missed is not counted", true}},
      {"sched:sched_switch", {"the ops' on- and off-CPU split: an interval it missed is on-CPU", false}},
      {"sched:sched_waking", {"who woke an off-CPU wait", false}},
      {"sched:sched_process_", {"which threads are the workload's: a thread whose fork it missed is not traced", true}},
      {"lock:", {"lock waits: a wait it missed is not counted", false}},
      {"block:", {"device writes", false}},
      {"cpu-clock", {"on-CPU samples (the stacks), not op counts or times", false}},
  };
  for (const auto& [prefix, feed] : kFeeds)
    if (probe.starts_with(prefix)) return feed;
  return {"filesystem events per op", false};  // xfs:, jbd2:, ext4:, btrfs:
}

DropCounter describe_drop(std::string_view name) {
  for (const auto& d : kDropCounters)
    if (d.name == name) return d;
  return {name, "counter unknown to this fscost (recorded by a newer version?)",
          "upgrade fscost for its description"};
}

}  // namespace fscost
