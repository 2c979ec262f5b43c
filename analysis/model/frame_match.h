// Matching kernel frame names against the small pattern tables the
// classifiers use (wait classes, lock roles, spin paths).
#pragma once

#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/frame.h"

namespace fscost {

// The function name without a compiler clone suffix: "xlog_wait.isra.0",
// "foo.constprop.0", "bar.part.1" and "baz.cold" match as "xlog_wait", "foo",
// "bar" and "baz". Kernel function names never contain '.'.
constexpr std::string_view base_name(std::string_view frame) {
  return frame.substr(0, frame.find('.'));
}

// `pattern` is an exact name, "prefix*" or "*suffix"; matched on base_name().
constexpr bool frame_matches(std::string_view frame, std::string_view pattern) {
  std::string_view f = base_name(frame);
  if (pattern.ends_with('*')) return f.starts_with(pattern.substr(0, pattern.size() - 1));
  if (pattern.starts_with('*')) return f.ends_with(pattern.substr(1));
  return f == pattern;
}

constexpr bool frame_matches_any(std::string_view frame,
                                 std::span<const std::string_view> patterns) {
  for (auto p : patterns)
    if (frame_matches(frame, p)) return true;
  return false;
}

// A function's family, from its name alone: its first two words, as
// kernel subsystems prefix their functions ("xfs_attr_sf_addname" →
// "xfs_attr", "__xfs_trans_commit" → "xfs_trans", "xlog_cil_push_work" →
// "xlog_cil"). "" for names of fewer than three words ("down_write",
// "path_openat"), which name no family.
constexpr std::string_view function_family(std::string_view frame) {
  std::string_view f = base_name(frame);
  f.remove_prefix(std::min(f.find_first_not_of('_'), f.size()));
  std::size_t first = f.find('_');
  if (first == 0 || first == std::string_view::npos) return {};
  std::size_t second = f.find('_', first + 1);
  if (second == std::string_view::npos || second == first + 1 || second + 1 >= f.size()) return {};
  return f.substr(0, second);
}

// A sample in process_one_work's own bookkeeping (its pool lock, its
// preemption points) has no work function under it.
inline constexpr std::string_view kWorkerHousekeeping[] = {
    "_raw_*", "raw_*", "__raw_*", "*_irq", "*_irqrestore", "schedule", "__schedule",
    "schedule_*", "__cond_resched", "pwq_*", "worker_*", "lock_*", "__lock_*"};

// The work item a workqueue worker ran: the function process_one_work
// called in `frames` (outermost first; each a Frame or a string), or ""
// (no worker's stack, or in the worker's own bookkeeping). A kworker's name
// says nothing; this says "xfs_end_io", "wb_workfn", "xfs_flush_inodes_worker".
template <typename Frames>
std::string_view work_function(const Frames& frames) {
  auto text = [](const auto& f) -> std::string_view {
    if constexpr (requires { f.str(); })
      return f.str();
    else
      return f;
  };
  for (std::size_t i = 0; i + 1 < frames.size(); ++i)
    if (base_name(text(frames[i])) == "process_one_work") {
      std::string_view work = base_name(text(frames[i + 1]));
      // flush_work's barrier: wq_barrier_func tail-calls complete(), so
      // the stack shows process_one_work → complete.
      if (work == "complete") return "wq_barrier_func";
      return frame_matches_any(work, kWorkerHousekeeping) ? std::string_view{} : work;
    }
  return {};
}

// True if any frame of the stack matches one of `patterns`.
inline bool stack_has_any(const Stack& frames, std::span<const std::string_view> patterns) {
  for (const auto& f : frames)
    if (frame_matches_any(f.str(), patterns)) return true;
  return false;
}

}  // namespace fscost
