// Synthetic profiles at stress scale for bench/analysis_speed: many unique
// kernel stacks with XFS-like frames, shaped like what `fscost record` writes
// (syscall entry frames, an operation's VFS → XFS path, then a walk down a
// fixed synthetic call graph, so paths share prefixes as real ones do).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/profile.h"

namespace fscost::bench {

// How the stacks are drawn.
enum class Shape {
  // Syscall entry, the op's VFS → XFS path, then a walk where each function
  // calls one of four callees: stacks share long prefixes.
  Synthetic,
  // A random walk of min_depth..max_depth frames down a call graph of 3000
  // functions, each calling 8 others drawn at random: stacks share a few
  // frames at most, so a merged tree has nearly a node per stack entry
  // (issue 41: the shape that made `fscost flamegraph` allocate per node).
  RandomWalk,
};

// One configuration's stack set: every run of the configuration samples the
// same stacks (with different counts), as repeated runs of one workload do.
struct StackSet {
  std::vector<std::string> ops;  // operation of each stack, same order
  std::vector<Stack> stacks;
};

struct SynthConfig {
  std::size_t stacks = 100'000;  // unique on-CPU stacks per profile
  std::size_t min_depth = 10, max_depth = 40;
  unsigned seed = 1;
  // Share of stacks drawn from a call graph with extra functions (the B
  // side of a diff: "new code"); 0 for A.
  double changed_share = 0;
  Shape shape = Shape::Synthetic;
};

StackSet synth_stacks(const SynthConfig& cfg);

// One run: the stack set's samples with counts jittered by `run_seed`,
// operations whose on-CPU time matches the samples, off-CPU stacks and lock
// contention on a subset of the stacks, rusage, metadata and zero drops.
Profile synth_run(const StackSet& set, unsigned run_seed);

}  // namespace fscost::bench
