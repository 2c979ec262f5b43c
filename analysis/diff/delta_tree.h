// One operation's differential call tree, the one tree the on-CPU
// explanation reads: the merged mean stacks of A and B (ns/op,
// flame_diff_tree), each node annotated once with its net delta, the part
// of it in stacks that spin on a lock, and whether its code is new in B.
// The call paths (paths.cpp) descend it; the parts of the delta
// (explain.cpp) sum its nodes' self deltas by class. Both read the same
// marks, so a path and a part never disagree on what is new code or spin.
//
// New code is decided by the presence rule every finding of code one side
// runs and the other does not uses (internal.h present_only): a frame with
// no cost in A whose caller has some (the outermost such frame) is new in
// B when every B run sampled it, no A run did, and A's runs at B's rate
// would have shown it. Its per-run values come from the same pass over the
// runs that measures the paths' figures (paths.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "flame/flamegraph.h"  // FlameNode

namespace fscost {

struct DeltaNode {
  const FlameNode* n = nullptr;  // A's and B's values, ns/op, inclusive
  double net = 0;                // B − A, inclusive
  double spin = 0;               // of which in stacks that spin on a lock
  bool spins = false;            // its own stack (ending here) spins on a lock
  std::uint32_t id = 0;          // pre-order number
  const DeltaNode* up = nullptr;  // the caller; null at the op
  std::vector<DeltaNode> kids;
};

class DeltaTree {
 public:
  DeltaTree() = default;
  // `diff`: flame_diff_tree of the op's on-CPU mean stacks; the op is the
  // root's child named `op` (none: an empty tree).
  DeltaTree(FlameNode diff, const std::string& op);

  // The op's node; null when neither side sampled the op.
  const DeltaNode* root() const { return root_.get(); }
  std::size_t size() const { return is_new_.size(); }

  // Frames that could be new in B: no cost in A, some in B, their caller
  // some in A (or the op). Pre-order.
  const std::vector<const DeltaNode*>& absent_from_a() const { return absent_; }
  // After the presence rule decided for the candidates: each node the
  // rule found new, and everything below it, is new.
  void mark_new(const DeltaNode& n);
  bool is_new(const DeltaNode& n) const { return is_new_[n.id] != 0; }

 private:
  // Held by pointer: nodes point into the flame tree and at their callers.
  std::unique_ptr<FlameNode> flame_;
  std::unique_ptr<DeltaNode> root_;
  std::vector<char> is_new_;  // by id
  std::vector<const DeltaNode*> absent_;
};

}  // namespace fscost
