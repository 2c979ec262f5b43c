// Where a cost delta flows: the call graph of one operation's stacks in
// configurations A and B, and its dominator tree.
//
// Vertices are functions (merged by name, so a function reached from two
// callers is one vertex), edges are calls; both carry A's and B's cost.
// Cost of a function w flows through v on every stack iff v dominates w
// from the root, so the delta that flows through v is the sum of self
// deltas over v's dominator subtree. Descending the dominator tree while a
// child still carries a given share of the delta finds the narrowest
// function that all of that share passes through: "62% of the new cost is
// under xfs_parent_addname".
//
// Built with Boost.Graph (adjacency_list, lengauer_tarjan_dominator_tree).
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "views/stacks.h"  // FlameStack

namespace fscost {

struct CallVertex {
  std::string name;
  // Inclusive: the summed value of stacks containing the function (each
  // stack counted once, even if the function recurses). Self: stacks whose
  // leaf it is.
  double incl_a = 0, incl_b = 0;
  double self_a = 0, self_b = 0;
};

struct CallEdge {
  double a = 0, b = 0;  // summed value of stacks through this call (once per stack)
};

using CallGraphBase = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS,
                                            CallVertex, CallEdge>;
using CallVertexId = boost::graph_traits<CallGraphBase>::vertex_descriptor;
inline constexpr CallVertexId kNoVertex = std::numeric_limits<CallVertexId>::max();

class CallGraph {
 public:
  // Stacks as flame_input gives them (frames outermost first); only stacks
  // whose frame [0] is `root` are taken, so the root is the operation.
  // Values are whatever unit the caller chose (ns/op averaged over runs).
  static CallGraph build(const std::vector<FlameStack>& a, const std::vector<FlameStack>& b,
                         const std::string& root);

  const CallGraphBase& graph() const { return g_; }
  CallVertexId root() const { return root_; }
  std::size_t size() const { return boost::num_vertices(g_); }
  const CallVertex& vertex(CallVertexId v) const { return g_[v]; }
  // The function's vertex (text converts to a Frame, interning it).
  std::optional<CallVertexId> find(Frame name) const;

  // Immediate dominator of each vertex from the root (indexed by vertex id);
  // the root's own entry is the root. Computed once, on first use.
  const std::vector<CallVertexId>& idom() const;
  // Children in the dominator tree.
  const std::vector<std::vector<CallVertexId>>& dominated() const;
  // Dominator-tree path root → v (both included).
  std::vector<CallVertexId> dominator_path(CallVertexId v) const;

 private:
  CallGraphBase g_;
  CallVertexId root_ = 0;
  std::vector<CallVertexId> by_pool_id_;  // a frame's vertex by pool id, or kNoVertex
  mutable std::vector<CallVertexId> idom_;
  mutable std::vector<std::vector<CallVertexId>> dominated_;
};

// Where `share` of a delta flows. `self_delta[v]` is the part of the delta
// attributed to v as a leaf (by default self_b − self_a; the diff passes
// only one class of it, e.g. new code). `subtree` is Σ self_delta over the
// dominator subtree; `through` is the deepest vertex whose subtree still
// carries at least `share` of the root's total, in the total's direction.
struct Flow {
  double total = 0;                 // Σ self_delta over the graph
  CallVertexId through = 0;         // narrowest such function (root if none deeper)
  double through_delta = 0;         // its subtree's delta
  std::vector<CallVertexId> path;   // dominator path root → through
};
Flow narrowest_flow(const CallGraph& cg, const std::vector<double>& self_delta, double share);
// With self_delta = self_b − self_a of every vertex.
Flow narrowest_flow(const CallGraph& cg, double share);

}  // namespace fscost
