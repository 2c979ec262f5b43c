// Call graph of one operation's stacks and its dominator tree (callgraph.h).
//
// build() accumulates vertices and edges in plain vectors first (an edge is
// found in its caller's list of (callee, edge), not through boost::edge),
// then copies them into the adjacency_list in first-seen order, so a
// graph built from the same stacks always has the same vertex ids.
#include "diff/callgraph.h"

#include <algorithm>
#include <boost/graph/dominator_tree.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace fscost {

namespace {

using Traits = boost::graph_traits<CallGraphBase>;
using Ends = std::pair<CallVertexId, CallVertexId>;

struct Builder {
  std::vector<CallVertex> vertices;
  std::vector<CallVertexId> by_pool_id;  // a frame's vertex, by its pool id: no hashing
  std::vector<Ends> ends;
  std::vector<CallEdge> edges;
  // Each vertex's out-edges as (callee, edge number): a function calls few
  // others, so a scan beats hashing every (caller, callee) pair of every
  // stack (a caller with hundreds of callees would want a hash again).
  std::vector<std::vector<std::pair<CallVertexId, std::size_t>>> out;
  // The last stack that counted each vertex / edge: a stack adds its value
  // to a function or call once, however often it recurses through it.
  std::vector<std::size_t> vertex_seen, edge_seen;
  std::size_t stack_no = 0;

  CallVertexId vertex(Frame name) {
    if (name.id() >= by_pool_id.size()) by_pool_id.resize(Frame::pool_size(), kNoVertex);
    CallVertexId& v = by_pool_id[name.id()];
    if (v == kNoVertex) {
      v = vertices.size();
      vertices.push_back(CallVertex{name});
      vertex_seen.push_back(0);
      out.emplace_back();
    }
    return v;
  }

  std::size_t edge(CallVertexId from, CallVertexId to) {
    for (const auto& [callee, e] : out[from])
      if (callee == to) return e;
    std::size_t e = edges.size();
    out[from].emplace_back(to, e);
    ends.emplace_back(from, to);
    edges.emplace_back();
    edge_seen.push_back(0);
    return e;
  }

  // frames[0] is the root (vertex 0, already present).
  void add(const FlameStack& s, bool is_b) {
    const auto& [frames, value] = s;
    ++stack_no;
    CallVertexId prev = 0;
    for (std::size_t i = 0; i < frames.size(); ++i) {
      CallVertexId v = i == 0 ? 0 : vertex(frames[i]);
      if (vertex_seen[v] != stack_no) {
        vertex_seen[v] = stack_no;
        (is_b ? vertices[v].incl_b : vertices[v].incl_a) += value;
      }
      if (i > 0) {
        std::size_t e = edge(prev, v);
        if (edge_seen[e] != stack_no) {
          edge_seen[e] = stack_no;
          (is_b ? edges[e].b : edges[e].a) += value;
        }
      }
      prev = v;
    }
    (is_b ? vertices[prev].self_b : vertices[prev].self_a) += value;
  }
};

}  // namespace

CallGraph CallGraph::build(const std::vector<FlameStack>& a, const std::vector<FlameStack>& b,
                           const std::string& root) {
  Builder bld;
  bld.vertex(root);
  for (int side = 0; side < 2; ++side)
    for (const auto& s : side ? b : a)
      if (!s.first.empty() && s.first[0] == root) bld.add(s, side == 1);

  CallGraph cg;
  cg.g_ = CallGraphBase(bld.vertices.size());
  for (std::size_t v = 0; v < bld.vertices.size(); ++v) cg.g_[v] = std::move(bld.vertices[v]);
  for (std::size_t e = 0; e < bld.edges.size(); ++e)
    boost::add_edge(bld.ends[e].first, bld.ends[e].second, bld.edges[e], cg.g_);
  cg.by_pool_id_ = std::move(bld.by_pool_id);
  cg.root_ = 0;
  return cg;
}

std::optional<CallVertexId> CallGraph::find(Frame name) const {
  if (name.id() >= by_pool_id_.size() || by_pool_id_[name.id()] == kNoVertex) return std::nullopt;
  return by_pool_id_[name.id()];
}

const std::vector<CallVertexId>& CallGraph::idom() const {
  const std::size_t n = size();
  if (!idom_.empty() || n == 0) return idom_;
  // The full form of lengauer_tarjan_dominator_tree: the short one starts
  // every dfnum at 0, which makes unreachable vertices look like the root
  // to the algorithm; max marks them unreachable, as its precondition asks.
  auto index = boost::get(boost::vertex_index, g_);
  std::vector<std::size_t> dfnum(n, std::numeric_limits<std::size_t>::max());
  std::vector<CallVertexId> parent(n, Traits::null_vertex());
  std::vector<CallVertexId> by_dfnum(n, Traits::null_vertex());
  std::vector<CallVertexId> dom(n, Traits::null_vertex());
  boost::lengauer_tarjan_dominator_tree(
      g_, root_, index, boost::make_iterator_property_map(dfnum.begin(), index),
      boost::make_iterator_property_map(parent.begin(), index), by_dfnum,
      boost::make_iterator_property_map(dom.begin(), index));
  // The root and (never expected) unreachable vertices hang off the root.
  for (auto& d : dom)
    if (d == Traits::null_vertex()) d = root_;
  dom[root_] = root_;
  idom_ = std::move(dom);
  return idom_;
}

const std::vector<std::vector<CallVertexId>>& CallGraph::dominated() const {
  if (!dominated_.empty() || size() == 0) return dominated_;
  const auto& dom = idom();
  std::vector<std::vector<CallVertexId>> kids(size());
  for (CallVertexId v = 0; v < size(); ++v)
    if (v != root_) kids[dom[v]].push_back(v);
  for (auto& k : kids)
    std::sort(k.begin(), k.end(),
              [&](CallVertexId x, CallVertexId y) { return g_[x].name < g_[y].name; });
  dominated_ = std::move(kids);
  return dominated_;
}

std::vector<CallVertexId> CallGraph::dominator_path(CallVertexId v) const {
  if (v >= size()) return {};
  const auto& dom = idom();
  std::vector<CallVertexId> path{v};
  while (v != root_) path.push_back(v = dom[v]);
  std::reverse(path.begin(), path.end());
  return path;
}

namespace {

// Σ self_delta over each vertex's dominator subtree: children are summed
// into parents in reverse pre-order, so every child is done before its parent.
std::vector<double> subtree_deltas(const CallGraph& cg, const std::vector<double>& self_delta) {
  const auto& kids = cg.dominated();
  std::vector<CallVertexId> order, todo{cg.root()};
  while (!todo.empty()) {
    CallVertexId v = todo.back();
    todo.pop_back();
    order.push_back(v);
    todo.insert(todo.end(), kids[v].begin(), kids[v].end());
  }
  std::vector<double> sub = self_delta;
  const auto& dom = cg.idom();
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    if (*it != cg.root()) sub[dom[*it]] += sub[*it];
  return sub;
}

}  // namespace

Flow narrowest_flow(const CallGraph& cg, const std::vector<double>& self_delta, double share) {
  if (self_delta.size() != cg.size())
    throw std::invalid_argument("narrowest_flow: " + std::to_string(self_delta.size()) +
                                " self deltas for " + std::to_string(cg.size()) + " vertices");
  Flow f;
  if (cg.size() == 0) return f;
  const auto sub = subtree_deltas(cg, self_delta);
  f.total = sub[cg.root()];
  CallVertexId v = cg.root();
  if (f.total != 0) {
    // A child summed in another order than the root may differ in the last
    // bits: with share 1 it must still count as carrying all of the delta.
    const double need = share * std::abs(f.total) * (1 - 1e-12);
    for (;;) {
      std::optional<CallVertexId> best;
      for (CallVertexId c : cg.dominated()[v]) {  // by name: ties keep the first
        if (sub[c] * f.total <= 0 || std::abs(sub[c]) < need) continue;
        if (!best || std::abs(sub[c]) > std::abs(sub[*best])) best = c;
      }
      if (!best) break;
      v = *best;
    }
  }
  f.through = v;
  f.through_delta = sub[v];
  f.path = cg.dominator_path(v);
  return f;
}

Flow narrowest_flow(const CallGraph& cg, double share) {
  std::vector<double> self_delta(cg.size());
  for (CallVertexId v = 0; v < cg.size(); ++v)
    self_delta[v] = cg.vertex(v).self_b - cg.vertex(v).self_a;
  return narrowest_flow(cg, self_delta, share);
}

}  // namespace fscost
