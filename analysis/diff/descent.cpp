// Testing down the differential call tree. A flat family of every
// function's cost (~2000 under a create) spends its power on the many
// tests, and each test carries the run-to-run drift of the whole op: a
// busy host slows every function of a run together. Here a node's
// children are tested on their *share of the node's samples*, run by run
// (the count test with the node's samples as exposure): the drift the
// children share cancels, and what is left is sampling noise. A node's
// children form one Benjamini–Hochberg family, tested only under a node
// whose own share changed (or under a node with a single child, which
// carries all of it): Yekutieli's hierarchical procedure, so an A-vs-A
// diff's first family holds its false discoveries to alpha, and a
// deeper one is reached only through a discovery (docs/DIFF.md, "Down the
// call tree").
#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <unordered_map>

#include "diff/internal.h"
#include "diff/stability.h"  // the jackknife's keys
#include "model/child_table.h"
#include "model/frame_match.h"  // function_family
#include "model/parallel.h"
#include "views/stacks.h"  // FoldedFrames

namespace fscost {

namespace {

// A child needs this many samples on both sides together to be tested: one
// with fewer cannot reach any threshold, and would only grow the family.
constexpr double kMinSamples = 4;
// The weight of a family's common dispersion in each child's, in degrees
// of freedom: a child's own 5+5 runs give it 8, so the family's counts a
// little more than twice as much as the child's own (a child that varies
// far more than its siblings still shows it).
constexpr double kPriorDf = 20;
// A share that moved is reported where the node's own cost per op moved
// the same way by at least this much.
constexpr double kMaterial = 0.10;
// Down to this depth below the op (stacks are at most 127 kernel frames).
constexpr std::size_t kMaxDepth = 128;

// One op's stacks of every run of both sides, merged: per node, its
// inclusive samples in each run (A's runs first). 2 × 10 runs of 100k
// stacks make millions of nodes, so a node is small: its counts a row of
// one flat table of 32-bit sample counts (not a vector of doubles each),
// its children one flat array after finish() (a node's children are the
// nodes with it as parent, in the order they were made). A stack's samples go to its own node, found by the stack's
// pool id (the same stacks recur in every run: one lookup, not one per
// frame), and finish() sums every node into its parent once,
// instead of every add walking and adding along its path. Counts are
// integers: any order of summing gives the same values.
class RunTrie {
 public:
  explicit RunTrie(std::size_t runs) : runs_(runs) { new_node(Frame(), 0); }

  void add(std::size_t run, const InternedStack& stack, std::uint64_t count, FoldedFrames& ff) {
    std::uint32_t& at = node_of_[stack];
    if (at == 0)  // the root stands for the empty stack alone, which needs no walk
      for (const Frame& f : std::span(stack.data(), std::min(stack.size(), kMaxDepth)))
        at = child(at, ff.frame(f));
    add_checked(counts_[at * runs_ + run], count);
  }

  // Turns each node's own samples into its inclusive samples and lays the
  // children out flat. Once, after the last add and before node(): a
  // child's number is above its parent's. The build's indexes go.
  void finish() {
    for (std::size_t i = frames_.size(); i-- > 1;) {
      std::uint32_t* parent = &counts_[parents_[i] * runs_];
      const std::uint32_t* own = &counts_[i * runs_];
      for (std::size_t r = 0; r < runs_; ++r) add_checked(parent[r], own[r]);
    }
    // Children by parent (a counting sort of parents_), each parent's in
    // the order they were made.
    kid_start_.assign(frames_.size() + 1, 0);
    for (std::size_t i = 1; i < frames_.size(); ++i) ++kid_start_[parents_[i] + 1];
    for (std::size_t n = 0; n < frames_.size(); ++n) kid_start_[n + 1] += kid_start_[n];
    kids_.resize(frames_.size() - 1);
    std::vector<std::uint32_t> next(kid_start_.begin(), kid_start_.end() - 1);
    for (std::size_t i = 1; i < frames_.size(); ++i)
      kids_[next[parents_[i]]++] = static_cast<std::uint32_t>(i);
    children_ = ChildTable(1);
    node_of_ = StackMemo<std::uint32_t>();
  }

  struct Node {
    Frame frame;
    std::span<const std::uint32_t> kids;
    std::span<const std::uint32_t> counts;  // per run
  };
  Node node(std::uint32_t i) const {
    return {frames_[i],
            std::span<const std::uint32_t>(kids_).subspan(kid_start_[i], kid_start_[i + 1] - kid_start_[i]),
            std::span<const std::uint32_t>(counts_).subspan(i * runs_, runs_)};
  }
  std::size_t size() const { return frames_.size(); }
  std::uint32_t parent(std::uint32_t i) const { return parents_[i]; }

 private:
  // 2^32 samples of one run under one node: 50 days of one CPU at 997 Hz.
  static void add_checked(std::uint32_t& to, std::uint64_t n) {
    if (n > UINT32_MAX - to)
      throw UserError("a run has more than 2^32 samples under one call path",
                      "diff shorter recordings, or record at a lower --freq");
    to += static_cast<std::uint32_t>(n);
  }

  std::uint32_t new_node(const Frame& f, std::uint32_t parent) {
    frames_.push_back(f);
    parents_.push_back(parent);
    counts_.resize(counts_.size() + runs_, 0);
    return static_cast<std::uint32_t>(frames_.size() - 1);
  }

  std::uint32_t child(std::uint32_t parent, const Frame& f) {
    std::uint32_t& at = children_.at(parent, f.id());
    if (at == ChildTable::kNone) at = new_node(f, parent);
    return at;
  }

  std::size_t runs_;
  std::vector<Frame> frames_;
  std::vector<std::uint32_t> parents_;
  std::vector<std::uint32_t> counts_;  // node × runs: own samples, inclusive after finish()
  ChildTable children_;
  StackMemo<std::uint32_t> node_of_;  // a stack's node; 0 = not seen yet
  // After finish(): node n's children are kids_[kid_start_[n], kid_start_[n + 1]).
  std::vector<std::uint32_t> kids_, kid_start_;
};

// An op's stacks, or a kernel-thread bucket's (ns per run, not per op).
struct OpInput {
  std::string op;
  RunTrie trie;
  std::vector<double> ns_per_sample;  // per run: 1e9 / freq / operations (0 if unknown)
  const char* unit = "ns/op";
};

// Per node of a finished trie, each side's sums over all its runs: the
// node's samples, and Σ k²/e with e its caller's samples in the run (runs
// where the caller has none add nothing: the node has none there either).
// A descent without one run takes that run's term off (Columns): the
// jackknife's 2 × runs descents of one tree then test a child in O(1), not
// O(runs) (stats::count_screen_sums).
class TrieSums {
 public:
  TrieSums(const RunTrie& t, std::size_t na) : na_(na) {
    for (int s = 0; s < 2; ++s) {
      samples_[s].assign(t.size(), 0);
      squares_[s].assign(t.size(), 0);
    }
    for (std::uint32_t n = 0; n < t.size(); ++n) {
      const auto counts = t.node(n).counts;
      const auto caller = t.node(t.parent(n)).counts;
      for (std::size_t r = 0; r < counts.size(); ++r) {
        const int s = r < na ? 0 : 1;
        const double k = counts[r];
        samples_[s][n] += k;
        if (n != 0 && caller[r] > 0) squares_[s][n] += k * k / caller[r];
      }
    }
  }
  std::size_t na() const { return na_; }
  double samples(int side, std::uint32_t n) const { return samples_[side][n]; }
  double squares(int side, std::uint32_t n) const { return squares_[side][n]; }

 private:
  std::size_t na_;
  std::vector<double> samples_[2], squares_[2];
};

// The runs a descent reads: every column of the trie, or all but one (the
// jackknife's leave-one-out, stability.h, on the trie built once). A node
// no kept run sampled is no node of that descent: a trie built without the
// run would not have it.
class Columns {
 public:
  using Counts = std::span<const std::uint32_t>;

  // Every run; A's are the first `na`.
  Columns(const RunTrie& t, std::size_t na) : runs_(t.node(0).counts.size()), na_(na) {}
  // Every run but `skip`; `sums`, the trie's (kept by the caller).
  Columns(const RunTrie& t, const TrieSums& sums, std::size_t skip)
      : runs_(t.node(0).counts.size()),
        na_(sums.na() - (skip < sums.na() ? 1 : 0)),
        skip_(skip),
        sums_(&sums) {
    live_.resize(t.size());
    for (std::uint32_t n = 0; n < t.size(); ++n) {
      live_[n] = total(n, t.node(n).counts) > 0;
      live_count_ += live_[n];
    }
  }

  std::size_t na() const { return na_; }
  std::size_t nb() const { return kept() - na_; }
  // The kept runs' columns, A's first.
  std::size_t kept() const { return runs_ - (all() ? 0 : 1); }
  bool live(std::uint32_t n) const { return all() || live_[n]; }
  // Nodes of this descent's tree (`t`'s, for every run).
  std::size_t nodes(const RunTrie& t) const { return all() ? t.size() : live_count_; }

  // Kept run k's column.
  std::size_t column(std::size_t k) const { return all() || k < skip_ ? k : k + 1; }
  double total(Counts v) const {
    double s = 0;
    for (std::size_t r = 0; r < v.size(); ++r)
      if (r != skip_) s += v[r];
    return s;
  }
  // total(v) of node `n` (whose counts `v` are), from the sums where there
  // are: integers, so the same value.
  double total(std::uint32_t n, Counts v) const {
    if (!sums_) return total(v);
    return sums_->samples(0, n) + sums_->samples(1, n) - (all() ? 0 : v[skip_]);
  }
  // With a run left out: child `k`'s side sums for the count test, its
  // caller `n`'s samples as exposure, that run's terms taken off.
  bool has_sums() const { return sums_ != nullptr; }
  stats::CountSums side_sums(std::uint32_t k, Counts kc, std::uint32_t n, Counts nc, bool b) const {
    const int s = b ? 1 : 0;
    stats::CountSums c{b ? nb() : na_, sums_->samples(s, k), sums_->samples(s, n),
                       sums_->squares(s, k)};
    if ((skip_ >= sums_->na()) == b) {  // the run left out is this side's
      const double kr = kc[skip_], er = nc[skip_];
      c.samples -= kr;
      c.exposure -= er;
      if (er > 0) c.squares -= kr * kr / er;
    }
    return c;
  }
  double side_total(Counts v, bool b) const {
    double s = 0;
    for (std::size_t k = b ? na_ : 0, end = b ? kept() : na_; k < end; ++k) s += v[column(k)];
    return s;
  }
  void side_values(Counts v, bool b, std::vector<double>& out) const {
    out.clear();
    for (std::size_t k = b ? na_ : 0, end = b ? kept() : na_; k < end; ++k)
      out.push_back(v[column(k)]);
  }
  std::vector<double> side_values(Counts v, bool b) const {
    std::vector<double> out;
    side_values(v, b, out);
    return out;
  }
  bool same(Counts x, Counts y) const {
    for (std::size_t r = 0; r < x.size(); ++r)
      if (r != skip_ && x[r] != y[r]) return false;
    return true;
  }

 private:
  bool all() const { return skip_ == kAll; }
  static constexpr std::size_t kAll = static_cast<std::size_t>(-1);
  std::size_t runs_, na_;
  std::size_t skip_ = kAll;
  std::vector<bool> live_;  // with a run left out: sampled by a kept run
  std::size_t live_count_ = 0;
  const TrieSums* sums_ = nullptr;
};

class Descent {
 public:
  // `keys_only`, the jackknife's: what a finding is, by node, and no
  // more (no frames, no tests of a node's cost, no callers marked).
  Descent(const OpInput& in, const Columns& cols, const DiffConfig& cfg, bool find_moved,
          bool keys_only = false)
      : in_(in), cols_(cols), cfg_(cfg), find_moved_(find_moved), keys_only_(keys_only) {}

  struct Result {
    std::vector<ShareChange> shares;
    std::vector<MovedWork> moved;
    std::vector<std::uint32_t> share_nodes;  // each share's node
    // Each move's: the node whose share fell, and the deepest of the
    // frames down to where it went (its `via`'s last).
    std::vector<std::pair<std::uint32_t, std::uint32_t>> moved_nodes;
  };

  // The trunk first: from the op down through the child that carries most
  // of its caller on both sides (xfs_create under xfs_generic_create), whose
  // share cannot move when the change lies inside it. Each trunk node's
  // children are a family tested at alpha / (trunk families), so that an
  // A-vs-A diff still makes a false discovery with at most alpha's chance;
  // below a discovery, the hierarchy at alpha.
  Result run() {
    std::vector<std::pair<std::uint32_t, Stack>> trunk;
    Stack path;
    for (std::uint32_t n = 0;;) {
      const RunTrie::Node node = in_.trie.node(n);
      std::optional<std::uint32_t> next = dominant(node);
      if (live_kids(node) > 1 || (next && !cols_.same(in_.trie.node(*next).counts, node.counts)))
        trunk.emplace_back(n, path);
      if (!next || path.size() >= kMaxDepth) break;
      n = *next;
      path.push_back(in_.trie.node(n).frame);
    }
    const double level = cfg_.alpha / static_cast<double>(std::max<std::size_t>(1, trunk.size()));
    for (auto& [n, at] : trunk) family(n, at, level);
    sweep();
    // Shares are parts of a whole: a node's grows and its siblings' shrink
    // with it. A finding is a node whose own cost moved the way its share
    // did, by a tenth (or from nothing).
    std::erase_if(found_, [](const Found& f) {
      const ShareChange& s = f.share;
      const Comparison& c = s.ns;
      bool same_way = (c.delta() > 0) == (s.share_b > s.share_a) && c.delta() != 0;
      return !same_way || (std::isfinite(c.rel) && std::fabs(c.rel) < kMaterial);
    });
    // The deepest node of a branch is the finding: its callers' shares
    // moved because of it.
    if (find_moved_) moved_work();
    if (!keys_only_) drop_callers_of_findings();
    Result r;
    r.shares.reserve(found_.size());
    r.share_nodes.reserve(found_.size());
    for (auto& f : found_) {
      r.shares.push_back(std::move(f.share));
      r.share_nodes.push_back(f.node);
    }
    r.moved = std::move(moved_);
    r.moved_nodes = std::move(moved_nodes_);
    return r;
  }

 private:
  // Marks each finding whose change the findings right below it carry:
  // at least half of its ns, summed (the deepest node of a branch is where
  // it changed; its callers' shares moved because of it).
  // A caller whose finding below is small stays: the sweep finds small
  // changes deep down (50 ns under xlog_cil_commit), which must not hide
  // the +15.6 µs of xfs_trans_commit above them. In name order a path's
  // callees come right after it (after its equals): each finding looks
  // only at its own run of callees.
  void drop_callers_of_findings() {
    std::vector<std::uint32_t> order(found_.size());
    std::iota(order.begin(), order.end(), 0);
    auto path = [&](std::uint32_t i) -> const std::vector<std::string>& { return found_[i].share.frames; };
    auto size = [&](std::uint32_t i) { return std::fabs(found_[i].share.ns.delta()); };
    std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) { return path(x) < path(y); });
    std::vector<bool> caller(found_.size(), false);
    auto under = [](const std::vector<std::string>& t, const std::vector<std::string>& s) {
      return t.size() > s.size() && std::equal(s.begin(), s.end(), t.begin());
    };
    for (std::size_t i = 0; i < order.size(); ++i) {
      const auto& s = path(order[i]);
      // the findings right below it (none between), summed
      double below = 0;
      const std::vector<std::string>* top = nullptr;
      for (std::size_t j = i + 1; j < order.size(); ++j) {
        const auto& t = path(order[j]);
        if (t == s) continue;
        if (!under(t, s)) break;
        if (top && under(t, *top)) continue;
        top = &t;
        below += size(order[j]);
      }
      caller[order[i]] = below > 0 && 2 * below >= size(order[i]);
    }
    for (std::size_t i = 0; i < found_.size(); ++i) found_[i].share.caller = caller[i];
  }

  // The child with at least half of the node's samples on each side.
  std::optional<std::uint32_t> dominant(const RunTrie::Node& node) const {
    const double a = cols_.side_total(node.counts, false), b = cols_.side_total(node.counts, true);
    for (std::uint32_t k : node.kids) {
      const auto kid = in_.trie.node(k);
      if (cols_.live(k) && 2 * cols_.side_total(kid.counts, false) >= a &&
          2 * cols_.side_total(kid.counts, true) >= b && a + b > 0)
        return k;
    }
    return std::nullopt;
  }

  // The node's children some kept run sampled: all of them, with every run.
  std::size_t live_kids(const RunTrie::Node& node) const {
    return static_cast<std::size_t>(
        std::ranges::count_if(node.kids, [&](std::uint32_t k) { return cols_.live(k); }));
  }
  std::optional<std::uint32_t> only_kid(const RunTrie::Node& node) const {
    std::optional<std::uint32_t> one;
    for (std::uint32_t k : node.kids) {
      if (!cols_.live(k)) continue;
      if (one) return std::nullopt;
      one = k;
    }
    return one;
  }

  // Below a discovery: a lone child carrying all of the node passes it on;
  // otherwise the children are a family at alpha.
  void walk(std::uint32_t n, Stack& path) {
    const RunTrie::Node node = in_.trie.node(n);
    if (live_kids(node) == 0 || path.size() >= kMaxDepth) return;
    if (auto k = only_kid(node); k && cols_.same(in_.trie.node(*k).counts, node.counts)) {
      path.push_back(in_.trie.node(*k).frame);
      walk(*k, path);
      path.pop_back();
      return;
    }
    family(n, path, cfg_.alpha);
  }

  // Node `n`'s children's count tests on their share of its samples, the
  // siblings' common dispersion moderating each one's: the children tested
  // (those with kMinSamples and a valid test) and their tests.
  void test_children(std::uint32_t n, std::vector<std::uint32_t>& tested,
                     std::vector<stats::CountTest>& tests) const {
    if (cols_.has_sums()) return test_children_by_sums(n, tested, tests);
    const RunTrie::Node node = in_.trie.node(n);
    const auto ea = cols_.side_values(node.counts, false), eb = cols_.side_values(node.counts, true);
    std::vector<double> ka, kb;  // a child's counts, refilled for each test
    auto fill = [&](const RunTrie::Node& kid) {
      cols_.side_values(kid.counts, false, ka);
      cols_.side_values(kid.counts, true, kb);
    };
    // Only a q below alpha is read (family, sweep): p is exact where it can
    // be at most alpha (count_screen), and no interval is made. A child's
    // t under any dispersion is at most its Poisson t (φ = 1): one that
    // stays under the screen's bound with φ = 1 has p above alpha however
    // the family moderates it, and is not tested again (0.99: inside the
    // screen's own 0.999, so count_screen would say p = 1 of it too).
    const double bound = 0.99 * stats::normal_critical(cfg_.alpha);
    const bool screen = cfg_.alpha > 0 && cfg_.alpha < 1;
    std::vector<bool> may_pass;
    // First each child on its own; then the family's common dispersion
    // (Σχ² / Σdf) moderates each one's.
    double chi2 = 0, df = 0;
    for (std::uint32_t k : node.kids) {
      const auto kid = in_.trie.node(k);
      if (cols_.total(kid.counts) < kMinSamples) continue;
      fill(kid);
      const stats::CountTest t = stats::count_t(ka, ea, kb, eb, 1, 0);
      if (!t.valid || std::isnan(t.t)) continue;  // count_test's p would be NaN
      tested.push_back(k);
      may_pass.push_back(!screen || std::fabs(t.t) * std::sqrt(t.dispersion) >= bound);
      chi2 += t.chi2;
      df += t.df;
      if (!may_pass.back()) {  // its rates are the moderated test's
        stats::CountTest lean;
        lean.valid = true;
        lean.rate_a = t.rate_a;
        lean.rate_b = t.rate_b;
        lean.p = 1;
        tests.push_back(lean);
      } else {
        tests.emplace_back();
      }
    }
    const double common = df > 0 ? std::max(1.0, chi2 / df) : 1;
    const double prior_df = std::min(kPriorDf, df);
    for (std::size_t i = 0; i < tested.size(); ++i) {
      if (!may_pass[i]) continue;
      fill(in_.trie.node(tested[i]));
      tests[i] = stats::count_screen(ka, ea, kb, eb, common, prior_df, cfg_.alpha);
    }
  }

  // test_children with a run left out, from the trie's sums (TrieSums):
  // the same tests, each child's in O(1), χ² up to rounding.
  void test_children_by_sums(std::uint32_t n, std::vector<std::uint32_t>& tested,
                             std::vector<stats::CountTest>& tests) const {
    const RunTrie::Node node = in_.trie.node(n);
    std::vector<std::array<stats::CountSums, 2>> sides;
    double chi2 = 0, df = 0;
    for (std::uint32_t k : node.kids) {
      const auto kid = in_.trie.node(k);
      if (cols_.total(k, kid.counts) < kMinSamples) continue;
      std::array<stats::CountSums, 2> s{cols_.side_sums(k, kid.counts, n, node.counts, false),
                                        cols_.side_sums(k, kid.counts, n, node.counts, true)};
      const stats::CountTest t = stats::count_screen_sums(s[0], s[1], 1, 0, 0);
      if (!t.valid || std::isnan(t.t)) continue;
      tested.push_back(k);
      sides.push_back(s);
      chi2 += t.chi2;
      df += t.df;
    }
    const double common = df > 0 ? std::max(1.0, chi2 / df) : 1;
    const double prior_df = std::min(kPriorDf, df);
    for (const auto& s : sides)
      tests.push_back(stats::count_screen_sums(s[0], s[1], common, prior_df, cfg_.alpha));
  }

  // Node `n`'s children (reached by `path`) on their share of its samples,
  // one BH family at `level`; goes on under the ones whose share changed.
  void family(std::uint32_t n, Stack& path, double level) {
    const RunTrie::Node node = in_.trie.node(n);
    looked_[n] = true;
    std::vector<std::uint32_t> tested;
    std::vector<stats::CountTest> tests;
    test_children(n, tested, tests);
    std::vector<double> p;
    for (const auto& t : tests) p.push_back(t.p);
    std::vector<double> q = stats::benjamini_hochberg(p);
    const std::optional<std::uint32_t> trunk = dominant(node);
    for (std::size_t i = 0; i < tested.size(); ++i) {
      if (!(q[i] < level)) continue;
      const auto kid = in_.trie.node(tested[i]);
      if (found_node_[tested[i]]) continue;  // the sweep's, and walked below
      found_node_[tested[i]] = true;
      path.push_back(kid.frame);
      found_.push_back({finding(path, tests[i].rate_a, tests[i].rate_b, q[i], kid), tested[i]});
      if (tested[i] != trunk) walk(tested[i], path);  // the trunk goes on in run()
      path.pop_back();
    }
  }

  // The rest of the tree: every node the hierarchy did not reach, its
  // children tested on their share of it, all of them one BH family at
  // alpha. The hierarchy reaches a node only through a discovery above it,
  // and a function whose cost doubles under a parent that moves by a few
  // percent of the op leaves no discovery above it (the seed's roll at
  // 3+4 runs: xfs_defer_finish_noroll 2% -> 83% of xfs_trans_commit, while
  // xfs_trans_commit's share of xfs_create moved too little to test). One
  // family over thousands of tests costs power, which a change that large
  // does not need; A against A it holds its false discoveries to alpha.
  // Below a discovery, the hierarchy at alpha.
  void sweep() {
    // What a finding reads of each test, not the whole CountTest: a
    // sweep over ~10^6 children, four at once under the jackknife.
    struct Test {
      std::uint32_t node, kid;
      double rate_a, rate_b;
    };
    std::vector<Test> all;
    std::vector<double> p;
    std::vector<std::uint32_t> tested;
    std::vector<stats::CountTest> tests;
    for (std::uint32_t n = 0; n < in_.trie.size(); ++n) {
      const RunTrie::Node node = in_.trie.node(n);
      if (looked_[n] || !cols_.live(n) || live_kids(node) < 2 ||
          cols_.total(n, node.counts) < kMinSamples)
        continue;
      tested.clear();
      tests.clear();
      test_children(n, tested, tests);
      for (std::size_t i = 0; i < tested.size(); ++i) {
        all.push_back({n, tested[i], tests[i].rate_a, tests[i].rate_b});
        p.push_back(tests[i].p);
      }
    }
    const std::vector<double> q = stats::benjamini_hochberg(p);
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (!(q[i] < cfg_.alpha) || found_node_[all[i].kid]) continue;
      found_node_[all[i].kid] = true;
      Stack path = path_to(all[i].kid);
      found_.push_back(
          {finding(path, all[i].rate_a, all[i].rate_b, q[i], in_.trie.node(all[i].kid)), all[i].kid});
      walk(all[i].kid, path);
    }
  }

  // Pairs of sibling findings where one child's share fell and another's
  // rose, and the one that fell runs, in B, below the one that rose
  // (MovedWork). Both, the parent's own share (the move's net), the
  // findings on the way down to where it went (the roll's own frames) and
  // those inside what was left behind are `within` the move: the one
  // finding tells them.
  void moved_work() {
    std::unordered_map<std::uint32_t, std::size_t> at_node;  // a finding's node → its index
    for (std::size_t i = 0; i < found_.size(); ++i) at_node.emplace(found_[i].node, i);
    // Each finding's findings below it, found once by walking up from
    // every finding (a move claims what is below its fallen share).
    std::vector<std::vector<std::uint32_t>> below_of(found_.size());
    for (std::size_t i = 0; i < found_.size(); ++i)
      for (std::uint32_t n = found_[i].node; n != 0;) {
        n = in_.trie.parent(n);
        if (auto it = at_node.find(n); it != at_node.end())
          below_of[it->second].push_back(static_cast<std::uint32_t>(i));
      }
    std::vector<bool> used(found_.size(), false);
    for (std::size_t s = 0; s < found_.size(); ++s) {
      const ShareChange& fell = found_[s].share;
      if (used[s] || fell.share_b >= fell.share_a) continue;
      const std::uint32_t parent = in_.trie.parent(found_[s].node);
      const Frame& name = in_.trie.node(found_[s].node).frame;
      for (std::uint32_t g : in_.trie.node(parent).kids) {
        auto gi = at_node.find(g);
        if (gi == at_node.end() || used[gi->second]) continue;
        const ShareChange& rose = found_[gi->second].share;
        if (rose.share_b <= rose.share_a) continue;
        std::optional<std::uint32_t> there = heaviest_in_b(g, name);
        if (!there) continue;
        MovedWork m;
        if (!keys_only_) {
          m.at.assign(fell.frames.begin(), fell.frames.end() - 1);
          m.from = fell.frames.back();
          for (std::uint32_t n = in_.trie.parent(*there);; n = in_.trie.parent(n)) {
            m.via.insert(m.via.begin(), std::string(in_.trie.node(n).frame.str()));
            if (n == g) break;
          }
          m.there = ns_of(in_.trie.node(*there));
          m.net = ns_of(in_.trie.node(parent));
        }
        m.share_a = fell.share_a;
        m.share_b = fell.share_b;
        m.q = std::max(fell.q, rose.q);
        moved_nodes_.emplace_back(found_[s].node, in_.trie.parent(*there));
        const int index = static_cast<int>(moved_.size());
        used[s] = used[gi->second] = true;
        found_[s].share.within = found_[gi->second].share.within = index;
        for (std::uint32_t n = *there; n != g; n = in_.trie.parent(n))
          if (auto it = at_node.find(n); it != at_node.end()) {
            used[it->second] = true;
            found_[it->second].share.within = index;
          }
        // `at`'s own share: its change is the move's net
        if (auto it = at_node.find(parent); it != at_node.end() && !used[it->second]) {
          used[it->second] = true;
          found_[it->second].share.within = index;
        }
        for (std::uint32_t i : below_of[s])
          if (!used[i]) {
            used[i] = true;
            found_[i].share.within = index;
          }
        moved_.push_back(std::move(m));
        break;
      }
    }
  }

  // Below node `n`, the node framed `name` with the most samples in B's
  // runs, where it has more of them than in A's (per run): where the work
  // went. Not `n` itself.
  std::optional<std::uint32_t> heaviest_in_b(std::uint32_t n, const Frame& name) const {
    std::optional<std::uint32_t> best;
    double best_b = 0;
    const double runs_a = static_cast<double>(cols_.na());
    const double runs_b = static_cast<double>(cols_.nb());
    std::vector<std::uint32_t> todo(in_.trie.node(n).kids.begin(), in_.trie.node(n).kids.end());
    while (!todo.empty()) {
      const std::uint32_t k = todo.back();
      todo.pop_back();
      const RunTrie::Node node = in_.trie.node(k);
      const double b = cols_.side_total(node.counts, true);
      if (b == 0) continue;
      if (node.frame == name) {
        if (b > best_b && b / runs_b > cols_.side_total(node.counts, false) / runs_a) {
          best = k;
          best_b = b;
        }
        continue;  // its own recursion is its own work
      }
      todo.insert(todo.end(), node.kids.begin(), node.kids.end());
    }
    return best;
  }

  // A node's inclusive ns/op (ns per run for a bucket), run by run; only
  // its means and relative change when keys_only (what run() reads).
  Comparison ns_of(const RunTrie::Node& node) const {
    std::vector<double> va, vb;
    for (std::size_t k = 0; k < cols_.kept(); ++k) {
      const std::size_t r = cols_.column(k);
      (k < cols_.na() ? va : vb).push_back(static_cast<double>(node.counts[r]) * in_.ns_per_sample[r]);
    }
    if (!keys_only_) return compare(std::move(va), std::move(vb), in_.unit, cfg_.level, cfg_.alpha);
    Comparison c;  // compare()'s means and rel, to the bit
    auto mean = [](const std::vector<double>& v) {
      return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    };
    c.sa.n = va.size();
    c.sb.n = vb.size();
    c.sa.mean = mean(va);
    c.sb.mean = mean(vb);
    c.rel = c.sa.mean != 0 && std::isfinite(c.sa.mean) ? c.delta() / c.sa.mean
                                                        : std::numeric_limits<double>::quiet_NaN();
    return c;
  }

  // The frames from the op down to node `n`.
  Stack path_to(std::uint32_t n) const {
    Stack path;
    for (; n != 0; n = in_.trie.parent(n)) path.push_back(in_.trie.node(n).frame);
    std::reverse(path.begin(), path.end());
    return path;
  }

  ShareChange finding(const Stack& path, double rate_a, double rate_b, double q,
                      const RunTrie::Node& kid) const {
    ShareChange s;
    if (!keys_only_)
      for (const Frame& f : path) s.frames.push_back(f.str());
    s.share_a = rate_a;
    s.share_b = rate_b;
    s.q = q;
    s.ns = ns_of(kid);
    return s;
  }

  const OpInput& in_;
  const Columns& cols_;
  const DiffConfig& cfg_;
  struct Found {
    ShareChange share;
    std::uint32_t node;
  };
  // A deque: a Found is large (its Comparison), and the sweep of a big
  // tree finds thousands, which a vector moved at every growth.
  std::deque<Found> found_;
  std::vector<MovedWork> moved_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> moved_nodes_;
  bool find_moved_;
  bool keys_only_;
  std::vector<bool> looked_ = std::vector<bool>(in_.trie.size(), false);  // family() tested its children
  std::vector<bool> found_node_ = std::vector<bool>(in_.trie.size(), false);
};

double ns_per_sample(const Profile& p, const std::string& op) {
  for (const auto& o : p.ops)
    if (o.name == op && o.count > 0 && p.meta.freq_hz > 0)
      return 1e9 / p.meta.freq_hz / static_cast<double>(o.count);
  return 0;
}

// Code of a bucket sampled in every B run and in no A run, where A's runs
// had the exposure to show it (B's mean count × A's runs at least the
// presence floor, Bonferroni over the bucket's nodes, as for an op's
// functions): the outermost such nodes, by family where they have one.
std::vector<std::string> new_in_b(const RunTrie& t, const Columns& cols) {
  const std::size_t na = cols.na();
  if (na < 2 || cols.nb() < 2) return {};
  const double floor = presence_floor(cols.nodes(t));
  std::vector<std::string> out;
  std::vector<std::uint32_t> todo{0};
  std::vector<double> ca, cb;
  while (!todo.empty()) {
    std::uint32_t n = todo.back();
    todo.pop_back();
    const RunTrie::Node node = t.node(n);
    cols.side_values(node.counts, false, ca);
    cols.side_values(node.counts, true, cb);
    const double sum_b = std::accumulate(cb.begin(), cb.end(), 0.0);
    const bool none_a = std::ranges::all_of(ca, [](double v) { return v == 0; });
    const double expected_a = sum_b / static_cast<double>(cb.size()) * static_cast<double>(na);
    if (n != 0 && present_only(cb, ca, expected_a, floor)) {
      std::string_view fam = function_family(node.frame.str());
      std::string name = fam.empty() ? std::string(node.frame.str()) : std::string(fam) + "_*";
      if (std::ranges::find(out, name) == out.end()) out.push_back(std::move(name));
      continue;
    }
    if (none_a && sum_b == 0) continue;
    for (auto it = node.kids.rbegin(); it != node.kids.rend(); ++it) todo.push_back(*it);
  }
  return out;
}

// Shares by the size of their node's change, largest first: the order the
// diff lists them in, and findings_of reads them in.
bool larger_change(const ShareChange& x, const ShareChange& y) {
  return std::fabs(x.ns.delta()) > std::fabs(y.ns.delta());
}

void by_size(std::vector<ShareChange>& v) { std::stable_sort(v.begin(), v.end(), larger_change); }

// The indices of `shares` in by_size's order.
std::vector<std::size_t> by_size_order(const std::vector<ShareChange>& shares) {
  std::vector<std::size_t> order(shares.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return larger_change(shares[x], shares[y]);
  });
  return order;
}

// What a descent without a run (keys_only) found again, by node, as
// findings_of (stability.cpp's add_share_findings) keys it: a share's node and those above
// it; a move's fallen share and the nodes down to where the work went; the
// move a fallen share is half of. In its order, the first direction given
// to a node stands. `share`, `moved`: by node, 0 where nothing was found.
struct FoundAgain {
  std::vector<std::int8_t> share, moved;
};

FoundAgain found_again(const RunTrie& t, const Descent::Result& r) {
  const std::vector<std::size_t> order = by_size_order(r.shares);
  FoundAgain f{std::vector<std::int8_t>(t.size(), 0), std::vector<std::int8_t>(t.size(), 0)};
  auto& share = f.share;
  auto& moved = f.moved;
  auto dir = [](const ShareChange& s) -> std::int8_t { return s.share_b - s.share_a < 0 ? -1 : 1; };
  auto up = [&](std::uint32_t n, std::int8_t d) {
    for (; n != 0; n = t.parent(n))
      if (!share[n]) share[n] = d;
  };
  for (std::size_t i : order)
    if (!share[r.share_nodes[i]]) share[r.share_nodes[i]] = dir(r.shares[i]);
  for (const auto& [fell, to] : r.moved_nodes)
    if (!moved[fell]) moved[fell] = 1;
  for (std::size_t i : order) up(r.share_nodes[i], dir(r.shares[i]));
  for (const auto& [fell, to] : r.moved_nodes) {
    up(fell, -1);
    up(to, 1);
  }
  for (std::size_t i : order)
    if (r.shares[i].share_b < r.shares[i].share_a && !moved[r.share_nodes[i]])
      moved[r.share_nodes[i]] = 1;
  return f;
}

// The full descent's shares and moves (by node, in `r`'s order) marked
// fragile: each with the first of `again` (the descents without each run,
// in the jackknife's order; empty where the op was not tested there) that
// lacks it or turns it around.
void mark_found_again(const Descent::Result& r, const std::vector<FoundAgain>& again,
                      std::vector<ShareChange>& shares, std::vector<MovedWork>& moved) {
  auto lost = [&](auto held, std::int8_t dir) {
    for (std::size_t skip = 0; skip < again.size(); ++skip)
      if (again[skip].share.empty() || held(again[skip]) != dir) return static_cast<int>(skip);
    return -1;
  };
  for (std::size_t i = 0; i < shares.size(); ++i) {
    const std::uint32_t n = r.share_nodes[i];
    shares[i].fragile = lost([n](const FoundAgain& f) { return f.share[n]; },
                             shares[i].share_b - shares[i].share_a < 0 ? -1 : 1);
  }
  for (std::size_t i = 0; i < moved.size(); ++i) {
    const std::uint32_t n = r.moved_nodes[i].first;
    moved[i].fragile = lost([n](const FoundAgain& f) { return f.moved[n]; }, 1);
  }
}

// The same descent inside the test filesystem's kernel-thread buckets
// (xlog_cil_push_work's work, xfsaild's pushes): their samples per run, the
// bucket as the root; ns per run.
void descend_kthreads(Diff& d, const RunSet& a, const RunSet& b, std::vector<Findings>* held) {
  FoldedFrames ff;
  std::vector<OpInput> in;
  std::vector<std::size_t> of;  // each input's index in d.background
  std::unordered_map<std::string, std::size_t> by_name;
  const std::size_t runs = a.runs.size() + b.runs.size();
  for (std::size_t i = 0; i < d.background.size(); ++i)
    if (d.background[i].test_fs) {
      by_name[d.background[i].name] = in.size();
      in.push_back({d.background[i].name, RunTrie(runs), {}, "ns"});
      of.push_back(i);
    }
  if (in.empty()) return;
  for (std::size_t r = 0; r < runs; ++r) {
    const Profile& p = r < a.runs.size() ? a.runs[r] : b.runs[r - a.runs.size()];
    for (auto& o : in) o.ns_per_sample.push_back(p.meta.freq_hz > 0 ? 1e9 / p.meta.freq_hz : 0);
    for (const auto& s : p.samples) {
      if (s.kind != SampleKind::Kthread || s.count == 0) continue;
      auto it = by_name.find(background_bucket(s.name, s.frames));
      if (it != by_name.end()) in[it->second].trie.add(r, s.frames, s.count, ff);
    }
  }
  for (std::size_t k = 0; k < in.size(); ++k) {
    in[k].trie.finish();
    std::optional<TrieSums> sums;  // made for the first run left out
    BackgroundDiff& bg = d.background[of[k]];
    const Columns every(in[k].trie, a.runs.size());
    Descent::Result found = Descent(in[k], every, d.config, false).run();
    bg.new_in_b = new_in_b(in[k].trie, every);
    if (held && !(found.shares.empty() && bg.new_in_b.empty())) {
      std::vector<FoundAgain> again(held->size());
      for (std::size_t skip = 0; skip < held->size(); ++skip) {
        if (!sums) sums.emplace(in[k].trie, a.runs.size());
        const Columns kept(in[k].trie, *sums, skip);
        again[skip] = found_again(in[k].trie, Descent(in[k], kept, d.config, false, true).run());
        const auto still = new_in_b(in[k].trie, kept);
        for (const auto& n : bg.new_in_b)  // the bucket's new code, by name
          if (std::ranges::find(still, n) != still.end())
            (*held)[skip].emplace(bucket_new_key(bg.name, n), 1);
      }
      std::vector<MovedWork> none;
      mark_found_again(found, again, found.shares, none);
    }
    bg.shares = std::move(found.shares);
  }
}

}  // namespace

void descend_call_trees(Diff& d, const RunSet& a, const RunSet& b, const std::vector<Diff>* left_out,
                        std::vector<Findings>* held) {
  if (d.cross_filesystem()) return;  // each side's own code: not a share that changed
  const std::size_t runs = a.runs.size() + b.runs.size();
  std::vector<std::size_t> ops;
  for (std::size_t i = 0; i < d.ops.size(); ++i)
    if (d.ops[i].tested && d.ops[i].op != "other") ops.push_back(i);
  // One op's trie per thread at a time: as many tries as threads are the
  // peak, not every op's together (2 × 10 runs of 100k stacks: 470 MB with
  // all of them at once). Each op writes only its own findings. The
  // leave-one-out descents read the same trie, each without its run, and
  // mark the op's shares and moves they lack.
  parallel_for(ops.size(), [&](std::size_t i) {
    OpDiff& op = d.ops[ops[i]];
    FoldedFrames ff;  // its cache is not shared between threads
    OpInput in{op.op, RunTrie(runs), {}};
    for (std::size_t r = 0; r < runs; ++r) {
      const Profile& p = r < a.runs.size() ? a.runs[r] : b.runs[r - a.runs.size()];
      in.ns_per_sample.push_back(ns_per_sample(p, op.op));
      const std::string* last = nullptr;
      bool mine = false;
      for (const auto& s : p.samples) {
        if (s.kind != SampleKind::Op || s.count == 0) continue;
        if (!last || s.name != *last) {  // neighbouring samples mostly share their op
          last = &s.name;
          mine = s.name == op.op;
        }
        if (mine) in.trie.add(r, s.frames, s.count, ff);
      }
    }
    in.trie.finish();
    auto found = Descent(in, Columns(in.trie, a.runs.size()), d.config, true).run();
    if (left_out && !(found.shares.empty() && found.moved.empty())) {
      // Each run left out on its own thread: the trie is read only.
      std::vector<FoundAgain> again(left_out->size());
      const TrieSums sums(in.trie, a.runs.size());
      parallel_for(again.size(), [&](std::size_t skip) {
        if (!(*left_out)[skip].ops[ops[i]].tested) return;
        again[skip] = found_again(
            in.trie, Descent(in, Columns(in.trie, sums, skip), d.config, true, true).run());
      });
      mark_found_again(found, again, found.shares, found.moved);
    }
    op.shares = std::move(found.shares);
    op.moved = std::move(found.moved);
    by_size(op.shares);
  });
  descend_kthreads(d, a, b, held);
  for (auto& bg : d.background) by_size(bg.shares);
}

}  // namespace fscost
