// Who waited for whom: a wait-for graph over one profile's aggregates.
//
// Vertices are contexts: a waiting operation ("create"), a lock's holder as
// the waiter found it (a create blocked in xfs_flush_inodes, a kworker's work
// function, a task), and whoever woke a blocked holder (a kworker by its work
// function, a task by comm). Edges carry the time waited, in ns per run:
//
//   op  --lock wait on L-->  holder        (Profile::lock_holders)
//   blocked holder  --its sleep there-->  waker     (Profile::offcpu, the
//        holder op's intervals blocked in the same stack, by waker)
//   holder blocked on a lock  -->  that op's lock holders (a chain can
//        loop back: A waits on B, which waits on A's lock)
//
// Each op has one chain per first holder: from the op over that lock wait,
// then the heaviest edge at each step, to where the time was spent (a
// running holder, a sleep nobody traced, a waker). A vertex met twice ends
// a chain as a cycle. Of an op's chains one is chosen by a stated rule
// (rank_chains below): the same runs always give the same chain, and one
// that holds in every run beats one that comes and goes, among those that
// matter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/profile.h"

namespace fscost {

struct WaitHop {
  enum Kind { Lock, Wake } kind = Lock;  // a wait on a lock's holder; a blocked holder's waker
  std::string what;     // Lock: the lock ("i_rwsem (parent dir, open)"); Wake: the wait class
  std::string context;  // "create, blocked (sleep) in __flush_work ← xfs_create"
  double ns = 0;        // time on this edge, per run
  std::uint64_t count = 0;  // waits or intervals behind it
};

struct WaitChain {
  std::string op;             // the waiting operation
  std::vector<WaitHop> hops;  // from the op outwards; the first hop's ns is its lock wait
  bool cycle = false;         // the last hop leads back to a context already on the chain
  std::size_t runs_held = 0;  // runs whose own graph has every hop of it
  std::size_t runs = 0;       // runs looked at
  // A chosen chain: why it won ("the longest summed wait of the chains
  // here"), and the op's other material chains in rank order (their own
  // `rule` and `others` empty).
  std::string rule;
  std::vector<WaitChain> others;
};

// A chain matters when its first hop's wait is at least this share of the
// heaviest chain's of the same op: below it, it is neither chosen for
// being in every run nor listed beside the chosen one.
inline constexpr double kMaterialChainShare = 0.1;

// The chosen chain of every op that waited on a lock whose holder was
// recorded, heaviest first; `min_share` drops ops whose first hop is below
// that share of the heaviest op's.
std::vector<WaitChain> wait_chains(const Profile& p, double min_share = 0.0);
// The same over several runs (a diff's side): edges summed, per run.
std::vector<WaitChain> wait_chains(const std::vector<const Profile*>& runs, double min_share = 0.0);

// One op's chains, ranked; the first returned carries the rule and the
// others. Among the material ones (kMaterialChainShare), those held in
// every run first, then by summed wait, then by their text: a total order.
WaitChain rank_chains(std::vector<WaitChain> chains);

// Every edge of one run's graph, (from, to) context → ns: `from` an op's
// name or a WaitHop's context, `to` a WaitHop's context. A chain's hops, as
// a diff compares them run by run, are looked up here.
using WaitEdges = std::map<std::pair<std::string, std::string>, double>;
WaitEdges wait_edges(const Profile& p);

// "create waited 27.9 µs/op on i_rwsem (parent dir) [rwsem:W]: held by
// create, blocked (sleep) in __flush_work ← xfs_create (1.1 s); woken by
// kworker running wq_barrier_func (1.1 s)". Per op with `ops` > 0.
std::string chain_text(const WaitChain& c, double ops);
// Why a chosen chain was chosen, and the others that matter, at most
// `max_others` of them (then "and N more"): "chosen: the longest summed
// wait of the chains here, held in 2 of 5 runs; also: create, running
// (0.5 µs/op, in 5 of 5 runs)". "" for a chain that was not chosen.
std::string chain_choice_text(const WaitChain& c, double ops, std::size_t max_others = SIZE_MAX);

// The blocked stack's site: the two leaf-most frames that are no scheduler
// or wait primitive, leaf first ("__flush_work ← xfs_create").
std::string blocked_site(const Stack& frames);

}  // namespace fscost
