// Profile → merged tree, straight from the interned stacks: each record of
// for_each_stack walks a trie of frame ids (from where it leaves the record
// before it, which usually shares most of its frames), and the trie becomes
// a FlameNode tree with its children in name order. No stack is joined into
// a folded line, copied into a FlameInput or sorted.
//
// The tree equals flame_tree(flame_input(...)) bit for bit: equal stacks
// merge with the same saturating integer sum, each merged stack's value is
// computed as flame_input computes it, and the values are added up the tree
// in the order merge() adds them (stacks in name order, a stack before those
// it is a prefix of).
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <span>
#include <type_traits>
#include <unordered_map>

#include "flame/drawn.h"
#include "flame/flamegraph.h"
#include "flame/svg.h"
#include "model/child_table.h"
#include "model/parallel.h"
#include "model/units.h"
#include "views/stacks.h"

namespace fscost {

namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

// How one side's merged stack values become the graph's, as flame_input
// (per_op) and flame_input_ns_per_op (factor) compute them.
struct Scale {
  bool per_op = false;
  std::optional<double> factor;
  std::unordered_map<std::uint32_t, double> counts;  // op root's frame id → op count

  double operator()(const Frame& root, std::uint64_t v) const {
    double x = static_cast<double>(v);
    if (per_op) x = x / counts.at(root.id());
    if (factor) x *= *factor;
    return x;
  }
};

class Trie {
 public:
  // `frames`: about how many stack entries will be added (room reserved).
  explicit Trie(std::size_t frames) {
    nodes_.reserve(frames + 1);
    nodes_.push_back(Node{Frame("all")});
  }

  void add(std::span<const Frame> frames, std::uint64_t value) {
    std::size_t common = 0;
    while (common < frames.size() && common < prev_.size() && frames[common] == prev_[common])
      ++common;
    path_.resize(common + 1);
    prev_.resize(common);
    for (std::size_t d = common; d < frames.size(); ++d) {
      path_.push_back(child(path_.back(), frames[d]));
      prev_.push_back(frames[d]);
    }
    Node& end = nodes_[path_.back()];
    add_sat(end.self, value);
  }

  // The merged tree of one side's stacks.
  FlameNode tree(const Scale& scale) const { return merged(*this, Trie(0), {scale, Scale{}}); }

  // The differential tree of side A's trie `a` and side B's `b`: the tree
  // one trie of both would give, value for value. Built apart, each side's
  // stacks arrive in name order (one compare per frame) and the two can be
  // built at once.
  static FlameNode merged(const Trie& a, const Trie& b, const std::array<Scale, 2>& scales) {
    std::vector<std::uint32_t> rank = name_ranks({&a, &b});
    FlameNode root{a.nodes_[0].frame};
    std::vector<FlameNode*> path;
    std::vector<Pair> order;
    merge(a, b, {0, 0}, root, Frame(), scales, rank, path, order);
    return root;
  }

 private:
  struct Node {
    Frame frame;
    std::uint32_t first_child = kNone, next_sibling = kNone, last_child = kNone;
    // Children created in name order so far: a name after the last child's
    // is a new child, found without a search.
    bool sorted = true;
    bool indexed = false;  // children in children_ (many, out of order)
    // Merged value of the stacks ending here; every record adds a value
    // > 0, so 0 is "none ends here".
    std::uint64_t self = 0;
  };

  // The child of `parent` named `f`, made if new. A profile's records come
  // sorted by their frames' text (roots aside), so nearly every stack that
  // leaves the one before it leaves with a name after the last child's:
  // one string compare, no hash. Out of order, the children are searched,
  // through a hash table once they are many.
  std::uint32_t child(std::uint32_t parent, const Frame& f) {
    constexpr std::size_t kIndexAbove = 16;
    Node& p = nodes_[parent];
    if (p.last_child == kNone) return append(parent, f);
    const Frame& last = nodes_[p.last_child].frame;
    if (last == f) return p.last_child;
    if (p.sorted && last.str() < f.str()) return append(parent, f);
    p.sorted = false;
    if (p.indexed) {
      std::uint32_t& at = children_.at(parent, f.id());
      return at != kNone ? at : (at = append(parent, f, false));
    }
    std::size_t n = 0;
    for (std::uint32_t c = p.first_child; c != kNone; c = nodes_[c].next_sibling, ++n)
      if (nodes_[c].frame == f) return c;
    if (n > kIndexAbove) {
      p.indexed = true;
      for (std::uint32_t c = p.first_child; c != kNone; c = nodes_[c].next_sibling)
        children_.at(parent, nodes_[c].frame.id()) = c;
      return children_.at(parent, f.id()) = append(parent, f, false);
    }
    return append(parent, f);
  }

  // A new last child; `index` puts it in children_ if its parent is indexed.
  std::uint32_t append(std::uint32_t parent, const Frame& f, bool index = true) {
    auto c = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back(Node{f});
    Node& p = nodes_[parent];
    (p.last_child == kNone ? p.first_child : nodes_[p.last_child].next_sibling) = c;
    p.last_child = c;
    if (index && p.indexed) children_.at(parent, f.id()) = c;
    return c;
  }

  // Each frame id's rank in name order (kNone for frames in none of the tries).
  static std::vector<std::uint32_t> name_ranks(std::initializer_list<const Trie*> tries) {
    std::vector<std::uint32_t> rank(Frame::pool_size(), kNone);
    std::vector<Frame> seen;
    for (const Trie* t : tries)
      for (const Node& n : t->nodes_)
        if (std::exchange(rank[n.frame.id()], 0) == kNone) seen.push_back(n.frame);
    std::sort(seen.begin(), seen.end(),
              [](const Frame& x, const Frame& y) { return x.str() < y.str(); });
    for (std::size_t r = 0; r < seen.size(); ++r)
      rank[seen[r].id()] = static_cast<std::uint32_t>(r);
    return rank;
  }

  // A node of the merged tree: its node in A's trie and in B's (kNone where
  // that side has no such stack).
  using Pair = std::array<std::uint32_t, 2>;

  // The tree below `at`, its values added up `path` (the FlameNodes from
  // the root down to `out`'s parent) in name order, a stack before those it
  // is a prefix of, A's before B's: as merge() of one trie of both sides
  // would add them. `order` is scratch shared down the recursion.
  static void merge(const Trie& a, const Trie& b, Pair at, FlameNode& out, Frame root,
                    const std::array<Scale, 2>& scales, const std::vector<std::uint32_t>& rank,
                    std::vector<FlameNode*>& path, std::vector<Pair>& order) {
    const Trie* side_trie[2] = {&a, &b};
    path.push_back(&out);
    for (int side = 0; side < 2; ++side) {
      if (at[side] == kNone) continue;
      std::uint64_t self = side_trie[side]->nodes_[at[side]].self;
      if (self == 0) continue;
      double v = scales[side](root, self);
      for (FlameNode* p : path) (side ? p->value_b : p->value) += v;
    }
    // Each side's children in name order (as added, unless some came out
    // of order), then joined by name; both lists at the end of `order`.
    const std::size_t first = order.size();
    std::array<std::size_t, 3> from{first, first, first};
    for (int side = 0; side < 2; ++side) {
      from[side] = order.size();
      if (at[side] == kNone) continue;
      const auto& nodes = side_trie[side]->nodes_;
      for (std::uint32_t c = nodes[at[side]].first_child; c != kNone; c = nodes[c].next_sibling)
        order.push_back({c, 0});
      if (!nodes[at[side]].sorted)
        std::sort(order.begin() + static_cast<std::ptrdiff_t>(from[side]), order.end(),
                  [&](const Pair& x, const Pair& y) {
                    return rank[nodes[x[0]].frame.id()] < rank[nodes[y[0]].frame.id()];
                  });
    }
    from[2] = order.size();
    auto rank_of = [&](int side, std::size_t i) {
      return rank[side_trie[side]->nodes_[order[i][0]].frame.id()];
    };
    for (std::size_t i = from[0], j = from[1]; i < from[1] || j < from[2];) {
      const std::uint32_t ra = i < from[1] ? rank_of(0, i) : kNone;
      const std::uint32_t rb = j < from[2] ? rank_of(1, j) : kNone;
      order.push_back({ra <= rb ? order[i][0] : kNone, rb <= ra ? order[j][0] : kNone});
      i += ra <= rb;
      j += rb <= ra;
    }
    // The joined list moves to `first`, where the two were.
    std::copy(order.begin() + static_cast<std::ptrdiff_t>(from[2]), order.end(),
              order.begin() + static_cast<std::ptrdiff_t>(first));
    order.resize(first + (order.size() - from[2]));
    out.children.reserve(order.size() - first);
    for (std::size_t k = first; k < order.size(); ++k) {
      const Pair c = order[k];
      out.children.push_back(
          FlameNode{c[0] != kNone ? a.nodes_[c[0]].frame : b.nodes_[c[1]].frame});
    }
    for (std::size_t k = 0; k < out.children.size(); ++k) {
      const Pair c = order[first + k];  // a reference into `order` may dangle once it grows
      merge(a, b, c, out.children[k], at[0] == 0 && at[1] == 0 ? out.children[k].name : root,
            scales, rank, path, order);
    }
    order.resize(first);
    path.pop_back();
  }

  std::vector<Node> nodes_;  // [0] is "all"
  ChildTable children_;  // (parent, frame id) → child, of indexed parents only
  std::vector<std::uint32_t> path_{0};  // nodes of the previous stack, "all" first
  Stack prev_;                          // its frames
};

// Adds `p`'s stacks of `view` to `sink` (a Trie or Records); returns how
// its values scale and the roots per_op left out.
template <typename Sink>
Scale add_profile(Sink& sink, const Profile& p, View view, const std::optional<std::string>& op,
                  bool per_op, SkippedRoots& skipped) {
  Scale scale;
  scale.per_op = per_op;
  // As per_operation: the last op of a name counts.
  std::map<std::string, std::uint64_t> by_name;
  for (const auto& o : p.ops) by_name[o.name] = o.count;
  std::unordered_map<std::uint32_t, bool> kept;  // root frame id → kept
  FoldedFrames ff;
  for_each_stack(p, view, {op, false}, ff, [&](const StackRecord& r) {
    if (per_op) {
      const Frame& root = r.frames.front();
      auto [it, added] = kept.try_emplace(root.id(), false);
      if (added) {
        auto c = by_name.find(root.str());
        it->second = c != by_name.end() && c->second > 0;
        if (it->second)
          scale.counts[root.id()] = static_cast<double>(c->second);
      }
      if (!it->second) {
        skipped.add(root.str());
        return;
      }
    }
    sink.add(r.frames, r.value);
  });
  return scale;
}

// A view's records flat, to be visited in tree order (flame/drawn.h)
// with no trie: one array of frame ids for all records (4 bytes a stack
// entry, turned into name ranks in place), a value each. A profile's
// records usually come in tree order already (the recorder writes them
// sorted), else they are sorted by their ranks.
class Records {
 public:
  // `frames`: about how many stack entries will be added (room reserved).
  explicit Records(std::size_t frames) { keys_.reserve(frames); }

  void add(std::span<const Frame> frames, std::uint64_t value) {
    start_.push_back(keys_.size());
    for (const Frame& f : frames) {
      if (f.id() >= frame_of_.size()) frame_of_.resize(Frame::pool_size());
      frame_of_[f.id()] = f;
      keys_.push_back(f.id());
    }
    values_.push_back(value);
  }

  // Puts the records in tree order, equal stacks merged as the trie merges
  // them; call once, after the last add.
  void order() {
    start_.push_back(keys_.size());
    std::vector<std::uint32_t> rank(frame_of_.size(), kNone);
    for (std::uint32_t id : keys_)
      if (std::exchange(rank[id], 0) == kNone) by_rank_.push_back(frame_of_[id]);
    std::sort(by_rank_.begin(), by_rank_.end(),
              [](const Frame& x, const Frame& y) { return x.str() < y.str(); });
    for (std::size_t r = 0; r < by_rank_.size(); ++r)
      rank[by_rank_[r].id()] = static_cast<std::uint32_t>(r);
    for (std::uint32_t& k : keys_) k = rank[k];
    std::vector<std::size_t> order(values_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    auto less = [&](std::size_t x, std::size_t y) {
      return std::ranges::lexicographical_compare(key(x), key(y));
    };
    if (!std::is_sorted(order.begin(), order.end(), less))
      sort_by_keys(order.data(), order.data() + order.size(), 0);
    for (std::size_t i = 0; i < order.size();) {
      std::pair<std::size_t, std::uint64_t> d{order[i], 0};
      for (; i < order.size() && std::ranges::equal(key(order[i]), key(d.first)); ++i)
        add_sat(d.second, values_[order[i]]);
      distinct_.push_back(d);
    }
  }

  // Calls add(frames, scale(root, merged value)) for each distinct stack
  // in tree order.
  void visit(const Scale& scale, const flame::StackSink& add) const {
    Stack frames;
    for (const auto& [r, self] : distinct_) {
      frames.clear();
      for (std::uint32_t k : key(r)) frames.push_back(by_rank_[k]);
      add(frames, scale(frames.front(), self));
    }
  }

  // Renumbers both sides' ranks to one name order of both sides' frames
  // (a frame both have is one rank); returns the frames by that rank.
  static std::vector<Frame> rank_both(std::array<Records*, 2> side) {
    std::vector<Frame> names;
    std::array<std::vector<std::uint32_t>, 2> to;
    const auto& na = side[0]->by_rank_;
    const auto& nb = side[1]->by_rank_;
    to[0].resize(na.size());
    to[1].resize(nb.size());
    for (std::size_t i = 0, j = 0; i < na.size() || j < nb.size();) {
      const bool take_a = j == nb.size() || (i < na.size() && na[i].str() <= nb[j].str());
      const bool take_b = i == na.size() || (j < nb.size() && nb[j].str() <= na[i].str());
      const auto rank = static_cast<std::uint32_t>(names.size());
      names.push_back(take_a ? na[i] : nb[j]);
      if (take_a) to[0][i++] = rank;
      if (take_b) to[1][j++] = rank;
    }
    for (int k = 0; k < 2; ++k)
      for (std::uint32_t& r : side[k]->keys_) r = to[k][r];
    return names;
  }

  // Both sides' distinct stacks in one tree order, each side's in its
  // own, after rank_both: add(frames, scale(root, merged value), b). A
  // stack both sides have comes as A's, then B's.
  static void visit_both(std::array<const Records*, 2> side, const std::vector<Frame>& names,
                         const std::array<Scale, 2>& scales, const DiffStackSink& add) {
    Stack frames;
    auto emit = [&](int k, std::size_t d) {
      const Records& r = *side[k];
      frames.clear();
      for (std::uint32_t x : r.key(r.distinct_[d].first)) frames.push_back(names[x]);
      add(frames, scales[k](frames.front(), r.distinct_[d].second), k == 1);
    };
    const std::size_t n[2] = {side[0]->distinct_.size(), side[1]->distinct_.size()};
    for (std::size_t i = 0, j = 0; i < n[0] || j < n[1];) {
      const bool a_first =
          j == n[1] || (i < n[0] && !std::ranges::lexicographical_compare(
                                        side[1]->key(side[1]->distinct_[j].first),
                                        side[0]->key(side[0]->distinct_[i].first)));
      if (a_first)
        emit(0, i++);
      else
        emit(1, j++);
    }
  }

 private:
  std::span<const std::uint32_t> key(std::size_t r) const {
    return {keys_.data() + start_[r], start_[r + 1] - start_[r]};
  }

  // Orders records [lo, hi), whose keys agree before `depth`, as
  // lexicographical_compare orders their keys: Bentley and Sedgewick's
  // multikey quicksort, which reads each record's entry at a depth once
  // per partition there, where a comparison sort re-reads the shared
  // prefix at every comparison (stacks share long ones). As introsort, it
  // recurses only into the two smaller parts (each at most half: a stack of
  // log n frames) and hands a range to std::sort after 2 log n pivots that
  // left the most records at the same depth (adversarial input).
  void sort_by_keys(std::size_t* lo, std::size_t* hi, std::size_t depth) const {
    sort_by_keys(lo, hi, depth, 2 * std::bit_width(static_cast<std::size_t>(hi - lo)));
  }

  void sort_by_keys(std::size_t* lo, std::size_t* hi, std::size_t depth, int budget) const {
    // A record's entry at `depth`; one that ended sorts first.
    auto at = [&](std::size_t r) -> std::int64_t {
      const std::size_t n = start_[r + 1] - start_[r];
      return depth < n ? std::int64_t{keys_[start_[r] + depth]} : -1;
    };
    while (hi - lo > 1) {
      if (hi - lo <= 16 || budget == 0) {
        std::sort(lo, hi, [&](std::size_t x, std::size_t y) {
          return std::ranges::lexicographical_compare(key(x).subspan(depth),
                                                      key(y).subspan(depth));
        });
        return;
      }
      std::int64_t a = at(*lo), b = at(lo[(hi - lo) / 2]), c = at(hi[-1]);
      const std::int64_t pivot = std::max(std::min(a, b), std::min(std::max(a, b), c));
      std::size_t *lt = lo, *i = lo, *gt = hi;
      while (i < gt) {
        const std::int64_t v = at(*i);
        if (v < pivot)
          std::swap(*lt++, *i++);
        else if (v > pivot)
          std::swap(*i, *--gt);
        else
          ++i;
      }
      // [lo, lt) and [gt, hi) at this depth; [lt, gt) at the next, unless
      // its keys ended here (equal). The largest part is looped on.
      struct Part {
        std::size_t *lo, *hi;
        bool next;
      };
      std::array<Part, 3> parts = {Part{lo, lt, false}, Part{gt, hi, false},
                                   Part{lt, pivot < 0 ? lt : gt, true}};
      std::ranges::sort(parts, std::greater{}, [](const Part& p) { return p.hi - p.lo; });
      for (const Part& p : std::span(parts).subspan(1))
        sort_by_keys(p.lo, p.hi, depth + p.next, budget);
      lo = parts[0].lo;
      hi = parts[0].hi;
      depth += parts[0].next;
      budget -= !parts[0].next;  // a pivot that left most records at this depth
    }
  }

  std::vector<std::uint32_t> keys_;  // every record's frames: ids, then name ranks
  std::vector<std::size_t> start_;   // record → its first key; then one past the last
  std::vector<std::uint64_t> values_;
  std::vector<Frame> frame_of_;  // by id, the frames seen
  std::vector<Frame> by_rank_;
  std::vector<std::pair<std::size_t, std::uint64_t>> distinct_;  // first record, merged value
};

// About how many stack entries `view` of `p` adds: its records' frames.
std::size_t frames_of(const Profile& p, View view) {
  std::size_t n = 0;
  switch (view) {
    case View::OnCpu:
      for (const auto& s : p.samples) n += s.frames.size() + 1;
      break;
    case View::OffCpu:
      for (const auto& s : p.offcpu) n += s.frames.size() + s.waker_frames.size() + 4;
      break;
    case View::Locks:
      for (const auto& s : p.locks) n += s.frames.size() + 2;
      break;
  }
  return n;
}

}  // namespace

FlameTree flame_tree(const Profile& p, View view, const std::optional<std::string>& op,
                     bool per_op) {
  Trie trie(frames_of(p, view));
  SkippedRoots skipped;
  Scale scale = add_profile(trie, p, view, op, per_op, skipped);
  return {trie.tree(scale), skipped.reasons()};
}

std::string render_profile_svg(const Profile& p, View view, const std::optional<std::string>& op,
                               bool per_op, const SvgOptions& opt) {
  Records records(frames_of(p, view));
  SkippedRoots skipped;
  const Scale scale = add_profile(records, p, view, op, per_op, skipped);
  records.order();
  flame::DrawnGraph g =
      flame::drawn_graph([&](const flame::StackSink& add) { records.visit(scale, add); },
                         opt.width - 2 * flame::kPadX, opt.min_width_px);
  return flame::render_layout_svg(g.lay, skipped.reasons(), opt);
}

namespace {

// Each side's stacks added to its own sink (a Trie or Records), on its
// own thread; how each side's values scale.
template <typename Sink>
std::array<Scale, 2> add_sides(std::array<std::optional<Sink>, 2>& sink, const Profile& a,
                               const Profile& b, View view, const std::optional<std::string>& op,
                               bool per_op, std::array<std::optional<double>, 2> factor) {
  const Profile* side[2] = {&a, &b};
  std::array<Scale, 2> scales;
  parallel_for(2, [&](std::size_t i) {
    sink[i].emplace(frames_of(*side[i], view));
    SkippedRoots unused;
    scales[i] = add_profile(*sink[i], *side[i], view, op, per_op, unused);
    scales[i].factor = factor[i];
    if constexpr (std::is_same_v<Sink, Records>) sink[i]->order();
  });
  return scales;
}

FlameNode diff_tree(const Profile& a, const Profile& b, View view,
                    const std::optional<std::string>& op, bool per_op,
                    std::array<std::optional<double>, 2> factor) {
  std::array<std::optional<Trie>, 2> trie;
  const std::array<Scale, 2> scales = add_sides(trie, a, b, view, op, per_op, factor);
  return Trie::merged(*trie[0], *trie[1], scales);
}

// The same graph as DiffGraph(diff_tree(...), opt), from each side's
// records in tree order: no node made but those kept.
DiffGraph diff_graph(const Profile& a, const Profile& b, View view,
                     const std::optional<std::string>& op, bool per_op,
                     std::array<std::optional<double>, 2> factor, DiffOptions opt) {
  std::array<std::optional<Records>, 2> records;
  const std::array<Scale, 2> scales = add_sides(records, a, b, view, op, per_op, factor);
  const std::vector<Frame> names = Records::rank_both({&*records[0], &*records[1]});
  // Merged once, for both of DiffGraph's passes: the stacks back to back.
  std::vector<Frame> frames;
  std::vector<std::size_t> start;
  std::vector<double> values;
  std::vector<bool> is_b;
  frames.reserve(frames_of(a, view) + frames_of(b, view));
  Records::visit_both({&*records[0], &*records[1]}, names, scales,
                      [&](std::span<const Frame> f, double v, bool b) {
                        start.push_back(frames.size());
                        frames.insert(frames.end(), f.begin(), f.end());
                        values.push_back(v);
                        is_b.push_back(b);
                      });
  start.push_back(frames.size());
  return DiffGraph(
      [&](const DiffStackSink& add) {
        for (std::size_t i = 0; i < values.size(); ++i)
          add({frames.data() + start[i], start[i + 1] - start[i]}, values[i], is_b[i]);
      },
      std::move(opt));
}

// Each side's factor from samples to ns (on-CPU: its sampling period;
// other views are in ns already); nullopt without a sampling rate.
std::optional<std::array<std::optional<double>, 2>> ns_factors(const Profile& a, const Profile& b,
                                                               View view) {
  if (view != View::OnCpu) return std::array<std::optional<double>, 2>{};
  if (a.meta.freq_hz == 0 || b.meta.freq_hz == 0) return std::nullopt;
  return std::array<std::optional<double>, 2>{1e9 / a.meta.freq_hz, 1e9 / b.meta.freq_hz};
}

}  // namespace

DiffGraph diff_graph(const Profile& a, const Profile& b, View view,
                     const std::optional<std::string>& op, bool per_op, DiffOptions opt) {
  return diff_graph(a, b, view, op, per_op, {}, std::move(opt));
}

std::optional<DiffGraph> diff_graph_ns_per_op(const Profile& a, const Profile& b, View view,
                                              const std::optional<std::string>& op,
                                              DiffOptions opt) {
  auto factor = ns_factors(a, b, view);
  if (!factor) return std::nullopt;
  return diff_graph(a, b, view, op, true, *factor, std::move(opt));
}

FlameNode flame_diff_tree(const Profile& a, const Profile& b, View view,
                          const std::optional<std::string>& op, bool per_op) {
  return diff_tree(a, b, view, op, per_op, {});
}

std::optional<FlameNode> flame_diff_tree_ns_per_op(const Profile& a, const Profile& b, View view,
                                                   const std::optional<std::string>& op) {
  auto factor = ns_factors(a, b, view);
  if (!factor) return std::nullopt;
  return diff_tree(a, b, view, op, true, *factor);
}

}  // namespace fscost
