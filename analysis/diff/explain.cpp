// The on-CPU delta of one operation, split into what it is made of:
//   spin       stacks whose leaf spins on a lock (spin_check.h's slow paths),
//   new-code   stacks through a frame the presence rule found new in B,
//   more-work  everything else: the same paths, doing more (or less);
//   fs-path    across filesystems (CrossFs), stacks through one side's own
//              code (model/fs_code.h): B's code path, and A's, one part
//              each; there is no new code between two filesystems.
// Each stack of the op's differential tree (delta_tree.h, the one the call
// paths descend, with its spin and new-code marks) goes to exactly one
// class. The classes' sampled deltas are then fitted to the exact
// (sched_switch) on-CPU delta, keeping their proportions, and each is
// placed with the call graph's dominator tree: the narrowest function
// carrying flow_share of it.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

#include "diff/callgraph.h"
#include "diff/internal.h"
#include "diff/mean_stacks.h"
#include "views/lock_names.h"  // spinning_lock

namespace fscost {

namespace {

enum Class { kNewCode, kSpin, kMoreWork, kFsA, kFsB, kClassCount };
constexpr std::array<const char*, kClassCount> kKinds = {"new-code", "spin", "more-work",
                                                         "fs-path", "fs-path"};

// A lock a spinning stack waits for, named from the stack (spinning_lock).
using SpinKey = std::tuple<std::string, std::string, bool>;  // name, type, optimistic

struct Sampled {
  std::array<double, kClassCount> total{};
  // Per call-graph vertex: the class's delta at stacks ending there.
  std::array<std::vector<double>, kClassCount> self;
  std::map<SpinKey, double> spin_by_lock;  // the spin class's delta per lock
  // kFsA, kFsB: the delta per entry frame (the first of the side's own):
  // where that filesystem's code begins.
  std::array<std::map<std::string, double>, 2> entered;
};

struct Walk {
  const DeltaTree& tree;
  const CallGraph& cg;
  const CrossFs& fs;
  Sampled& out;
  Stack path;  // op root first, as flame_input gives frames
};

// Where on the way down the stack became new, or entered A's or B's own
// code: the first such frame, "" until then.
struct Marks {
  std::string new_at, a_at, b_at;
};

Class class_of(const DeltaNode& n, const Marks& m, const CrossFs& fs) {
  if (n.spins) return kSpin;
  // Across filesystems, only the own frames decide: a generic stack that
  // one side happened not to sample (getname_flags, 0 of 3 runs) is noise,
  // not code the other filesystem lacks.
  if (fs) {
    if (!m.b_at.empty()) return kFsB;
    if (!m.a_at.empty()) return kFsA;
    return kMoreWork;
  }
  return !m.new_at.empty() ? kNewCode : kMoreWork;
}

const std::string& entry_of(Class k, const Marks& m) { return k == kFsB ? m.b_at : m.a_at; }

// `m.new_at`: some frame on the way here, below the op, is new in B (the
// tree's mark).
void walk(const DeltaNode& d, Marks m, Walk& w) {
  const FlameNode& n = *d.n;
  w.path.push_back(n.name);
  if (w.path.size() > 1) {  // below the op
    if (m.a_at.empty() && is_fs_code(n.name.str(), w.fs.a)) m.a_at = n.name.str();
    if (m.b_at.empty() && is_fs_code(n.name.str(), w.fs.b)) m.b_at = n.name.str();
  }
  double self_a = n.value, self_b = n.value_b;
  for (const auto& c : n.children) {
    self_a -= c.value;
    self_b -= c.value_b;
  }
  if (double delta = self_b - self_a; delta != 0) {
    Class k = class_of(d, m, w.fs);
    w.out.total[k] += delta;
    if (auto v = w.cg.find(n.name)) w.out.self[k][*v] += delta;
    if (k == kSpin)
      if (auto l = spinning_lock(w.path))
        w.out.spin_by_lock[{l->name, l->type, l->optimistic}] += delta;
    if (k == kFsA || k == kFsB) w.out.entered[k - kFsA][entry_of(k, m)] += delta;
  }
  for (const auto& c : d.kids) {
    Marks cm = m;
    if (cm.new_at.empty() && w.tree.is_new(c)) cm.new_at = c.n->name.str();
    walk(c, std::move(cm), w);
  }
  w.path.pop_back();
}

bool function_significant(const OpDiff& op, const std::string& name) {
  if (name == op.op) return true;  // the op itself: its on-CPU comparison decides
  for (const auto& f : op.functions)
    if (f.name == name) return f.inclusive.significant();
  return false;
}

const LockDiff* lock_diff(const OpDiff& op, const std::string& name, const std::string& type) {
  for (const auto& l : op.locks)
    if (l.name == name && l.type == type) return &l;
  return nullptr;
}

// The spin part belongs to the locks its own stacks spin on (the caller of
// down_write, mutex_lock, spin_lock names the lock as for a traced wait),
// never to another lock that happened to move the same way.
void describe_spin(DeltaPart& p, const Sampled& s, const OpDiff& op, const DiffConfig& cfg) {
  std::vector<std::pair<SpinKey, double>> locks;
  for (const auto& [key, d] : s.spin_by_lock)
    if (d * p.delta_ns > 0) locks.emplace_back(key, d);
  std::stable_sort(locks.begin(), locks.end(), [](const auto& x, const auto& y) {
    return std::fabs(x.second) > std::fabs(y.second);
  });
  if (locks.empty()) {
    p.detail = "spin on locks the stacks do not name";
    p.significant = false;
    return;
  }
  const auto& [name, type, optimistic] = locks[0].first;
  p.where = name;
  p.detail = optimistic ? "optimistic spin (sampled; the lock tracepoints do not see it)"
                        : "spin in the lock's slow path (sampled)";
  const LockDiff* l = lock_diff(op, name, type);
  if (l) p.detail += ", " + lock_phrase(*l);
  p.significant = l && (optimistic ? l->optimistic_spin : l->spin).significant();
  for (std::size_t i = 1; i < locks.size() && i < cfg.top; ++i)
    p.detail += fmt::format("; also {} {}/op", std::get<0>(locks[i].first),
                            ns_text(locks[i].second, true));
}

// Sampled deltas become parts of the exact delta: the difference between
// the two (sampling error) is spread over the classes in proportion to
// their size |S_k|. When every class moved the same way this is plain
// scaling, S_k × exact / sampled; when they moved apart (new code up, more
// work down) the parts stay bounded, where scaling by their near-zero sum
// would blow them up or flip them all.
std::array<double, kClassCount> to_exact(const Sampled& s, double exact) {
  double sampled = 0, size = 0;
  for (double t : s.total) {
    sampled += t;
    size += std::fabs(t);
  }
  std::array<double, kClassCount> out = s.total;
  if (size == 0) return out;
  for (int k = 0; k < kClassCount; ++k)
    out[k] += (exact - sampled) * std::fabs(s.total[k]) / size;
  return out;
}

// "ext4/jbd2's own code, entered at ext4_create +8.1 µs/op, ...": where
// the side's code begins, largest share first. `scale`: the part's exact
// delta per sampled one (to_exact).
void describe_fs_path(DeltaPart& p, const std::map<std::string, double>& entered, double scale,
                      const FsCode& fs, const DiffConfig& cfg) {
  std::vector<std::pair<std::string, double>> e;
  for (const auto& [name, d] : entered)
    if (d * scale * p.delta_ns > 0) e.emplace_back(name, d * scale);
  std::stable_sort(e.begin(), e.end(), [](const auto& x, const auto& y) {
    return std::fabs(x.second) > std::fabs(y.second);
  });
  p.fs = fs.label;
  p.detail = fmt::format("{}'s own code", fs.label);
  for (std::size_t i = 0; i < e.size() && i < cfg.top; ++i)
    p.detail += fmt::format("{} {} {}/op", i ? "," : ", entered at", e[i].first,
                            ns_text(e[i].second, true));
}

std::vector<DeltaPart> parts_of(const Sampled& s, const CallGraph& cg, const OpDiff& op,
                                const DiffConfig& cfg, const CrossFs& fs) {
  double exact = op.oncpu.delta();
  std::array<double, kClassCount> delta = to_exact(s, exact);
  std::vector<DeltaPart> parts;
  for (int k = 0; k < kClassCount; ++k) {
    if (s.total[k] == 0) continue;
    DeltaPart p;
    p.kind = kKinds[k];
    p.delta_ns = delta[k];
    p.share = exact != 0 ? p.delta_ns / exact : 0;
    p.where = cg.vertex(narrowest_flow(cg, s.self[k], cfg.flow_share).through).name;
    if (k == kSpin)
      describe_spin(p, s, op, cfg);
    else
      p.significant = op.oncpu.significant() && function_significant(op, p.where);
    if (k == kFsA || k == kFsB)
      describe_fs_path(p, s.entered[k - kFsA], p.delta_ns / s.total[k], *fs.grew(k == kFsB), cfg);
    parts.push_back(std::move(p));
  }
  std::stable_sort(parts.begin(), parts.end(), [](const DeltaPart& x, const DeltaPart& y) {
    return std::fabs(x.delta_ns) > std::fabs(y.delta_ns);
  });
  return parts;
}

}  // namespace

void explain_oncpu(OpDiff& op, const MeanStacks& a, const MeanStacks& b, const DeltaTree& tree,
                   const DiffConfig& cfg, const CrossFs& fs) {
  const FlameInput& fa = a.get(View::OnCpu, op.op);
  const FlameInput& fb = b.get(View::OnCpu, op.op);
  const DeltaNode* root = tree.root();
  if (!root) return;  // no samples of the op on either side
  CallGraph cg = CallGraph::build(fa.stacks, fb.stacks, op.op);
  Sampled s;
  for (auto& v : s.self) v.assign(cg.size(), 0.0);
  Walk w{tree, cg, fs, s, {}};
  walk(*root, Marks{}, w);
  op.oncpu_parts = parts_of(s, cg, op, cfg, fs);
  shares_of_gross(op.oncpu_parts);
}

}  // namespace fscost
