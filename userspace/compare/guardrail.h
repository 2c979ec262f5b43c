// What makes a sweep's columns something other than what they look like:
// commands that differ in more than the thread count (the seed's fs_mark
// table grows its file size as its task count shrinks), and more threads
// than CPUs, which measures oversubscription.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compare/options.h"
#include "diff/diff.h"  // Warning

namespace fscost {

// "workload-varies" when the commands of the thread counts differ in any
// word but the count itself (--workload-cmd-at): per count, the words the
// others lack.
std::optional<Warning> workload_guardrail(const WorkloadSpec& w);

// One configuration's figures at an oversubscribed thread count.
struct CpuBound {
  std::string label;
  double cpu_us_per_op = 0;  // user + sys per operation the workload counted
  double ops_per_s = 0;
};

// "oversubscribed": `threads` on `cpus` run at most `cpus` at once. With
// each configuration's CPU per op, the arithmetic of the ceiling: cpus /
// CPU per op here, against what a 64-CPU host allows.
Warning oversubscription_warning(int threads, unsigned cpus, const std::vector<CpuBound>& configs);

}  // namespace fscost
