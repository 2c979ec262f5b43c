// The jackknife's keys and its demotion (stability.h).
#include "diff/stability.h"

#include <string_view>
#include <type_traits>
#include <unordered_set>

#include "diff/calibration.h"
#include "diff/internal.h"  // without_run, op_tested
#include "model/parallel.h"

namespace fscost {

namespace {

// Keys join their parts with a byte no name holds.
std::string key(std::initializer_list<std::string_view> parts) {
  std::string k;
  for (std::string_view p : parts) {
    if (!k.empty()) k += '\x1f';
    k += p;
  }
  return k;
}

std::string frames_key(const std::vector<std::string>& frames) {
  std::string k;
  for (const auto& f : frames) (k += f) += ';';
  return k;
}

int direction(double delta) { return delta < 0 ? -1 : 1; }

// Every finding of `d` in one walk, so the keys are written once:
// cmp(key, Comparison&) for what a test decides (a finding when
// significant), item(key, direction, int& fragile) for what is found by
// presence (exact changes, new code, shares down the call tree). D is Diff
// or const Diff.
template <class D, class Cmp, class Item>
void each_finding(D& d, Cmp&& cmp, Item&& item) {
  cmp([&] { return key({"sys"}); }, d.sys_ns);
  cmp([&] { return key({"user"}); }, d.user_ns);
  cmp([&] { return key({"wall"}); }, d.wall_ns);
  cmp([&] { return key({"user_share"}); }, d.user_share);
  cmp([&] { return key({"kthread"}); }, d.kthread_ns);
  cmp([&] { return key({"fs_kthread"}); }, d.fs_kthread_ns);
  cmp([&] { return key({"device_bytes"}); }, d.device_bytes);
  // (pairs, not bindings: clang before 16 cannot capture those, and the
  // FSCOST_FUZZ build is clang's)
  for (auto& e : d.device_bytes_by_kind) cmp([&] { return key({"device_bytes", e.first}); }, e.second);
  for (auto& e : d.exact) item(key({"exact", e.what}), direction(e.c.delta()), e.c.fragile);
  for (auto& bg : d.background) {
    cmp([&] { return key({"bg", bg.name, "cpu"}); }, bg.cpu);
    cmp([&] { return key({"bg", bg.name, "offcpu"}); }, bg.offcpu);
    cmp([&] { return key({"bg", bg.name, "lock_wait"}); }, bg.lock_wait);
    for (auto& e : bg.fs_events) cmp([&] { return key({"bg", bg.name, "event", e.first}); }, e.second);
    for (auto& s : bg.shares)
      item(key({"bg", bg.name, "share", frames_key(s.frames)}), direction(s.share_b - s.share_a),
           s.fragile);
  }
  for (auto& op : d.ops) {
    const std::string& o = op.op;
    for (const auto& m : kOpMetrics) cmp([&] { return key({"op", o, std::string(m.key)}); }, op.*m.field);
    for (auto& e : op.offcpu_by_class) cmp([&] { return key({"op", o, "class", e.first}); }, e.second);
    for (auto& e : op.fs_events) cmp([&] { return key({"op", o, "event", e.first}); }, e.second);
    for (auto& f : op.functions) {
      cmp([&] { return key({"op", o, "fn", f.name, "inclusive"}); }, f.inclusive);
      cmp([&] { return key({"op", o, "fn", f.name, "self"}); }, f.self);
    }
    for (auto& f : op.families) cmp([&] { return key({"op", o, "family", f.name}); }, f.inclusive);
    for (auto& p : op.paths) cmp([&] { return key({"op", o, "path", p.kind, p.frames.empty() ? "" : p.frames.back()}); }, p.inclusive);
    for (auto& l : op.locks)
      for (const auto& m : kLockMetrics)
        cmp([&] { return key({"op", o, "lock", l.name, l.type, std::string(m.key)}); }, l.*m.field);
    for (std::size_t i = 0; i < op.hop_waits.size(); ++i)
      cmp([&] { return key({"op", o, "hop", std::to_string(i)}); }, op.hop_waits[i]);
    for (auto& e : op.exact) item(key({"op", o, "exact", e.what}), direction(e.c.delta()), e.c.fragile);
    for (auto& n : op.new_code)
      item(key({"op", o, n.gone ? "gone" : "new", n.name}), n.gone ? -1 : 1, n.fragile);
    for (auto& s : op.shares)
      item(key({"op", o, "share", frames_key(s.frames)}), direction(s.share_b - s.share_a),
           s.fragile);
    for (auto& m : op.moved) item(key({"op", o, "moved", frames_key(m.at), m.from}), 1, m.fragile);
  }
}

// The first leave-one-out that lacks `k` in direction `dir`, or -1.
int lost_in(const std::vector<Findings>& left_out, const std::string& k, int dir) {
  for (std::size_t i = 0; i < left_out.size(); ++i) {
    auto it = left_out[i].find(k);
    if (it == left_out[i].end() || it->second != dir) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

namespace {

// A call tree's findings (an op's, `head` "op", or a kernel-thread
// bucket's, "bg"): its shares and moved work, and what they hold (the
// nodes above a share; a move's two shares; the move a fallen share is
// half of). descent.cpp's found_again reads the same off a trie's nodes.
void add_share_findings(Findings& f, std::string_view head, const std::string& name,
                        const std::vector<ShareChange>& shares,
                        const std::vector<MovedWork>& moved) {
  for (const auto& s : shares)
    f.emplace(key({head, name, "share", frames_key(s.frames)}), direction(s.share_b - s.share_a));
  for (const auto& m : moved) f.emplace(key({head, name, "moved", frames_key(m.at), m.from}), 1);
  // A share found deeper in a leave-one-out holds the nodes above it in
  // its branch: the descent reports a branch's deepest discovery, and one
  // run fewer can end it a frame sooner or later (the seed's roll:
  // xfs_defer_finish_noroll, or xfs_defer_trans_roll below it).
  auto prefixes = [&](const ShareChange& sh) {
    std::vector<std::string> frames;
    for (const auto& fr : sh.frames) {
      frames.push_back(fr);
      f.emplace(key({head, name, "share", frames_key(frames)}), direction(sh.share_b - sh.share_a));
    }
  };
  for (const auto& sh : shares) prefixes(sh);
  // Moved work is two shares told as one: a leave-one-out that found the
  // pair holds the shares, and one that found the share that fell (its
  // sibling's rise below a discovery threshold) holds the move.
  for (const auto& m : moved) {
    ShareChange fell, rose;
    fell.frames = m.at;
    fell.frames.push_back(m.from);
    fell.share_a = 1;  // fell
    rose.frames = m.at;
    rose.frames.insert(rose.frames.end(), m.via.begin(), m.via.end());
    rose.share_b = 1;  // rose
    prefixes(fell);
    prefixes(rose);
  }
  for (const auto& sh : shares)
    if (sh.share_b < sh.share_a && !sh.frames.empty()) {
      std::vector<std::string> at(sh.frames.begin(), sh.frames.end() - 1);
      f.emplace(key({head, name, "moved", frames_key(at), sh.frames.back()}), 1);
    }
}

}  // namespace

std::string bucket_new_key(const std::string& bucket, const std::string& code) {
  return key({"bg", bucket, "new", code});
}

Findings findings_of(const Diff& d) {
  Findings f;
  // A comparison holds without a run when its own test, alone, still
  // tells it from noise in the same direction: the full diff's FDR control
  // chose it among all; one run fewer must not also pay for the family
  // (at 3 runs a side that would drop most real effects, wsync's log-force
  // wait among them).
  each_finding(
      d,
      [&](auto&& k, const Comparison& c) {
        if (c.tested() && c.p() <= d.config.alpha) f.emplace(k(), direction(c.delta()));
      },
      [&](std::string k, int dir, const int&) { f.emplace(std::move(k), dir); });
  for (const auto& op : d.ops) add_share_findings(f, "op", op.op, op.shares, op.moved);
  for (const auto& bg : d.background) {
    add_share_findings(f, "bg", bg.name, bg.shares, {});
    // Code new in a kernel thread's bucket, by presence like an op's.
    for (const auto& n : bg.new_in_b) f.emplace(bucket_new_key(bg.name, n), 1);
  }
  return f;
}

void mark_fragile(Diff& d, const std::vector<Diff>& left_out, const std::vector<Findings>& held) {
  std::vector<Findings> items;
  items.reserve(left_out.size());
  for (std::size_t i = 0; i < left_out.size(); ++i) {
    items.push_back(findings_of(left_out[i]));
    if (i < held.size()) items.back().insert(held[i].begin(), held[i].end());
  }
  // The op figures a calibration floors (floor_intervals), with their op.
  std::unordered_map<const Comparison*, std::pair<const CalibratedFigure*, const OpDiff*>> floored;
  if (const Calibration* cal = d.config.calibration.get())
    for (const auto& op : d.ops)
      for (std::string_view name : kCalibratedFigures)
        if (const CalibratedFigure* f = cal->find(op.op, name))
          floored.emplace(calibrated_figure(op, name), std::pair{f, &op});
  // A family is one while two of its functions are sampled.
  std::unordered_map<const Comparison*, std::pair<const FamilyDiff*, const OpDiff*>> families;
  for (const auto& op : d.ops)
    for (const auto& f : op.families) families.emplace(&f.inclusive, std::pair{&f, &op});
  // Whether `c` still holds, in its direction, without run `run`.
  auto holds = [&](const Comparison& c, std::size_t run) {
    if (auto it = families.find(&c);
        it != families.end() && !family_without(*it->second.second, *it->second.first, run, d.runs_a))
      return false;
    // A floored figure is tested again whole (apply_floor reads its
    // interval); any other only as far as its verdict.
    auto it = floored.find(&c);
    Comparison k = it != floored.end() ? without_run(c, run, d.runs_a, d.config)
                                       : retest_without_run(c, run, d.runs_a, d.config);
    if (it != floored.end()) {
      const auto [f, op] = it->second;
      if (op_tested(op->op, retest_without_run(op->count, run, d.runs_a, d.config), d.config))
        apply_floor(k, *f, *d.config.calibration, d.config.level);
    }
    return k.tested() && k.p() <= d.config.alpha && direction(k.delta()) == direction(c.delta());
  };
  // A path or a wait chain's hop is found by a search over the runs (the
  // differential tree, the heaviest chain): without a run it holds if the
  // search, done again, finds it, and its test passes.
  std::unordered_set<const Comparison*> searched;
  for (const auto& op : d.ops) {
    for (const auto& p : op.paths) searched.insert(&p.inclusive);
    for (const auto& h : op.hop_waits) searched.insert(&h);
  }
  // The shares and moves the descents without each run marked already.
  std::unordered_set<const int*> descended;
  for (const auto& op : d.ops) {
    for (const auto& sh : op.shares) descended.insert(&sh.fragile);
    for (const auto& m : op.moved) descended.insert(&m.fragile);
  }
  for (const auto& bg : d.background)
    for (const auto& sh : bg.shares) descended.insert(&sh.fragile);
  std::vector<Comparison*> tested;  // again, each without each run: in parallel
  std::unordered_set<const Comparison*> once;
  each_finding(
      d,
      [&](auto&& k, Comparison& c) {
        if (!c.significant()) return;
        if (!searched.contains(&c)) {
          if (once.insert(&c).second) tested.push_back(&c);
        } else if (int i = lost_in(items, k(), direction(c.delta())); i >= 0) {
          c.fragile = i;
          c.verdict = Verdict::NoChange;
        }
      },
      [&](const std::string& k, int dir, int& fragile) {
        if (!descended.contains(&fragile)) fragile = lost_in(items, k, dir);
      });
  parallel_for(tested.size(), [&](std::size_t i) {
    Comparison& c = *tested[i];
    for (std::size_t run = 0; run < left_out.size(); ++run)
      if (!holds(c, run)) {
        c.fragile = static_cast<int>(run);
        c.verdict = Verdict::NoChange;
        return;
      }
  });
  for (auto& bg : d.background)
    std::erase_if(bg.new_in_b, [&](const std::string& n) {
      return lost_in(items, bucket_new_key(bg.name, n), 1) >= 0;
    });
}

void mark_fragile(Diff& d, const std::vector<Findings>& left_out) {
  each_finding(
      d,
      [&](auto&& k, Comparison& c) {
        if (!c.significant()) return;
        if (int i = lost_in(left_out, k(), direction(c.delta())); i >= 0) {
          c.fragile = i;
          c.verdict = Verdict::NoChange;
        }
      },
      [&](const std::string& k, int dir, int& fragile) { fragile = lost_in(left_out, k, dir); });
  for (auto& bg : d.background)
    std::erase_if(bg.new_in_b, [&](const std::string& n) {
      return lost_in(left_out, bucket_new_key(bg.name, n), 1) >= 0;
    });
}

}  // namespace fscost
