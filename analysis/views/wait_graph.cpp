#include "views/wait_graph.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "model/frame_match.h"
#include "model/units.h"
#include "views/lock_names.h"

namespace fscost {

namespace {

struct Vertex {
  bool waiter = false;  // an operation that waited
  std::string context;  // as printed
  std::string op;       // a blocked holder's operation; "" otherwise
  std::string wait_class;
  Stack frames;         // a blocked holder's stack
};

struct Edge {
  WaitHop::Kind kind = WaitHop::Lock;
  std::string what;
  double ns = 0;
  std::uint64_t count = 0;
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, Vertex, Edge>;
using V = Graph::vertex_descriptor;

// Scheduler and wait primitives: where a task sleeps, not why.
constexpr std::string_view kWaitPrimitives[] = {
    "schedule", "__schedule", "schedule_*", "io_schedule*", "preempt_schedule*", "__cond_resched",
    "finish_task_switch*", "wait_for_completion*", "__wait_for_common", "wait_for_common*",
    "do_wait_for_common", "rwsem_down_*", "__down*", "down", "down_read*", "down_write*",
    "__mutex_lock*", "mutex_lock*", "folio_wait_bit_common", "folio_wait_writeback",
    "__folio_lock*", "bit_wait*", "__wait_on_bit*", "out_of_line_wait_on_bit*"};

class Builder {
 public:
  // Builds into `g`: the caller returns it by NRVO; a copy of an
  // adjacency_list (Boost 1.74 has no move) walks its edges.
  Builder(Graph& g, double runs) : runs_(runs), g_(g) {}

  V vertex(const std::string& key, Vertex props) {
    auto [it, added] = ids_.try_emplace(key, 0);
    if (added) it->second = boost::add_vertex(std::move(props), g_);
    return it->second;
  }

  void edge(V from, V to, WaitHop::Kind kind, const std::string& what, double ns,
            std::uint64_t count) {
    auto [it, added] = edges_.try_emplace({from, to, what}, Graph::edge_descriptor{});
    if (added) it->second = boost::add_edge(from, to, Edge{kind, what, 0, 0}, g_).first;
    g_[it->second].ns += ns / runs_;
    g_[it->second].count += count;
  }

  V op(const std::string& name) { return vertex("op:" + name, {true, name, "", "", {}}); }

  V holder(const LockHolder& h) {
    if (h.holder_kind == "blocked") {
      std::string site = blocked_site(h.holder_frames);
      return vertex("blocked:" + h.holder + "|" + h.holder_class + "|" + site,
                    {false, fmt::format("{}, blocked ({}) in {}", h.holder, h.holder_class, site),
                     h.holder, h.holder_class, h.holder_frames});
    }
    if (h.holder_kind == "running")
      return vertex("running:" + h.holder, {false, h.holder + ", running", "", "", {}});
    if (h.holder_kind == "kthread")
      return vertex("kthread:" + h.holder, {false, "kernel thread " + h.holder, "", "", {}});
    if (h.holder_kind == "readers")
      return vertex("readers", {false, "readers (no one owner)", "", "", {}});
    return vertex("task:" + h.holder,
                  {false, h.holder + ", running or outside a traced operation", "", "", {}});
  }

  V waker(const OffCpuStack& s) {
    // flush_work's barrier completes the sleeper right after the worker
    // ran the flushed work: that work is what the sleeper waited for.
    std::string on = s.waker_workqueue.empty() ? "" : " on " + s.waker_workqueue;
    if (s.waker_work == "wq_barrier_func" && !s.waker_last_work.empty())
      return vertex("waker-work:" + s.waker_last_work + on,
                    {false,
                     "kworker running " + s.waker_last_work + on + " (flush_work's barrier after it)",
                     "", "", {}});
    std::string_view work = s.waker_work.empty() ? work_function(s.waker_frames) : s.waker_work;
    if (!work.empty())
      return vertex("waker-work:" + std::string(work) + on,
                    {false, "kworker running " + std::string(work) + on, "", "", {}});
    if (!s.waker.empty()) return vertex("waker:" + s.waker, {false, s.waker, "", "", {}});
    return vertex("waker:", {false, "no traced waker", "", "", {}});
  }


 private:
  double runs_;
  Graph& g_;
  std::map<std::string, V> ids_;
  std::map<std::tuple<V, V, std::string>, Graph::edge_descriptor> edges_;
};

std::string lock_text(const LockHolder& h) {
  LockStat s;
  s.address = h.address;
  s.symbol = h.symbol;
  s.flags = h.flags;
  s.frames = h.frames;
  return lock_name(s);
}

// The graph of every run of `runs`, edges in ns per run.
Graph build(const std::vector<const Profile*>& runs) {
  Graph g;
  Builder b(g, std::max<double>(1, static_cast<double>(runs.size())));
  for (const Profile* p : runs) {
    // Blocked holders' sleeps, by the holder's (op, stack): found once per run.
    std::map<std::pair<std::string, Stack>, std::vector<const OffCpuStack*>> sleeps;
    for (const auto& s : p->offcpu)
      if (s.kind == SampleKind::Op && s.wait_class != "runqueue")
        sleeps[{s.name, s.frames}].push_back(&s);
    std::map<std::string, std::vector<const LockHolder*>> by_waiter;
    for (const auto& h : p->lock_holders) by_waiter[h.op].push_back(&h);
    for (const auto& h : p->lock_holders) {
      V holder = b.holder(h);
      b.edge(b.op(h.op), holder, WaitHop::Lock, lock_text(h), static_cast<double>(h.total_ns),
             h.count);
      if (h.holder_kind != "blocked") continue;
      if (auto it = sleeps.find({h.holder, h.holder_frames}); it != sleeps.end())
        for (const OffCpuStack* s : it->second)
          b.edge(holder, b.waker(*s), WaitHop::Wake, s->wait_class, static_cast<double>(s->total_ns),
                 s->count);
      // A holder asleep on a lock waits on that op's lock holders in turn.
      if (h.holder_class == "lock")
        for (const LockHolder* next : by_waiter[h.holder])
          b.edge(holder, b.holder(*next), WaitHop::Lock, lock_text(*next),
                 static_cast<double>(next->total_ns), next->count);
    }
  }
  return g;
}

// The heaviest edge out of `at`; on equal time the first by target and
// lock text, so that the order edges were added in never decides.
const Edge* heaviest_out(const Graph& g, V at, V& next) {
  const Edge* best = nullptr;
  for (auto e : boost::make_iterator_range(boost::out_edges(at, g))) {
    V to = boost::target(e, g);
    if (!best || g[e].ns > best->ns ||
        (g[e].ns == best->ns &&
         std::tie(g[to].context, g[e].what) < std::tie(g[next].context, best->what)))
      best = &g[e], next = to;
  }
  return best;
}

// From `start` over its edge `first`, then the heaviest edge at each step.
WaitChain follow(const Graph& g, V start, Graph::edge_descriptor first) {
  WaitChain c;
  c.op = g[start].context;
  std::set<V> seen{start};
  const Edge* e = &g[first];
  V next = boost::target(first, g);
  for (int depth = 0; depth < 8 && e; ++depth) {
    c.hops.push_back({e->kind, e->what, g[next].context, e->ns, e->count});
    if (!seen.insert(next).second) {
      c.cycle = true;
      break;
    }
    V at = next;
    e = heaviest_out(g, at, next);
  }
  return c;
}

// Every op's chains, one per first hop.
std::vector<std::vector<WaitChain>> chains_of(const Graph& g) {
  std::vector<std::vector<WaitChain>> out;
  for (V start : boost::make_iterator_range(boost::vertices(g))) {
    if (!g[start].waiter || boost::out_degree(start, g) == 0) continue;
    std::vector<WaitChain> op;
    for (auto e : boost::make_iterator_range(boost::out_edges(start, g)))
      op.push_back(follow(g, start, e));
    out.push_back(std::move(op));
  }
  return out;
}

// A chain's edges, as (from, to, what): whether a run holds it.
using EdgeKey = std::tuple<std::string, std::string, std::string>;

std::set<EdgeKey> edge_keys(const Graph& g) {
  std::set<EdgeKey> out;
  for (auto e : boost::make_iterator_range(boost::edges(g)))
    if (g[e].ns > 0 || g[e].count > 0)
      out.emplace(g[boost::source(e, g)].context, g[boost::target(e, g)].context, g[e].what);
  return out;
}

bool holds(const std::set<EdgeKey>& run, const WaitChain& c) {
  std::string from = c.op;
  for (const auto& h : c.hops) {
    if (!run.contains({from, h.context, h.what})) return false;
    from = h.context;
  }
  return true;
}


}  // namespace

std::string blocked_site(const Stack& frames) {
  std::vector<std::string_view> site;
  for (auto f = frames.rbegin(); f != frames.rend() && site.size() < 2; ++f)
    if (!frame_matches_any(f->str(), kWaitPrimitives)) site.push_back(base_name(f->str()));
  if (site.empty()) return "(no stack)";
  return site.size() == 1 ? std::string(site[0]) : fmt::format("{} ← {}", site[0], site[1]);
}

WaitChain rank_chains(std::vector<WaitChain> chains) {
  if (chains.empty()) return {};
  double top = 0;
  for (const auto& c : chains) top = std::max(top, c.hops[0].ns);
  auto material = [&](const WaitChain& c) { return c.hops[0].ns >= kMaterialChainShare * top; };
  auto every = [&](const WaitChain& c) { return material(c) && c.runs > 0 && c.runs_held == c.runs; };
  // A total order: the text breaks ties the times leave.
  std::sort(chains.begin(), chains.end(), [&](const WaitChain& x, const WaitChain& y) {
    if (material(x) != material(y)) return material(x);
    if (every(x) != every(y)) return every(x);
    if (x.hops[0].ns != y.hops[0].ns) return x.hops[0].ns > y.hops[0].ns;
    return chain_text(x, 0) < chain_text(y, 0);
  });
  const auto material_n = std::count_if(chains.begin(), chains.end(), material);
  WaitChain chosen = std::move(chains.front());
  if (chains.size() == 1)
    chosen.rule = "the only chain recorded";
  else if (chosen.hops[0].ns >= top)
    chosen.rule = material_n > 1 ? "the longest summed wait of the chains here"
                                 : "the longest summed wait, the others under a tenth of it";
  else
    chosen.rule = "the longest summed wait of the chains held in every run";
  for (std::size_t i = 1; i < chains.size() && material(chains[i]); ++i)
    chosen.others.push_back(std::move(chains[i]));
  return chosen;
}

std::vector<WaitChain> wait_chains(const std::vector<const Profile*>& runs, double min_share) {
  Graph all = build(runs);
  std::vector<std::set<EdgeKey>> per_run;
  for (const Profile* p : runs) per_run.push_back(edge_keys(build({p})));
  std::vector<WaitChain> out;
  for (auto& op : chains_of(all)) {
    for (auto& c : op) {
      c.runs = runs.size();
      c.runs_held = static_cast<std::size_t>(
          std::count_if(per_run.begin(), per_run.end(), [&](const auto& r) { return holds(r, c); }));
    }
    out.push_back(rank_chains(std::move(op)));
  }
  std::sort(out.begin(), out.end(), [](const WaitChain& x, const WaitChain& y) {
    return x.hops[0].ns != y.hops[0].ns ? x.hops[0].ns > y.hops[0].ns : x.op < y.op;
  });
  if (!out.empty() && min_share > 0) {
    double top = out.front().hops[0].ns;
    std::erase_if(out, [&](const WaitChain& c) { return c.hops[0].ns < min_share * top; });
  }
  return out;
}

WaitEdges wait_edges(const Profile& p) {
  Graph g = build({&p});
  WaitEdges out;
  for (auto e : boost::make_iterator_range(boost::edges(g)))
    out[{g[boost::source(e, g)].context, g[boost::target(e, g)].context}] += g[e].ns;
  return out;
}

std::vector<WaitChain> wait_chains(const Profile& p, double min_share) {
  return wait_chains(std::vector<const Profile*>{&p}, min_share);
}

std::string chain_text(const WaitChain& c, double ops) {
  if (c.hops.empty()) return c.op + ": no recorded lock holder";
  const WaitHop& first = c.hops[0];
  std::string s = fmt::format("{} waited {} on {}: held by {}", c.op,
                              ops > 0 ? ns_text(first.ns / ops) + "/op" : ns_text(first.ns),
                              first.what, first.context);
  for (std::size_t i = 1; i < c.hops.size(); ++i) {
    const WaitHop& h = c.hops[i];
    if (h.kind == WaitHop::Wake)
      s += fmt::format("; it slept there {} a run, woken by {}", ns_text(h.ns), h.context);
    else
      s += fmt::format("; it waited {} a run on {}, held by {}", ns_text(h.ns), h.what, h.context);
  }
  if (c.cycle) s += " — a cycle: that context is already on this chain";
  return s;
}

namespace {

// "in 2 of 5 runs"; nothing for one run, where it says nothing.
std::string held_text(const WaitChain& c) {
  return c.runs > 1 ? fmt::format("in {} of {} runs", c.runs_held, c.runs) : "";
}

}  // namespace

std::string chain_choice_text(const WaitChain& c, double ops, std::size_t max_others) {
  if (c.rule.empty()) return "";
  std::string held = held_text(c);
  std::string s = "chosen: " + c.rule + (held.empty() ? "" : ", held " + held);
  std::vector<std::string> also;
  for (std::size_t i = 0; i < c.others.size() && i < max_others; ++i) {
    const WaitChain& o = c.others[i];
    const WaitHop& h = o.hops[0];
    std::string figures = ops > 0 ? ns_text(h.ns / ops) + "/op" : ns_text(h.ns);
    if (std::string in = held_text(o); !in.empty()) figures += ", " + in;
    // the lock only when it is not the chosen chain's
    also.push_back(fmt::format("{}{} ({})", h.context,
                               h.what == c.hops[0].what ? "" : " on " + h.what, figures));
  }
  if (c.others.size() > also.size())
    also.push_back(fmt::format("{} more", c.others.size() - also.size()));
  if (!also.empty()) s += fmt::format("; also: {}", fmt::join(also, "; "));
  return s;
}

}  // namespace fscost
