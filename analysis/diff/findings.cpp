// The one selection of what a Diff says (findings.h). Every rule that
// decides whether a change is told lives here; the renderers only word it.
#include "diff/findings.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace fscost {

std::string_view finding_name(FindingKind k) {
  switch (k) {
#define FSCOST_X(id, name) \
  case FindingKind::id:    \
    return name;
    FSCOST_FINDING_KINDS(FSCOST_X)
#undef FSCOST_X
  }
  return "?";
}

std::string_view to_string(ContentionAnswer a) {
  switch (a) {
    case ContentionAnswer::Locks: return "locks";
    case ContentionAnswer::HolderWait: return "holder-wait";
    case ContentionAnswer::Slight: return "slight";
    case ContentionAnswer::None: return "none";
  }
  return "?";
}

namespace {

// Significant and at least 5% relative: a steady change of under 5%
// (xfs_trans_commit 1.02 -> 1.02/op, 1 KiB more of 200 MiB) is no reason,
// however sure.
bool material(const Comparison& c) {
  return c.significant() && !(std::isfinite(c.rel) && std::fabs(c.rel) < 0.05);
}

// A lock's verdict changed, or the wait on the chain's first holder did.
bool lock_changed(const OpDiff& op) {
  return holder_wait_changed(op) ||
         std::any_of(op.locks.begin(), op.locks.end(),
                     [](const LockDiff& l) { return l.change != LockChange::NoChange; });
}

bool changed(const OpDiff& op) {
  return op.tested && (op.oncpu.significant() || op.offcpu.significant() || lock_changed(op));
}

// Found with every run and with any one left out (diff/stability.h).
bool held(const ExactChange& e) { return e.c.fragile < 0; }
bool held(const NewCode& n) { return n.fragile < 0; }
bool held(const ShareChange& s) { return s.fragile < 0 && s.within < 0; }
bool held(const MovedWork& m) { return m.fragile < 0; }

template <class T>
bool any_held(const std::vector<T>& v) {
  return std::any_of(v.begin(), v.end(), [](const T& x) { return held(x); });
}

// A share that is told: held, not part of a move, and either where its
// branch changed or a caller none of whose findings below it held (the
// AGI read of agcount, whose xfs_buf_find_lock below is fragile).
bool told(const ShareChange& s, const std::vector<ShareChange>& all) {
  if (!held(s)) return false;
  if (!s.caller) return true;
  return std::none_of(all.begin(), all.end(), [&](const ShareChange& t) {
    return held(t) && t.frames.size() > s.frames.size() &&
           std::equal(s.frames.begin(), s.frames.end(), t.frames.begin());
  });
}

// A share worth a line under an op: told, and at least kShareFloor of the
// op's on-CPU time per op (the sweep finds sure changes of 50 ns).
constexpr double kShareFloor = 0.02;
bool told(const ShareChange& s, const OpDiff& op) {
  return told(s, op.shares) &&
         std::fabs(s.ns.delta()) >= kShareFloor * std::max(op.oncpu.sa.mean, op.oncpu.sb.mean);
}

bool any_told(const OpDiff& op) {
  return std::any_of(op.shares.begin(), op.shares.end(),
                     [&](const ShareChange& s) { return told(s, op); });
}

// What B does differently, told whatever the op's time did: exact counts,
// new code, shares and work that moved. `locks`: a lock's contention
// counts too (not where the off-CPU sentence tells that lock already).
bool has_facts(const OpDiff& op, bool locks = true) {
  return std::any_of(op.exact.begin(), op.exact.end(),
                     [&](const ExactChange& e) { return held(e) && (locks || !e.lock); }) ||
         any_held(op.new_code) || any_told(op) || any_held(op.moved);
}

// An op whose time is not resolved but whose exact counts or code changed:
// what B does differently has an answer, what it costs does not yet.
bool exactly_changed(const OpDiff& op) { return op.tested && !changed(op) && has_facts(op); }

void push(std::vector<Finding>& out, Finding f) {
  if (!f.items.empty()) out.push_back(std::move(f));
}

// The op's filesystem events whose count per op changed materially, the
// largest ratio first, at most three ("xfs_trans_commit 1.02 -> 2.02"
// says a second commit). Across filesystems each side counts only its
// own events: each side's own, not changes.
Finding fs_events(const Diff& d, std::size_t i) {
  const OpDiff& op = d.ops[i];
  Finding f{FindingKind::FsEvents, i};
  std::vector<std::pair<double, std::size_t>> moved;
  std::size_t k = 0;
  for (auto it = op.fs_events.begin(); it != op.fs_events.end(); ++it, ++k) {
    const Comparison& c = it->second;
    if (d.cross_filesystem()) {
      bool own = (c.sa.mean >= 0.01 && c.sb.mean == 0) || (c.sb.mean >= 0.01 && c.sa.mean == 0);
      if (own) f.items.push_back({k});
      continue;
    }
    // Rare events (the odd log regrant) are in the tables, not the reasons.
    if (!material(c) || std::max(c.sa.mean, c.sb.mean) < 0.01) continue;
    double ratio = c.sa.mean > 0 ? c.sb.mean / c.sa.mean : 1e9;
    moved.emplace_back(std::fabs(std::log(ratio)), k);
  }
  std::sort(moved.begin(), moved.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  for (std::size_t n = 0; n < moved.size() && n < 3; ++n) f.items.push_back({moved[n].second});
  return f;
}

// Exact facts: counts beyond their spread (the three largest), code new in
// B and gone (four each), work that moved, and the two largest shares.
void facts(std::vector<Finding>& out, const OpDiff& op, std::size_t i, bool counts) {
  Finding ex{FindingKind::ExactCounts, i};
  for (std::size_t k = 0; k < op.exact.size(); ++k)
    if (counts && held(op.exact[k]) && ex.items.size() < 3) ex.items.push_back({k});
  push(out, std::move(ex));
  for (bool gone : {false, true}) {
    Finding n{gone ? FindingKind::GoneCode : FindingKind::NewCode, i};
    for (std::size_t k = 0; k < op.new_code.size(); ++k)
      if (held(op.new_code[k]) && op.new_code[k].gone == gone && n.items.size() < 4)
        n.items.push_back({k});
    push(out, std::move(n));
  }
  for (std::size_t k = 0; k < op.moved.size(); ++k)
    if (held(op.moved[k])) out.push_back({FindingKind::MovedWork, i, {{k}}});
  Finding sh{FindingKind::Shares, i};
  for (std::size_t k = 0; k < op.shares.size(); ++k)
    if (told(op.shares[k], op) && sh.items.size() < 2) sh.items.push_back({k});
  push(out, std::move(sh));
}

// The reviewer's question: the locks whose contention changed and weighs
// on the op (two at most), else the wait on its chain's first holder, else
// the lock that moved surely but slightly (said with its size, so that "no
// change" is never read as "not looked at"), else none.
Finding contention(const OpDiff& op, std::size_t i) {
  Finding f{FindingKind::Contention, i};
  for (std::size_t k = 0; k < op.locks.size() && f.items.size() < 2; ++k)
    if (op.locks[k].change != LockChange::NoChange) f.items.push_back({k});
  if (!f.items.empty()) {
    f.answer = ContentionAnswer::Locks;
    return f;
  }
  if (holder_wait_changed(op)) {
    f.answer = ContentionAnswer::HolderWait;
    return f;
  }
  std::size_t slight = op.locks.size();
  for (std::size_t k = 0; k < op.locks.size(); ++k)
    if (op.locks[k].slight &&
        (slight == op.locks.size() ||
         std::fabs(op.locks[k].wait.delta()) > std::fabs(op.locks[slight].wait.delta())))
      slight = k;
  if (slight < op.locks.size()) {
    f.answer = ContentionAnswer::Slight;
    f.items.push_back({slight});
  }
  return f;
}

// An op whose time or a lock's verdict changed.
FindingBlock changed_block(const Diff& d, std::size_t i) {
  const OpDiff& op = d.ops[i];
  FindingBlock b{i};
  auto& out = b.findings;
  Finding events = fs_events(d, i);
  if (op.oncpu.significant()) {
    out.push_back({FindingKind::OpTime, i});
    for (std::size_t k = 0; k < op.paths.size(); ++k)
      if (path_shown(op.paths[k], op)) out.push_back({FindingKind::Path, i, {{k}}});
    Finding fam{FindingKind::Families, i};
    for (std::size_t k : told_families(op)) fam.items.push_back({k});
    push(out, std::move(fam));
    push(out, events);
    facts(out, op, i, false);
  } else if (!op.offcpu.significant() || has_facts(op, false)) {
    // On-CPU not resolved: what its time did and what B does differently
    // (exact counts, new code, moved work), whatever its off-CPU time did;
    // never a bare "no change" (the interval may hold the effect). A
    // significant off-CPU change once dropped these lines: the seed's
    // create lost its roll and new code on two compares of three
    // (2026-12-06). Counts go on the events line when there is one.
    out.push_back({FindingKind::Unresolved, i});
    facts(out, op, i, !op.offcpu.significant() || events.items.empty());
  }
  if (op.offcpu.significant()) {
    Finding off{FindingKind::OpTime, i};
    off.oncpu = false;
    out.push_back(off);
    if (!op.oncpu.significant()) push(out, events);
  }
  out.push_back(contention(op, i));
  // Who held the lock, only for a change that weighs: a chain under "no
  // change that weighs" would read as the answer it is not.
  if (lock_changed(op) && (op.chain_b || op.chain_a)) out.push_back({FindingKind::Chain, i});
  return b;
}

// Time not resolved, facts exact, and its contention verdict where its
// locks were traced: "is it the contention?" has an answer even when the
// op's time has none yet.
FindingBlock exact_block(const OpDiff& op, std::size_t i) {
  FindingBlock b{i};
  b.findings.push_back({FindingKind::Unresolved, i});
  facts(b.findings, op, i, true);
  if (!op.locks.empty()) b.findings.push_back(contention(op, i));
  return b;
}

// `found` sorted by its first member, largest first, the `n` first kept.
Finding largest(FindingKind kind, std::vector<std::pair<double, Item>> found, std::size_t n,
                bool stable) {
  auto by = [](const auto& x, const auto& y) { return x.first > y.first; };
  if (stable)
    std::stable_sort(found.begin(), found.end(), by);
  else
    std::sort(found.begin(), found.end(), by);
  Finding f{kind};
  for (std::size_t k = 0; k < found.size() && k < n; ++k) f.items.push_back(found[k].second);
  return f;
}

// Work the runs caused outside any operation, by kernel thread, and the
// test device's writes.
FindingBlock background_block(const Diff& d) {
  FindingBlock b;
  auto& out = b.findings;
  Finding cpu{FindingKind::BackgroundCpu};
  for (std::size_t k = 0; k < d.background.size(); ++k)
    if (d.background[k].cpu.significant() && cpu.items.size() < 3) cpu.items.push_back({k});
  push(out, std::move(cpu));
  std::vector<std::pair<double, Item>> shares, waits, events;
  for (std::size_t k = 0; k < d.background.size(); ++k) {
    const BackgroundDiff& bg = d.background[k];
    for (std::size_t s = 0; s < bg.shares.size(); ++s)
      if (told(bg.shares[s], bg.shares)) shares.push_back({std::fabs(bg.shares[s].ns.delta()), {k, s}});
  }
  push(out, largest(FindingKind::BackgroundShares, std::move(shares), 2, true));
  Finding fresh{FindingKind::BackgroundNew};
  for (std::size_t k = 0; k < d.background.size() && fresh.items.size() < 2; ++k)
    if (!d.background[k].new_in_b.empty()) fresh.items.push_back({k});
  push(out, std::move(fresh));
  for (std::size_t k = 0; k < d.background.size(); ++k) {
    const BackgroundDiff& bg = d.background[k];
    for (std::size_t w = 0; w < 2; ++w) {
      const Comparison& c = w == 0 ? bg.offcpu : bg.lock_wait;
      if (material(c)) waits.push_back({std::fabs(c.delta()), {k, w}});
    }
    for (std::size_t e = 0; e < bg.fs_events.size(); ++e) {
      const Comparison& c = bg.fs_events[e].second;
      if (!material(c) || std::max(c.sa.mean, c.sb.mean) < 1) continue;
      double ratio = c.sa.mean > 0 ? c.sb.mean / c.sa.mean : 1e9;
      events.push_back({std::fabs(std::log(ratio)), {k, e}});
    }
  }
  push(out, largest(FindingKind::BackgroundWaits, std::move(waits), 2, false));
  push(out, largest(FindingKind::BackgroundEvents, std::move(events), 2, false));
  if (material(d.device_bytes)) {
    // what moved: data, metadata or log (REQ_META, the log's sectors); a
    // finding with no kind says the total alone
    Finding dev{FindingKind::DeviceBytes};
    for (std::size_t k = 0; k < d.device_bytes_by_kind.size(); ++k)
      if (material(d.device_bytes_by_kind[k].second)) dev.items.push_back({k});
    out.push_back(std::move(dev));
  } else {
    // the bytes by kind that moved beyond their spread while the total
    // did not resolve
    Finding ex{FindingKind::DeviceExact};
    for (std::size_t k = 0; k < d.exact.size(); ++k) ex.items.push_back({k});
    push(out, std::move(ex));
  }
  return b;
}

// Warnings about the whole comparison, and those about an op whose change
// is shown; not those that change no figure on the screen (the user
// share, sys against wall time, other work on the machine, a handful of
// missed program runs), nor the noise of an op whose block already says
// its time was not resolved, nor "background" beside the kernel threads'
// block, which says per bucket what it says in sum.
bool reads_here(const Warning& w, const Diff& d, const std::vector<FindingBlock>& blocks) {
  using enum WarningKind;
  if (w.kind == UserShare || w.kind == BusyMachine || w.kind == DropsMinor || w.kind == WallVsSys)
    return false;
  if (w.kind == Background)
    return std::none_of(blocks.begin(), blocks.end(),
                        [](const FindingBlock& b) { return b.op == kNoOp; });
  if (w.kind != Noise && w.kind != OpCount) return true;
  return std::any_of(blocks.begin(), blocks.end(), [&](const FindingBlock& b) {
    return b.op != kNoOp && w.op == d.ops[b.op].op && (w.kind != Noise || changed(d.ops[b.op]));
  });
}

}  // namespace

bool on_first_screen(const OpDiff& op) { return changed(op) || exactly_changed(op); }

const MovedWork* telling_move(const DeltaPath& p, const OpDiff& op) {
  const std::size_t n = p.frames.size();
  if (n < 2) return nullptr;
  auto ends_with = [&](const std::vector<std::string>& chain) {
    return !chain.empty() && chain.size() < n &&
           std::equal(chain.begin(), chain.end(), p.frames.end() - 1 - chain.size());
  };
  for (const MovedWork& m : op.moved)
    if (m.fragile < 0 && p.frames[n - 1] == m.from && (ends_with(m.at) || ends_with(m.via)))
      return &m;
  return nullptr;
}

bool path_shown(const DeltaPath& p, const OpDiff& op) {
  return p.inclusive.significant() && !telling_move(p, op);
}

std::vector<std::size_t> told_families(const OpDiff& op) {
  std::vector<std::size_t> out;
  if (!op.oncpu.significant()) return out;
  // The most novel first, by B's mean as a multiple of A's (new = ∞): code
  // B runs and A (almost) does not is the mechanism's name; a family A
  // already ran, costing a little more, is its consequence.
  auto novelty = [&](std::size_t k) {
    const auto& c = op.families[k].inclusive;
    double r = c.sa.mean > 0 ? c.sb.mean / c.sa.mean : HUGE_VAL;
    return c.delta() >= 0 ? r : (c.sb.mean > 0 ? c.sa.mean / c.sb.mean : HUGE_VAL);
  };
  std::vector<std::size_t> order(op.families.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return novelty(x) > novelty(y); });
  for (std::size_t k : order) {
    const Comparison& c = op.families[k].inclusive;
    // significant, and at least 5% of the op's delta
    if (!c.significant() || std::fabs(c.delta()) < 0.05 * std::fabs(op.oncpu.delta())) continue;
    // A family on nearly every stack of the op (the syscall entry's) is
    // the op itself, not a subsystem within it.
    if (std::min(c.sa.mean, c.sb.mean) >= 0.9 * std::min(op.oncpu.sa.mean, op.oncpu.sb.mean))
      continue;
    if (out.size() == 5) break;
    out.push_back(k);
  }
  return out;
}

Findings select_findings(const Diff& d) {
  Findings f;
  if (d.setup.incidental()) f.confounds.push_back({FindingKind::SetupDiffers});
  if (d.config.calibration) f.confounds.push_back({FindingKind::Calibrated});
  // The probes' difference against the smallest on-CPU change shown: under
  // a fifth of it, it changes no reading (the figures are below the line).
  double smallest = std::numeric_limits<double>::infinity();
  for (const auto& op : d.ops)
    if (changed(op) && op.oncpu.significant()) smallest = std::min(smallest, std::fabs(op.oncpu.delta()));
  double probes = std::fabs(d.tracer_b - d.tracer_a);
  if (std::isfinite(probes) && std::isfinite(smallest) && probes > 0.2 * smallest)
    f.confounds.push_back({FindingKind::ProbeCost});

  for (std::size_t i = 0; i < d.ops.size(); ++i) {
    if (changed(d.ops[i]))
      f.blocks.push_back(changed_block(d, i));
    else if (exactly_changed(d.ops[i]))
      f.blocks.push_back(exact_block(d.ops[i], i));
  }
  // The kernel threads' block second: after the op that costs most, before
  // the smaller ones (the demo's whole story is writeback work).
  if (FindingBlock bg = background_block(d); !bg.findings.empty())
    f.blocks.insert(f.blocks.begin() + std::min<std::ptrdiff_t>(1, std::ssize(f.blocks)),
                    std::move(bg));
  if (f.blocks.empty()) {
    Finding q{FindingKind::Quiet};
    for (std::size_t i = 0; i < d.ops.size() && q.items.size() < 2; ++i)
      if (d.ops[i].tested && d.ops[i].op != "other") q.items.push_back({i});
    f.quiet.push_back(std::move(q));
  }
  for (std::size_t k = 0; k < d.warnings.size(); ++k)
    if (reads_here(d.warnings[k], d, f.blocks))
      f.warnings.push_back({FindingKind::Warning, kNoOp, {{k}}});
    else
      ++f.other_warnings;
  return f;
}

}  // namespace fscost
