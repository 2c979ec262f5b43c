// Mean per-operation stacks (mean_stacks.h): each run's stacks from
// views/stacks.h, summed over the runs.
//
// A stack is a key of small integers (its group, then its frames' pool ids):
// the merge of equal stacks, the per-op division, the sum over runs and the
// final sort (by frame text) all work on those keys, and a FlameInput is
// made once per distinct mean stack at the end.
#include "diff/mean_stacks.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <span>
#include <string_view>
#include <unordered_map>

#include "diff/metrics.h"  // samples_to_ns
#include "views/stacks.h"

namespace fscost {

namespace {

using Ids = std::vector<std::uint32_t>;
using Key = std::span<const std::uint32_t>;

// The frames the keys name, by pool id.
class FrameTable {
 public:
  std::uint32_t id(const Frame& f) {
    if (f.id() >= seen_.size()) {
      seen_.resize(Frame::pool_size(), false);
      frames_.resize(Frame::pool_size());
    }
    if (!seen_[f.id()]) {
      seen_[f.id()] = true;
      frames_[f.id()] = f;
      ids_.push_back(f.id());
    }
    return f.id();
  }
  const Frame& operator[](std::uint32_t id) const { return frames_[id]; }

  // Each seen id's position in text order, by pool id.
  std::vector<std::uint32_t> ranks() const {
    std::vector<std::uint32_t> order = ids_;
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t x, std::uint32_t y) { return frames_[x].str() < frames_[y].str(); });
    std::vector<std::uint32_t> rank(frames_.size(), 0);
    for (std::uint32_t r = 0; r < order.size(); ++r) rank[order[r]] = r;
    return rank;
  }

 private:
  std::vector<bool> seen_;
  std::vector<Frame> frames_;
  Ids ids_;
};

// Where a record's stack goes: per op, its operation; else one group.
class Groups {
 public:
  explicit Groups(bool per_op) : per_op_(per_op) {
    if (!per_op) names_.emplace_back();
  }
  bool per_op() const { return per_op_; }
  std::uint32_t of(const std::string& op) {
    if (!per_op_) return 0;
    auto [it, added] = ids_.try_emplace(op, static_cast<std::uint32_t>(names_.size()));
    if (added) names_.push_back(op);
    return it->second;
  }
  const std::vector<std::string>& names() const { return names_; }

 private:
  bool per_op_;
  std::unordered_map<std::string, std::uint32_t> ids_;
  std::vector<std::string> names_;
};

// Every distinct line of every run (group, root, frames..., the leaf
// trimmed as parse_folded reads it), numbered in order of first sight: a
// record's key is hashed once, and stored once for all runs. Open
// addressing over (hash, line) slots with the keys back to back in one
// arena: a lookup touches a slot and a key, where a std::unordered_map of
// vectors touched a bucket, a node and the key's own allocation (2 × 10
// runs of 100k stacks: most of the mean stacks' time).
class LineIndex {
 public:
  LineIndex() { start_.push_back(0); }

  std::uint32_t of(Key key) {
    if (2 * (lines() + 1) > slots_.size()) grow(std::max<std::size_t>(1024, 2 * slots_.size()));
    const std::uint64_t h = hash(key);
    const auto tag = static_cast<std::uint32_t>(h >> 32);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.line == kEmpty) {
        slot = {tag, static_cast<std::uint32_t>(lines())};
        arena_.insert(arena_.end(), key.begin(), key.end());
        start_.push_back(arena_.size());
        return slot.line;
      }
      if (slot.tag == tag && std::ranges::equal(this->key(slot.line), key)) return slot.line;
    }
  }
  Key key(std::uint32_t line) const {
    return {arena_.data() + start_[line], start_[line + 1] - start_[line]};
  }
  std::size_t lines() const { return start_.size() - 1; }
  void reserve(std::size_t lines) {
    std::size_t n = 1024;
    while (n < 2 * lines) n *= 2;
    if (n > slots_.size()) grow(n);
  }

 private:
  static constexpr std::uint32_t kEmpty = UINT32_MAX;
  struct Slot {
    std::uint32_t tag = 0;  // the hash's upper half
    std::uint32_t line = kEmpty;
  };

  static std::uint64_t hash(Key key) {
    std::uint64_t h = 0x9e3779b97f4a7c15ull ^ key.size();
    for (std::uint32_t x : key) h = (h ^ x) * 0x100000001b3ull + (h >> 29);
    // The low bits pick the slot, the high ones are the tag: fold the high
    // bits into the low ones (murmur3's finalizer).
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
  }
  void grow(std::size_t n) {  // n: a power of two
    slots_.assign(n, Slot{});
    mask_ = n - 1;
    for (std::uint32_t line = 0; line < lines(); ++line) {
      const std::uint64_t h = hash(key(line));
      std::size_t i = h & mask_;
      while (slots_[i].line != kEmpty) i = (i + 1) & mask_;
      slots_[i] = {static_cast<std::uint32_t>(h >> 32), line};
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::vector<std::uint32_t> arena_;  // the keys, back to back
  std::vector<std::size_t> start_;    // line → its key's offset in arena_; one past the last
};

// One run's stacks: equal stacks merged, totals as integers.
class RunLines {
 public:
  RunLines(FrameTable& frames, Groups& groups, LineIndex& index)
      : frames_(frames), groups_(groups), index_(index) {}

  void add(const StackRecord& r) {
    if (!last_owner_ || r.kind != last_kind_ || r.owner != *last_owner_) {  // neighbours share it
      last_kind_ = r.kind;
      last_owner_ = &r.owner;
      last_group_ = groups_.of(r.owner);
    }
    key_.clear();
    key_.push_back(last_group_);
    for (const Frame& f : r.frames) key_.push_back(frames_.id(f));
    std::uint32_t line = index_.of(key_);
    if (line >= total_.size()) total_.resize(index_.lines(), 0);
    if (total_[line] == 0) touched_.push_back(line);
    total_[line] += r.value;
  }

  // The run's lines and their totals; cleared for the next run after `f`.
  template <typename F>
  void drain(F&& f) {
    for (std::uint32_t line : touched_) {
      f(line, total_[line]);
      total_[line] = 0;
    }
    touched_.clear();
  }

 private:
  FrameTable& frames_;
  Groups& groups_;
  LineIndex& index_;
  Ids key_;
  // The last record's (kind, owner) and its group.
  SampleKind last_kind_{};
  const std::string* last_owner_ = nullptr;
  std::uint32_t last_group_ = 0;
  std::vector<std::uint64_t> total_;  // by line; 0 = not in this run
  std::vector<std::uint32_t> touched_;
};

// The sum over runs of each line's cost per operation, and the roots left
// out, per group.
struct Sums {
  std::vector<double> value;  // by line
  std::map<std::uint32_t, std::set<std::string>> skipped;
};

// One run's lines divided by their op's count and scaled to the view's
// unit, added to `sums`.
void add_run(const Profile& p, RunLines& run, const LineIndex& index, double scale,
             const FrameTable& names, Sums& sums, bool per_run = false) {
  std::unordered_map<std::string, std::uint64_t> counts;
  for (const auto& o : p.ops) counts[o.name] = o.count;
  // A root's count, looked up by its text once per run; 0 if no op of the
  // run has that name.
  std::unordered_map<std::uint32_t, std::uint64_t> count_of;
  std::set<std::pair<std::uint32_t, std::uint32_t>> skipped;  // (group, root)
  sums.value.resize(index.lines(), 0.0);
  run.drain([&](std::uint32_t line, std::uint64_t total) {
    Key key = index.key(line);
    auto [c, added] = count_of.try_emplace(key[1], per_run ? 1 : 0);
    if (added && !per_run) {
      auto it = counts.find(names[key[1]].str());
      if (it != counts.end()) c->second = it->second;
    }
    if (c->second > 0)
      sums.value[line] += static_cast<double>(total) / static_cast<double>(c->second) * scale;
    else
      skipped.emplace(key[0], key[1]);
  });
  std::map<std::uint32_t, SkippedRoots> skips;  // per_operation's, for each group of the run
  for (auto [group, root] : skipped) skips[group].add(names[root].str());
  for (const auto& [group, s] : skips)
    for (auto& why : s.reasons()) sums.skipped[group].insert(std::move(why));
}

// Every line in finish()'s order: by group, then by its frames' text
// (frame ranks, compared element by element). Lines are distinct keys, so
// the order is total: a subset of the lines keeps its order in it.
std::vector<std::uint32_t> line_order(const LineIndex& index, const FrameTable& frames) {
  const auto rank = frames.ranks();
  std::vector<std::uint32_t> order(index.lines());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
    const Key kx = index.key(x), ky = index.key(y);
    if (kx[0] != ky[0]) return kx[0] < ky[0];
    return std::ranges::lexicographical_compare(
        kx.subspan(1), ky.subspan(1),
        [&](std::uint32_t a, std::uint32_t b) { return rank[a] < rank[b]; });
  });
  return order;
}

// The means, each group's stacks in frame-text order; `order`, line_order's
// where the caller keeps it (the stacks then need no sort).
std::map<std::string, FlameInput> finish(const Sums& sums, const LineIndex& index,
                                         const FrameTable& frames, const Groups& groups,
                                         std::size_t runs,
                                         const std::vector<std::uint32_t>* order = nullptr) {
  std::vector<std::vector<std::pair<Key, double>>> by_group(groups.names().size());
  auto take = [&](std::uint32_t line) {
    if (double value = sums.value[line]; value > 0) {
      Key key = index.key(line);
      by_group[key[0]].emplace_back(key.subspan(1), value);  // the group is one per list
    }
  };
  if (order) {
    for (std::uint32_t line : *order)
      if (line < sums.value.size()) take(line);
  } else {
    for (std::uint32_t line = 0; line < sums.value.size(); ++line) take(line);
    const auto rank = frames.ranks();
    auto before = [&](const auto& x, const auto& y) {
      return std::ranges::lexicographical_compare(
          x.first, y.first, [&](std::uint32_t a, std::uint32_t b) { return rank[a] < rank[b]; });
    };
    for (auto& stacks : by_group) std::sort(stacks.begin(), stacks.end(), before);
  }
  std::map<std::string, FlameInput> out;
  const double n = static_cast<double>(runs);
  for (std::uint32_t g = 0; g < by_group.size(); ++g) {
    auto& stacks = by_group[g];
    auto skipped = sums.skipped.find(g);
    if (stacks.empty() && skipped == sums.skipped.end()) continue;
    FlameInput& in = out[groups.names()[g]];
    in.stacks.reserve(stacks.size());
    for (const auto& [key, value] : stacks) {
      Stack stack;
      stack.reserve(key.size());
      for (std::uint32_t id : key) stack.push_back(frames[id]);
      in.stacks.emplace_back(std::move(stack), value / n);
    }
    if (skipped != sums.skipped.end())
      in.skipped.assign(skipped->second.begin(), skipped->second.end());
  }
  return out;
}

}  // namespace

namespace {

// Each run's stacks of `view` that pass `filter`, divided by their op's
// count (or, per_run, as they are), summed over the runs and divided by
// their number.
std::map<std::string, FlameInput> mean_stacks(const RunSet& runs, View view, bool per_op,
                                              StackFilter filter, bool per_run) {
  if (runs.runs.empty()) return {};
  FrameTable frames;
  Groups groups(per_op);
  LineIndex index;
  const Profile& first = runs.runs.front();
  index.reserve(view == View::OnCpu    ? first.samples.size()
                : view == View::OffCpu ? first.offcpu.size()
                                       : first.locks.size());
  RunLines lines(frames, groups, index);
  FoldedFrames ff;  // each profile frame sanitized once for all runs
  Sums sums;
  for (const auto& p : runs.runs) {
    for_each_stack(p, view, filter, ff, [&](const StackRecord& r) { lines.add(r); });
    // Samples per op become ns per op with this run's own frequency.
    double scale = view == View::OnCpu ? samples_to_ns(1, p.meta.freq_hz) : 1;
    add_run(p, lines, index, scale, frames, sums, per_run);
  }
  return finish(sums, index, frames, groups, runs.runs.size());
}

}  // namespace

std::map<std::string, FlameInput> build_mean_stacks(const RunSet& runs, View view, bool per_op) {
  return mean_stacks(runs, view, per_op, {std::nullopt, per_op}, false);
}

FlameInput build_background_stacks(const RunSet& runs, View view) {
  StackFilter kthreads;
  kthreads.kthreads_only = true;
  auto all = mean_stacks(runs, view, false, kthreads, true);
  return all.empty() ? FlameInput{} : std::move(all.begin()->second);
}

void MeanStacks::build(const RunSet& runs, View view) {
  by_view_[static_cast<std::size_t>(view)] = build_mean_stacks(runs, view, true);
  background_[static_cast<std::size_t>(view)] = build_background_stacks(runs, view);
}

const FlameInput& MeanStacks::get(View view, const std::string& op) const {
  static const FlameInput kNone;
  const auto& ops = by_view_[static_cast<std::size_t>(view)];
  auto it = ops.find(op);
  return it == ops.end() ? kNone : it->second;
}

MeanStacks mean_stacks_of(const RunSet& runs) {
  MeanStacks m;
  for (View v : kViews) m.build(runs, v);
  return m;
}

struct RunStacks::Impl {
  FrameTable frames;
  Groups groups{true};
  LineIndex index;
  std::vector<Sums> runs;  // each run's part, by line
  std::vector<std::uint32_t> order;  // line_order's, made once for every mean_without
};

RunStacks::RunStacks(const RunSet& runs, View view, const std::string& op)
    : impl_(std::make_unique<Impl>()), op_(op) {
  RunLines lines(impl_->frames, impl_->groups, impl_->index);
  FoldedFrames ff;
  const StackFilter only{op, true};
  for (const auto& p : runs.runs) {
    for_each_stack(p, view, only, ff, [&](const StackRecord& r) { lines.add(r); });
    const double scale = view == View::OnCpu ? samples_to_ns(1, p.meta.freq_hz) : 1;
    Sums& part = impl_->runs.emplace_back();
    add_run(p, lines, impl_->index, scale, impl_->frames, part);
  }
  impl_->order = line_order(impl_->index, impl_->frames);
}

RunStacks::~RunStacks() = default;
RunStacks::RunStacks(RunStacks&&) noexcept = default;
RunStacks& RunStacks::operator=(RunStacks&&) noexcept = default;

FlameInput RunStacks::mean_without(std::size_t skip) const {
  Sums sum;
  sum.value.assign(impl_->index.lines(), 0.0);
  for (std::size_t r = 0; r < impl_->runs.size(); ++r) {
    if (r == skip) continue;
    const Sums& part = impl_->runs[r];
    // A line the run lacks adds nothing: x + 0 is x, as mean_stacks'
    // sum that never touched it.
    for (std::size_t line = 0; line < part.value.size(); ++line) sum.value[line] += part.value[line];
    for (const auto& [group, why] : part.skipped) sum.skipped[group].insert(why.begin(), why.end());
  }
  const std::size_t kept = impl_->runs.size() - (skip < impl_->runs.size() ? 1 : 0);
  auto all = finish(sum, impl_->index, impl_->frames, impl_->groups, kept, &impl_->order);
  auto it = all.find(op_);
  return it == all.end() ? FlameInput{} : std::move(it->second);
}

// One view's mean stacks of `runs`, built on their own (diff.h).
FlameInput mean_flame_input(const RunSet& runs, View view,
                            const std::optional<std::string>& op) {
  auto all = build_mean_stacks(runs, view, op.has_value());
  if (op) {
    auto it = all.find(*op);
    return it == all.end() ? FlameInput{} : std::move(it->second);
  }
  return all.empty() ? FlameInput{} : std::move(all.begin()->second);
}

}  // namespace fscost
