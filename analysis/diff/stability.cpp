// The jackknife's keys and its demotion (stability.h).
#include "diff/stability.h"

#include <string_view>
#include <type_traits>

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
  cmp(key({"sys"}), d.sys_ns);
  cmp(key({"user"}), d.user_ns);
  cmp(key({"wall"}), d.wall_ns);
  cmp(key({"user_share"}), d.user_share);
  cmp(key({"kthread"}), d.kthread_ns);
  cmp(key({"fs_kthread"}), d.fs_kthread_ns);
  cmp(key({"device_bytes"}), d.device_bytes);
  for (auto& [kind, c] : d.device_bytes_by_kind) cmp(key({"device_bytes", kind}), c);
  for (auto& e : d.exact) item(key({"exact", e.what}), direction(e.c.delta()), e.c.fragile);
  for (auto& bg : d.background) {
    cmp(key({"bg", bg.name, "cpu"}), bg.cpu);
    cmp(key({"bg", bg.name, "offcpu"}), bg.offcpu);
    cmp(key({"bg", bg.name, "lock_wait"}), bg.lock_wait);
    for (auto& [event, c] : bg.fs_events) cmp(key({"bg", bg.name, "event", event}), c);
    for (auto& s : bg.shares)
      item(key({"bg", bg.name, "share", frames_key(s.frames)}), direction(s.share_b - s.share_a),
           s.fragile);
  }
  for (auto& op : d.ops) {
    const std::string& o = op.op;
    for (const auto& m : kOpMetrics) cmp(key({"op", o, std::string(m.key)}), op.*m.field);
    for (auto& [cls, c] : op.offcpu_by_class) cmp(key({"op", o, "class", cls}), c);
    for (auto& [event, c] : op.fs_events) cmp(key({"op", o, "event", event}), c);
    for (auto& f : op.functions) {
      cmp(key({"op", o, "fn", f.name, "inclusive"}), f.inclusive);
      cmp(key({"op", o, "fn", f.name, "self"}), f.self);
    }
    for (auto& f : op.families) cmp(key({"op", o, "family", f.name}), f.inclusive);
    for (auto& p : op.paths) cmp(key({"op", o, "path", p.kind, p.frames.empty() ? "" : p.frames.back()}), p.inclusive);
    for (auto& l : op.locks)
      for (const auto& m : kLockMetrics)
        cmp(key({"op", o, "lock", l.name, l.type, std::string(m.key)}), l.*m.field);
    for (std::size_t i = 0; i < op.hop_waits.size(); ++i)
      cmp(key({"op", o, "hop", std::to_string(i)}), op.hop_waits[i]);
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

Findings findings_of(const Diff& d) {
  Findings f;
  // A comparison holds without a run when its own test, alone, still
  // tells it from noise in the same direction: the full diff's FDR control
  // chose it among all; one run fewer must not also pay for the family
  // (at 3 runs a side that would drop most real effects, wsync's log-force
  // wait among them).
  each_finding(
      d,
      [&](std::string k, const Comparison& c) {
        if (c.tested() && c.p() <= d.config.alpha) f.emplace(std::move(k), direction(c.delta()));
      },
      [&](std::string k, int dir, const int&) { f.emplace(std::move(k), dir); });
  // A share found deeper in a leave-one-out holds the nodes above it in
  // its branch: the descent reports a branch's deepest discovery, and one
  // run fewer can end it a frame sooner or later (the seed's roll:
  // xfs_defer_finish_noroll, or xfs_defer_trans_roll below it).
  auto prefixes = [&](std::initializer_list<std::string_view> head, const ShareChange& sh) {
    std::vector<std::string> frames;
    for (const auto& fr : sh.frames) {
      frames.push_back(fr);
      std::vector<std::string_view> parts(head);
      std::string fk = frames_key(frames);
      parts.push_back(fk);
      std::string k;
      for (std::string_view p : parts) {
        if (!k.empty()) k += '\x1f';
        k += p;
      }
      f.emplace(std::move(k), direction(sh.share_b - sh.share_a));
    }
  };
  for (const auto& op : d.ops)
    for (const auto& sh : op.shares) prefixes({"op", op.op, "share"}, sh);
  // Moved work is two shares told as one: a leave-one-out that found the
  // pair holds the shares, and one that found the share that fell (its
  // sibling's rise below a discovery threshold) holds the move.
  for (const auto& op : d.ops) {
    for (const auto& m : op.moved) {
      ShareChange fell, rose;
      fell.frames = m.at;
      fell.frames.push_back(m.from);
      fell.share_a = 1;  // fell
      rose.frames = m.at;
      rose.frames.insert(rose.frames.end(), m.via.begin(), m.via.end());
      rose.share_b = 1;  // rose
      prefixes({"op", op.op, "share"}, fell);
      prefixes({"op", op.op, "share"}, rose);
    }
    for (const auto& sh : op.shares)
      if (sh.share_b < sh.share_a && !sh.frames.empty()) {
        std::vector<std::string> at(sh.frames.begin(), sh.frames.end() - 1);
        f.emplace(key({"op", op.op, "moved", frames_key(at), sh.frames.back()}), 1);
      }
  }
  for (const auto& bg : d.background)
    for (const auto& sh : bg.shares) prefixes({"bg", bg.name, "share"}, sh);
  // Code new in a kernel thread's bucket, by presence like an op's.
  for (const auto& bg : d.background)
    for (const auto& n : bg.new_in_b) f.emplace(key({"bg", bg.name, "new", n}), 1);
  return f;
}

void mark_fragile(Diff& d, const std::vector<Findings>& left_out) {
  each_finding(
      d,
      [&](const std::string& k, Comparison& c) {
        if (!c.significant()) return;
        if (int i = lost_in(left_out, k, direction(c.delta())); i >= 0) {
          c.fragile = i;
          c.verdict = Verdict::NoChange;
        }
      },
      [&](const std::string& k, int dir, int& fragile) { fragile = lost_in(left_out, k, dir); });
  for (auto& bg : d.background)
    std::erase_if(bg.new_in_b, [&](const std::string& n) {
      return lost_in(left_out, key({"bg", bg.name, "new", n}), 1) >= 0;
    });
}

}  // namespace fscost
