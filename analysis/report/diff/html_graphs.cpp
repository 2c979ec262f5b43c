// The diff page's differential flame graphs: per operation and view, the
// mean stacks of A's runs against B's, coloured by delta where the diff's
// statistics call the change significant and grey where they do not.
#include "report/diff/html_graphs.h"

#include <fmt/format.h>

#include <functional>
#include <memory>
#include <string_view>
#include <unordered_map>

#include "flame/flamegraph.h"
#include "io/folded.h"
#include "diff/mean_stacks.h"
#include "report/report.h"

namespace fscost::html {

namespace {

using Path = std::span<const std::string_view>;
using Hook = std::function<std::optional<bool>(Path)>;

// A hook is asked once per frame of every graph (~60k in a large one), so
// its name tables hash, looked up by string_view without a copy.
struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <typename T>
using ByName = std::unordered_map<std::string, T, NameHash, std::equal_to<>>;

std::optional<bool> tested(const Comparison& c) {
  if (c.verdict == Verdict::TooFewRuns) return std::nullopt;
  return c.significant();
}

// Either of two comparisons significant; untested if either is.
std::optional<bool> either(const Comparison& x, const Comparison& y) {
  auto a = tested(x), b = tested(y);
  if (!a || !b) return std::nullopt;
  return *a || *b;
}

Hook oncpu_hook(const OpDiff& op) {
  auto by_name = std::make_shared<ByName<const Comparison*>>();
  for (const auto& f : op.functions) by_name->emplace(folded_frame(f.name), &f.inclusive);
  return [&op, by_name](Path path) -> std::optional<bool> {
    if (path.size() <= 1) return tested(op.oncpu);
    auto it = by_name->find(path.back());
    return it == by_name->end() ? std::nullopt : tested(*it->second);
  };
}

Hook offcpu_hook(const OpDiff& op) {
  return [&op](Path path) -> std::optional<bool> {
    if (path.size() <= 1) return tested(op.offcpu);
    std::string_view f = path[1];  // "[io]", "[lock]", ...
    if (f.size() < 2 || f.front() != '[' || f.back() != ']') return std::nullopt;
    auto it = op.offcpu_by_class.find(std::string(f.substr(1, f.size() - 2)));
    return it == op.offcpu_by_class.end() ? std::nullopt : tested(it->second);
  };
}

// A name may stand for several LockDiffs (one per lock type): significant
// if any of them is.
Hook locks_hook(const OpDiff& op) {
  auto by_name = std::make_shared<ByName<std::optional<bool>>>();
  for (const auto& l : op.locks) {
    auto [it, fresh] = by_name->emplace(folded_frame(l.name), tested(l.wait));
    if (!fresh && it->second) {
      auto t = tested(l.wait);
      it->second = t ? std::optional(*it->second || *t) : std::nullopt;
    }
  }
  return [&op, by_name](Path path) -> std::optional<bool> {
    if (path.size() <= 1) return either(op.spin, op.sleep);
    auto it = by_name->find(path[1]);
    return it == by_name->end() ? std::nullopt : it->second;
  };
}

bool has_data(const FlameInput& in) {
  for (const auto& s : in.stacks)
    if (s.second > 0) return true;
  return false;
}

std::string_view lower_title(View view) {
  switch (view) {
    case View::OffCpu:
      return "off-CPU";
    case View::Locks:
      return "lock wait";
    case View::OnCpu:
      break;
  }
  return "on-CPU";
}

std::string side(const RunSet& r) {
  return fmt::format("{} ({} run{}, mean)", r.label, r.runs.size(), r.runs.size() == 1 ? "" : "s");
}

// A graph before drawing; its stacks are the diff's mean stacks.
struct Pending {
  GraphSet* set = nullptr;
  View view;
  std::string id;
  const FlameInput* a = nullptr;
  const FlameInput* b = nullptr;
  DiffOptions opt;
  std::unique_ptr<DiffGraph> graph;  // made when first measured, kept to draw
};

void plan_set(const OpDiff& op, const RunSet& a, const RunSet& b, const MeanStacks& sa,
              const MeanStacks& sb, const DiffHtmlOptions& opt, GraphSet& set,
              std::set<std::string>& ids, std::vector<Pending>& pending) {
  for (View view : kViews) {
    const FlameInput& in_a = sa.get(view, op.op);
    const FlameInput& in_b = sb.get(view, op.op);
    if (!has_data(in_a) && !has_data(in_b)) continue;
    DiffOptions d;
    d.svg.title =
        fmt::format("Differential {} flame graph: {}, per operation", lower_title(view), op.op);
    d.svg.subtitle = fmt::format("A: {} | B: {}", side(a), side(b));
    d.svg.unit = "ns/op";
    d.svg.width = opt.graph_width;
    d.significant = significance_hook(op, view);
    pending.push_back(
        {&set, view, unique_id(fmt::format("{}-{}", set.id, view_name(view)), ids), &in_a, &in_b, std::move(d), nullptr});
  }
}

// The kernel threads' graph: a root "[kthread:<bucket>]" by its buckets'
// comparison of the view (a CPU root names the workqueue only, so any of
// its work functions counts); frames below it have none.
Hook background_hook(const Diff& d, View view) {
  return [&d, view](Path path) -> std::optional<bool> {
    if (path.empty()) return std::nullopt;
    std::string_view root = path[0];
    if (!root.starts_with("[kthread:") || !root.ends_with(']') || path.size() > 1)
      return std::nullopt;
    std::string_view name = root.substr(9, root.size() - 10);
    std::optional<bool> out;
    for (const auto& bg : d.background) {
      std::string_view b = bg.name;
      if (b != name && !(b.starts_with(name) && b.substr(name.size()).starts_with(": "))) continue;
      const Comparison& c = view == View::OnCpu    ? bg.cpu
                            : view == View::OffCpu ? bg.offcpu
                                                   : bg.lock_wait;
      auto t = tested(c);
      if (!t) return std::nullopt;
      out = out.value_or(false) || *t;
    }
    return out;
  };
}

void plan_background(const Diff& d, const RunSet& a, const RunSet& b, const MeanStacks& sa,
                     const MeanStacks& sb, const DiffHtmlOptions& opt, GraphSet& set,
                     std::set<std::string>& ids, std::vector<Pending>& pending) {
  for (View view : kViews) {
    const FlameInput& in_a = sa.background(view);
    const FlameInput& in_b = sb.background(view);
    if (!has_data(in_a) && !has_data(in_b)) continue;
    DiffOptions o;
    o.svg.title = fmt::format("Differential {} flame graph: kernel threads, per run",
                              lower_title(view));
    o.svg.subtitle = fmt::format("A: {} | B: {}", side(a), side(b));
    o.svg.unit = "ns";
    o.svg.width = opt.graph_width;
    o.significant = background_hook(d, view);
    pending.push_back({&set, view, unique_id(fmt::format("{}-{}", set.id, view_name(view)), ids),
                       &in_a, &in_b, std::move(o), nullptr});
  }
}

}  // namespace

Hook significance_hook(const OpDiff& op, View view) {
  switch (view) {
    case View::OffCpu:
      return offcpu_hook(op);
    case View::Locks:
      return locks_hook(op);
    case View::OnCpu:
      break;
  }
  return oncpu_hook(op);
}

std::vector<GraphSet> diff_graph_sets(const Diff& d, const RunSet& a, const RunSet& b,
                                      const DiffHtmlOptions& opt, std::set<std::string>& ids) {
  // A Diff from diff_runs carries the stacks it explained; one made
  // otherwise gets them here. Held here: Pending points into them.
  auto sa = d.stacks_a ? d.stacks_a : std::make_shared<const MeanStacks>(mean_stacks_of(a));
  auto sb = d.stacks_b ? d.stacks_b : std::make_shared<const MeanStacks>(mean_stacks_of(b));
  std::vector<GraphSet> sets;
  sets.reserve(d.ops.size() + 1);  // Pending points into it
  for (const auto& op : d.ops)
    sets.push_back({unique_id("graphs-" + op.op, ids), op.op, op.op, {}});
  std::vector<Pending> pending;
  for (std::size_t i = 0; i < d.ops.size(); ++i)
    plan_set(d.ops[i], a, b, *sa, *sb, opt, sets[i], ids, pending);
  // The work the runs caused outside their operations, last.
  sets.push_back({unique_id("graphs-kernel-threads", ids), "kernel threads", std::nullopt, {}});
  std::size_t before = pending.size();
  plan_background(d, a, b, *sa, *sb, opt, sets.back(), ids, pending);
  if (pending.size() == before) sets.pop_back();
  std::vector<GraphSlot> slots;
  for (const auto& g : pending) slots.push_back({g.set, g.view, g.id, g.opt.svg.min_width_px});
  auto graph = [&](std::size_t i) -> DiffGraph& {
    Pending& p = pending[i];
    if (!p.graph) p.graph = std::make_unique<DiffGraph>(*p.a, *p.b, p.opt);
    return *p.graph;
  };
  place_graphs(
      sets, slots, [&](std::size_t i, double px) { return graph(i).render(px); }, opt.max_bytes,
      [&](std::size_t i, double px) { return graph(i).size(px); });
  return sets;
}

}  // namespace fscost::html
