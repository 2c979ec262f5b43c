// The first screen of summary.txt: the reviewer's question answered in at
// most kFirstScreenLines lines — per operation whose cost changed
// significantly, by how much, along which call paths, in which function
// families, and whether lock contention changed (a new contention point, the
// same lock worse, spin or sleep); then the warnings that change how to read
// that. Everything else follows below a separator (render_diff_text).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "report/diff/format.h"
#include "report/diff/text_parts.h"
#include "report/diff_report.h"

namespace fscost::diff_text {

namespace {

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

// A share the screen tells: held, not part of a move, and either where its
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

// "+0.40 µs/op (CI -0.20..+1.00)", one scale for the three; with `times`
// "+50.0 ms (6.0× A, CI +40.1..+59.9)".
std::string delta_ci(const Comparison& c, bool times = false) {
  double mag = std::max({std::fabs(c.delta()), std::fabs(c.ci_lo()), std::fabs(c.ci_hi())});
  auto v = [&](double x) { return diff_fmt::number(x, c.unit, mag, true); };
  std::string ratio = !times          ? ""
                      : c.sa.mean > 0 ? fmt::format("{:.1f}× A, ", c.sb.mean / c.sa.mean)
                                      : "new in B, ";
  return fmt::format("{}{} ({}CI {}..{})", v(c.delta()), diff_fmt::suffix(c.unit, mag), ratio,
                     v(c.ci_lo()), v(c.ci_hi()));
}

// "about 12 runs a side would resolve it", from the pooled noise.
std::string runs_needed(const Diff& d, const Comparison& c) {
  if (c.fragile >= 0 && static_cast<std::size_t>(c.fragile) < d.jackknife.size())
    return fmt::format("it does not hold with {} left out: one run carries it", d.jackknife[c.fragile]);
  const double alpha = d.config.alpha;
  auto r = stats::resolution(c.a, c.b, c.delta(), alpha);
  if (r.runs_needed == 0) return {};
  // Enough runs for one test, not for its FDR family: at the edge.
  if (r.runs_needed <= std::max(c.sa.n, c.sb.n))
    return "the difference is at the edge: resolved by one test at these runs, not after the "
           "FDR control over the diff's figures";
  if (r.runs_needed > stats::kMaxRunsNeeded)
    return fmt::format("over {} runs a side would resolve this difference", stats::kMaxRunsNeeded);
  return fmt::format("about {} runs a side would resolve this difference", r.runs_needed);
}

// "xfs_trans_commit 1.02 -> 2.02/op in every run".
std::string exact_text(const ExactChange& e) {
  const Comparison& c = e.c;
  if (c.unit == "/op")  // counts per op: three digits tell 1.02 from 2.02
    return fmt::format("{} {:.3g} -> {:.3g}/op", e.what, c.sa.mean, c.sb.mean);
  double mag = std::max(std::fabs(c.sa.mean), std::fabs(c.sb.mean));
  return fmt::format("{} {} -> {}{}", e.what, diff_fmt::number(c.sa.mean, c.unit, mag, false),
                     diff_fmt::number(c.sb.mean, c.unit, mag, false), diff_fmt::suffix(c.unit, mag));
}

std::string new_code_text(const OpDiff& op, bool gone) {
  std::vector<std::string> names;
  for (const auto& n : op.new_code)
    if (held(n) && n.gone == gone && names.size() < 4) names.push_back(n.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

// The op's exact facts: counts beyond their spread (unless `counts` is
// false: an op whose time changed says its events on their own line), code
// new in B (or gone). Shown whatever the op's time did.
void exact_lines(Page& page, const OpDiff& op, bool counts = true) {
  std::vector<std::string> ex;
  for (const auto& e : op.exact)
    if (counts && held(e) && ex.size() < 3) ex.push_back(exact_text(e));
  if (!ex.empty())
    page.para(fmt::format("exact, every B run beyond every A run: {}.", fmt::join(ex, "; ")),
              "  - ", "    ");
  for (bool gone : {false, true})
    if (std::string names = new_code_text(op, gone); !names.empty())
      page.para(fmt::format("{}: {}.",
                            gone ? "gone in B (sampled in every A run, no B run)"
                                 : "new in B (sampled in every B run, no A run)",
                            names),
                "  - ", "    ");
}

// "xfs_attr_set: 0.8% -> 2.4% of xfs_create's samples (q 0.003), +0.11 µs/op".
std::string share_text(const ShareChange& s, const char* root = "the op") {
  std::string caller = s.frames.size() > 1 ? s.frames[s.frames.size() - 2] : root;
  const bool per_op = s.ns.unit == "ns/op";
  return fmt::format("{}: {:.2g}% -> {:.2g}% of {}'s samples (q {}), {}{}", s.frames.back(),
                     100 * s.share_a, 100 * s.share_b, caller, diff_fmt::q_text(s.q),
                     diff_fmt::value(s.ns.delta(), s.ns.unit, true), per_op ? "/op" : " a run");
}

// "__xfs_trans_commit, 98% -> 17% of xfs_trans_commit's samples (q <0.001),
// now also under xfs_defer_finish_noroll → xfs_defer_trans_roll →
// xfs_trans_roll (+1.9 µs/op there); xfs_trans_commit +2.1 µs/op in all".
// `op` null: a kernel thread's move, which has no paths.
std::string moved_text(const MovedWork& m, const OpDiff* op) {
  const std::string at = m.at.empty() ? "the op" : m.at.back();
  const char* per = m.net.unit == "ns/op" ? "/op" : " a run";
  // The path to where the work went is this finding, not a line of its own.
  const DeltaPath* path = op ? path_where_moved(m, *op) : nullptr;
  std::string split = path && !path->split.empty() ? ": " + split_items(*path) : "";
  return fmt::format("{}, {:.2g}% -> {:.2g}% of {}'s samples (q {}), now also under {} ({}{} "
                     "there{}); {} {}{} in all",
                     m.from, 100 * m.share_a, 100 * m.share_b, at, diff_fmt::q_text(m.q),
                     fmt::join(m.via, " → "), diff_fmt::value(m.there.delta(), m.there.unit, true),
                     per, split, at, diff_fmt::value(m.net.delta(), m.net.unit, true), per);
}

// Where the op's samples moved down its call tree, the two largest: work
// that moved (the seed's commit, from __xfs_trans_commit to the roll under
// xfs_defer_finish_noroll) whether or not the op's time resolved.
void shares_line(Page& page, const OpDiff& op) {
  for (const auto& m : op.moved)
    if (held(m)) page.para("work moved: " + moved_text(m, &op) + ".", "  - ", "    ");
  std::vector<std::string> shares;
  for (const auto& sh : op.shares)
    if (told(sh, op) && shares.size() < 2) shares.push_back(share_text(sh));
  if (!shares.empty())
    page.para(fmt::format("down the call tree: {}.", fmt::join(shares, "; ")), "  - ", "    ");
}

// Time not resolved, facts exact: the op's block.
void unresolved_block(Page& page, const Diff& d, const OpDiff& op, bool counts = true) {
  const Comparison& c = op.oncpu;
  std::string need = runs_needed(d, c);
  page.para(fmt::format("{}: on-CPU not resolved at {}+{} runs (q {}), {}{}.", op.op, c.sa.n,
                        c.sb.n, diff_fmt::q_text(c.q), delta_ci(c), need.empty() ? "" : "; " + need));
  exact_lines(page, op, counts);
  shares_line(page, op);
}

std::string verdict(const OpDiff& op);

// The unresolved block of an op whose locks were traced, with its
// contention verdict: "is it the contention?" has an answer even when the
// op's time has none yet.
void unresolved_with_locks(Page& page, const Diff& d, const OpDiff& op) {
  unresolved_block(page, d, op);
  if (!op.locks.empty()) page.para(verdict(op), "  ", "    ");
}

// Nothing resolved: the largest differences seen, and the smallest effect
// these runs could have told from noise, never a bare "no change".
std::string silence(const Diff& d, std::size_t width) {
  Page p;
  p.width = width;
  p.blank();
  std::vector<const OpDiff*> tested;
  for (const auto& op : d.ops)
    if (op.tested && op.op != "other") tested.push_back(&op);
  if (tested.empty()) {
    p.para("No operation was called often enough to be tested.");
    return p.out;
  }
  p.para("No tested operation's cost changed beyond this noise. The largest differences:");
  for (std::size_t i = 0; i < tested.size() && i < 2; ++i) {
    const Comparison& c = tested[i]->oncpu;
    auto r = stats::resolution(c.a, c.b, c.delta(), d.config.alpha);
    std::string floor;
    if (std::isfinite(r.min_effect) && c.sa.mean > 0)
      floor = fmt::format("; below {}{} ({:.0f}%) an effect cannot be told from noise at {}+{} runs",
                          diff_fmt::number(r.min_effect, c.unit, r.min_effect, false),
                          diff_fmt::suffix(c.unit, r.min_effect), 100 * r.min_effect / c.sa.mean,
                          c.sa.n, c.sb.n);
    std::string need = runs_needed(d, c);
    p.para(fmt::format("{} on-CPU {}{}{}.", tested[i]->op, delta_ci(c), floor,
                       need.empty() ? "" : "; " + need),
           "  - ", "    ");
  }
  return p.out;
}

// How a lock's cost moved: by the figure that moved most, not by which
// tests passed (that flips between compares; the sizes are in the tables).
std::string how(const LockDiff& l) {
  double opt = std::fabs(l.optimistic_spin.delta()), spin = std::fabs(l.spin.delta()),
         sleep = std::fabs(l.sleep.delta());
  if (opt > std::max(spin, sleep)) return "optimistic spin (sampled)";
  return sleep >= spin ? "sleep" : "spin";
}

std::string verdict(const OpDiff& op) {
  std::vector<std::string> found;
  for (const auto& l : op.locks) {
    std::string what;
    switch (l.change) {
      case LockChange::New: what = "new contention point"; break;
      case LockChange::Worse: what = "same lock, worse"; break;
      case LockChange::Better: what = "same lock, better"; break;
      case LockChange::Gone: what = "contention point gone"; break;
      case LockChange::NoChange: continue;
    }
    found.push_back(fmt::format("{}: {} [{}], {}", what, l.name, l.type, how(l)));
    if (found.size() == 2) break;
  }
  if (found.empty() && holder_wait_changed(op)) {
    const Comparison& w = op.hop_waits.front();
    return fmt::format("contention: the wait on its first holder {}/op (q {}); who held it, "
                       "below.", diff_fmt::value(w.delta(), "ns", true), diff_fmt::q_text(w.q));
  }
  if (found.empty()) {
    // A lock that moved surely but slightly: said with its size, so that
    // "no change" is never read as "not looked at".
    const LockDiff* slight = nullptr;
    for (const auto& l : op.locks)
      if (l.slight && (!slight || std::fabs(l.wait.delta()) > std::fabs(slight->wait.delta())))
        slight = &l;
    if (slight)
      return fmt::format("contention: no change that weighs on the op; the largest, {} [{}], "
                         "{} {}/op (sure: {}), under {:.0f}% of its latency's reach ({}/op).",
                         slight->name, slight->type, how(*slight),
                         diff_fmt::value(slight->wait.delta(), "ns", true),
                         diff_fmt::value(surely_moved(slight->wait), "ns"), 100 * kLockShare,
                         diff_fmt::value(latency_reach(op), "ns"));
    return "contention: no change that weighs on the op; no lock's spin or sleep changed "
           "significantly.";
  }
  std::string s = "contention: ";
  for (std::size_t i = 0; i < found.size(); ++i) s += (i ? "; " : "") + found[i];
  return s + ".";
}

// Significant and material: a steady change of under 5% (xfs_trans_commit
// 1.02 -> 1.02/op, 1 KiB more of 200 MiB) is no reason, however sure.
bool material(const Comparison& c) {
  return c.significant() && !(std::isfinite(c.rel) && std::fabs(c.rel) < 0.05);
}

// The op's filesystem events whose count per op changed significantly, largest
// ratio first: "xfs_trans_commit 1.02 -> 2.02/op" says a second commit.
//
// Across filesystems each side counts only its own events: those are each
// side's figures ("A (ext4): jbd2_handle_start 1, ..."), not changes.
std::string own_events(const OpDiff& op, bool b, const std::string& fs) {
  std::vector<std::string> own;
  for (const auto& [name, c] : op.fs_events) {
    double mine = b ? c.sb.mean : c.sa.mean, other = b ? c.sa.mean : c.sb.mean;
    if (mine >= 0.01 && other == 0) own.push_back(fmt::format("{} {:.3g}", name, mine));
  }
  if (own.empty()) return {};
  return fmt::format("{} ({}) {}", b ? "B" : "A", fs, fmt::join(own, ", "));
}

std::string fs_event_changes(const Diff& d, const OpDiff& op) {
  std::vector<std::pair<double, std::string>> moved;
  if (d.cross_filesystem()) {
    std::string a = own_events(op, false, d.fs_a), b = own_events(op, true, d.fs_b);
    return a.empty() || b.empty() ? a + b : a + "; " + b;
  }
  for (const auto& [name, c] : op.fs_events) {
    // Rare events (the odd log regrant) are in the tables, not the reasons.
    if (!material(c) || std::max(c.sa.mean, c.sb.mean) < 0.01) continue;
    double ratio = c.sa.mean > 0 ? c.sb.mean / c.sa.mean : 1e9;
    moved.emplace_back(std::fabs(std::log(ratio)),
                       fmt::format("{} {:.3g} -> {:.3g}", name, c.sa.mean, c.sb.mean));
  }
  std::sort(moved.begin(), moved.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::string s;
  for (std::size_t i = 0; i < moved.size() && i < 3; ++i) s += (i ? "; " : "") + moved[i].second;
  return s;
}

void op_block(Page& page, const Diff& d, const OpDiff& op) {
  std::string events = fs_event_changes(d, op);
  if (op.oncpu.significant()) {
    page.para(sentence(d, op, true, true));
    paths(page, op);
    if (!events.empty()) page.para("filesystem events per op: " + events + ".", "  - ", "    ");
    exact_lines(page, op, false);
    shares_line(page, op);
  } else if (!op.offcpu.significant() || has_facts(op, false)) {
    // On-CPU not resolved: what its time did and what B does differently
    // (exact counts, new code, moved work), whatever its off-CPU time did;
    // never a bare "no change" (the interval may hold the effect). A
    // significant off-CPU change once dropped these lines: the seed's
    // create lost its roll and new code on two compares of three
    // (2026-12-06). Counts go on the events line when there is one.
    unresolved_block(page, d, op, !op.offcpu.significant() || events.empty());
  }
  if (op.offcpu.significant()) page.para(sentence(d, op, false, true));
  // under the op's off-CPU sentence; across filesystems (each side's own
  // events, no change) only for an op that changed
  if (!op.oncpu.significant() && op.offcpu.significant() && !events.empty())
    page.para("filesystem events per op: " + events + ".", "  - ", "    ");
  page.para(verdict(op), "  ", "    ");
  // Who held the lock, when its wait changed: B's chain (A's if B has
  // none), why that one, and up to two others that matter.
  // (only a change that weighs: a chain under "no change that weighs"
  // would read as the answer it is not)
  if (lock_changed(op)) {
    const auto& c = op.chain_b ? op.chain_b : op.chain_a;
    double ops = op.chain_b ? op.count.sb.mean : op.count.sa.mean;
    if (c)
      page.para(fmt::format("{}: {} — {}", op.chain_b ? "in B" : "in A", chain_text(*c, ops),
                            chain_choice_text(*c, ops, 2)),
                "  ", "    ");
  }
}

// "+50.0 ms (6.0× A, CI +40.1..+59.9)": a background figure's change.
std::string change_text(const Comparison& c) { return delta_ci(c, true); }

// A bucket as the reader should take it: the test filesystem's own, or
// other kernel work that may or may not be for it.
std::string bucket_text(const Diff& d, const BackgroundDiff& b) {
  bool known = std::any_of(d.background.begin(), d.background.end(),
                           [](const BackgroundDiff& x) { return x.test_fs; });
  return known && !b.test_fs ? b.name + " (other kernel work)" : b.name;
}

std::vector<std::string> background_cpu(const Diff& d) {
  std::vector<std::string> out;
  for (const auto& b : d.background)
    if (b.cpu.significant() && out.size() < 3)
      out.push_back(bucket_text(d, b) + " " + change_text(b.cpu));
  return out;
}

// Shares that moved down the test filesystem's buckets' call trees, the
// largest two.
std::vector<std::string> background_shares(const Diff& d) {
  std::vector<std::pair<double, std::string>> found;
  for (const auto& b : d.background)
    for (const auto& sh : b.shares)
      if (told(sh, b.shares))
        found.emplace_back(std::fabs(sh.ns.delta()), bucket_text(d, b) + ": " + share_text(sh, "the work"));
  std::stable_sort(found.begin(), found.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < found.size() && i < 2; ++i) out.push_back(found[i].second);
  return out;
}

// Code new in B inside the test filesystem's buckets, the first three a bucket.
std::vector<std::string> background_new(const Diff& d) {
  std::vector<std::string> out;
  for (const auto& b : d.background) {
    if (b.new_in_b.empty() || out.size() >= 2) continue;
    std::vector<std::string> names(b.new_in_b.begin(),
                                   b.new_in_b.begin() + std::min<std::ptrdiff_t>(3, std::ssize(b.new_in_b)));
    out.push_back(fmt::format("{}: {}{}", bucket_text(d, b), fmt::join(names, ", "),
                              b.new_in_b.size() > 3 ? ", …" : ""));
  }
  return out;
}

// Off-CPU time and lock waits inside work items, largest change first.
std::vector<std::string> background_waits(const Diff& d) {
  std::vector<std::pair<double, std::string>> found;
  for (const auto& b : d.background)
    for (auto [what, c] : {std::pair{"off CPU", &b.offcpu}, {"in locks", &b.lock_wait}}) {
      if (!material(*c)) continue;
      std::string text = bucket_text(d, b) + " " + what + " " + change_text(*c);
      // which lock, when one carries most of the change
      if (c == &b.lock_wait && b.top_lock_share >= 0.5)
        text += fmt::format(", {:.0f}% of it on {}", 100 * std::min(1.0, b.top_lock_share), b.top_lock);
      found.emplace_back(std::fabs(c->delta()), std::move(text));
    }
  std::sort(found.begin(), found.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < found.size() && i < 2; ++i) out.push_back(found[i].second);
  return out;
}

// Kernel threads' filesystem events, largest ratio first (a bucket's transaction
// count doubling says what its extra CPU did).
std::vector<std::string> background_events(const Diff& d) {
  std::vector<std::pair<double, std::string>> found;
  for (const auto& b : d.background)
    for (const auto& [event, c] : b.fs_events)
      if (material(c) && std::max(c.sa.mean, c.sb.mean) >= 1) {
        double ratio = c.sa.mean > 0 ? c.sb.mean / c.sa.mean : 1e9;
        found.emplace_back(std::fabs(std::log(ratio)),
                           fmt::format("{} {} {:.0f} -> {:.0f}", bucket_text(d, b), event,
                                       c.sa.mean, c.sb.mean));
      }
  std::sort(found.begin(), found.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < found.size() && i < 2; ++i) out.push_back(found[i].second);
  return out;
}

// Warnings about the whole comparison, and those about an op whose change
// is shown here; not those that change no figure on the screen (the user
// share, sys against wall time, other work on the machine, a handful of
// missed program runs), nor
// the noise of an op whose line already says its time was not resolved.
// All of them are in the full text below the separator.
bool reads_here(const Warning& w, const std::vector<const OpDiff*>& shown) {
  using enum WarningKind;
  if (w.kind == UserShare || w.kind == BusyMachine || w.kind == DropsMinor || w.kind == WallVsSys)
    return false;
  if (w.kind != Noise && w.kind != OpCount) return true;
  return std::any_of(shown.begin(), shown.end(), [&](const OpDiff* op) {
    return w.op == op->op && (w.kind != Noise || changed(*op));
  });
}

// A warning in one line: up to the last ": " that fits, past the first
// few words ("A run-01.profile is an outlier"; not "create" or "B" alone),
// else the sentence cut to the width. The whole sentence is below the line.
std::string brief(const Warning& w, std::size_t width) {
  std::string line = "- " + w.message;
  std::size_t cut = std::string::npos;
  for (std::size_t at = line.find(": "); at != std::string::npos; at = line.find(": ", at + 1)) {
    if (diff_fmt::columns(std::string_view(line).substr(0, at)) > width) break;
    if (at >= 24) cut = at;
  }
  return cut != std::string::npos ? line.substr(0, cut) : diff_fmt::truncate(line, width);
}

// The one header line: A, B, the runs, what ran (cut to the width; the
// full command is below the line).
std::string title(const Diff& d, std::size_t width) {
  std::string who = fmt::format("A = {}, B = {}: {}+{} runs", d.label_a, d.label_b, d.runs_a, d.runs_b);
  if (diff_fmt::columns(who) > width) {  // long labels (paths): wrapped, never cut
    Page p;
    p.width = width;
    p.para(who);
    return p.out;
  }
  return diff_fmt::truncate(d.workload.empty() ? who : who + ", " + d.workload, width) + "\n";
}

// Why a figure below may not mean what it says, before any is read: the
// filesystems differ in more than asked; intervals are floored by a
// calibration; fscost's own probes cost B noticeably more than A.
std::vector<std::string> confounds(const Diff& d) {
  std::vector<std::string> out;
  if (d.setup.incidental())
    out.push_back("The filesystems differ in more than the options asked: " +
                  fmt::format("{}.", fmt::join(setup_items(d.setup, 3), "; ")));
  if (std::string cal = calibration_brief(d); !cal.empty()) out.push_back(cal);
  // The probes' difference against the smallest on-CPU change shown: under
  // a fifth of it, it changes no reading (the figures are below the line).
  double smallest = std::numeric_limits<double>::infinity();
  for (const auto& op : d.ops)
    if (changed(op) && op.oncpu.significant()) smallest = std::min(smallest, std::fabs(op.oncpu.delta()));
  double probes = std::fabs(d.tracer_b - d.tracer_a);
  if (std::isfinite(probes) && std::isfinite(smallest) && probes > 0.2 * smallest)
    out.push_back(fmt::format("fscost's probes cost {} per traced op in A, {} in B: up to {}/op "
                              "of a delta could be theirs.",
                              diff_fmt::value(d.tracer_a, "ns"), diff_fmt::value(d.tracer_b, "ns"),
                              diff_fmt::value(probes, "ns")));
  return out;
}

std::size_t lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

}  // namespace

bool on_first_screen(const OpDiff& op) { return changed(op) || exactly_changed(op); }

std::string first_screen(const Diff& d, std::size_t width) {
  Page head;
  head.width = width;
  head.out = title(d, width);
  for (const std::string& c : confounds(d)) head.para(c, "! ", "  ");
  std::vector<const OpDiff*> shown;
  std::vector<std::string> blocks;
  for (const auto& op : d.ops)
    if (changed(op) || exactly_changed(op)) {
      Page b;
      b.width = width;
      b.blank();
      if (changed(op))
        op_block(b, d, op);
      else
        unresolved_with_locks(b, d, op);
      blocks.push_back(std::move(b.out));
      shown.push_back(&op);
    }
  // Work the runs caused outside any operation, by kernel thread.
  std::vector<std::string> bg = background_cpu(d), waits = background_waits(d),
                           events = background_events(d), bg_shares = background_shares(d),
                           bg_new = background_new(d);
  std::string dev;
  if (const Comparison& c = d.device_bytes; material(c)) {
    dev = "test device writes per run: " + change_text(c);
    // what moved: data, metadata or log (REQ_META, the log's sectors)
    std::vector<std::string> kinds;
    for (const auto& [kind, k] : d.device_bytes_by_kind)
      if (material(k)) kinds.push_back(kind + " " + diff_fmt::value(k.delta(), k.unit, true));
    dev += kinds.empty() ? "." : fmt::format(": {}.", fmt::join(kinds, ", "));
  }
  // The device's bytes by kind that moved beyond their spread while the
  // total did not resolve.
  std::string exact_dev;
  if (dev.empty()) {
    std::vector<std::string> kinds;
    for (const auto& e : d.exact) kinds.push_back(exact_text(e));
    if (!kinds.empty())
      exact_dev = fmt::format("test device writes per run, exact (every B run beyond every A "
                              "run): {}.",
                              fmt::join(kinds, "; "));
  }
  std::size_t bg_at = blocks.size();  // none
  if (!bg.empty() || !waits.empty() || !events.empty() || !dev.empty() || !exact_dev.empty() ||
      !bg_shares.empty() || !bg_new.empty()) {
    // Second: after the op that costs most, before the smaller ones (the
    // demo's whole story is writeback work).
    bg_at = std::min<std::size_t>(1, blocks.size());
    Page b;
    b.width = width;
    b.blank();
    if (!bg.empty()) b.para(fmt::format("kernel threads CPU per run: {}.", fmt::join(bg, "; ")));
    if (!bg_shares.empty())
      b.para(fmt::format("kernel threads down the call tree: {}.", fmt::join(bg_shares, "; ")));
    if (!bg_new.empty())
      b.para(fmt::format("kernel threads, new in B (sampled in every B run, no A run): {}.",
                         fmt::join(bg_new, "; ")));
    if (!waits.empty())
      b.para(fmt::format("kernel threads waiting per run (summed over their workers): {}.",
                         fmt::join(waits, "; ")));
    if (!events.empty())
      b.para(fmt::format("kernel threads' filesystem events per run: {}.", fmt::join(events, "; ")));
    if (!dev.empty()) b.para(dev);
    if (!exact_dev.empty()) b.para(exact_dev);
    blocks.insert(blocks.begin() + static_cast<std::ptrdiff_t>(bg_at), std::move(b.out));
  }
  Page warn;
  warn.width = width;
  bool any = false;
  const bool bg_block = bg_at < blocks.size();
  for (const auto& w : d.warnings)
    // the kernel threads' block says per bucket what "background" says in sum
    if (reads_here(w, shown) && !(bg_block && w.kind == WarningKind::Background)) {
      if (!any) (warn.blank(), warn.line("warnings (in full below the line):"));
      any = true;
      warn.line(brief(w, width));
    }
  // Ops in the diff's order (by what they cost the workload) while they fit.
  std::string out = head.out;
  std::size_t budget = kFirstScreenLines - std::min(kFirstScreenLines, lines(out) + 2);
  std::size_t warn_lines = std::min(lines(warn.out), budget / 3);
  // In order, while they fit: the op that costs most is never left out for
  // a smaller one. The first always shows, before the warnings' share of
  // the screen, cut to the screen if it must be.
  std::size_t used = 0, left_out = 0;
  std::vector<std::string> left_names;  // the ops left out, named on the screen
  bool bg_left_out = false;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const std::string& b = blocks[i];
    if (i == 0 && lines(b) > budget - warn_lines) {
      std::size_t keep = std::min(lines(b), budget - 1), at = 0;
      for (std::size_t n = 0; n < keep; ++n) at = b.find('\n', at) + 1;
      out += b.substr(0, at);
      if (at < b.size()) out += "  (continued below)\n";
      used += keep + (at < b.size());
      continue;
    }
    if (left_out > 0 || bg_left_out || used + lines(b) + warn_lines > budget) {
      if (i == bg_at)
        bg_left_out = true;
      else
        left_names.push_back(shown[i > bg_at ? i - 1 : i]->op), ++left_out;
      continue;
    }
    out += b;
    used += lines(b);
  }
  if (blocks.empty()) out += silence(d, width);
  std::string below;  // what changed and is left for below the line
  if (left_out > 0 || bg_left_out)
    below = fmt::format("{}{}{}",
                        left_out ? fmt::format("{} more operation{} changed ({})", left_out,
                                               left_out == 1 ? "" : "s",
                                               fmt::join(left_names, ", "))
                                 : "",
                        left_out && bg_left_out ? "; " : "",
                        bg_left_out ? "kernel threads' and device changes" : "");
  std::string unnamed_below = below;
  if (left_out > 0) {
    const std::string named = fmt::format(" ({})", fmt::join(left_names, ", "));
    unnamed_below.erase(unnamed_below.find(named), named.size());
  }
  const std::size_t below_lines = below.empty() ? 0 : 2;
  // Warnings last, cut to what is left of the screen.
  // one line kept for "(N more warnings below)", and one for the blank
  // above it when no warning fits
  std::size_t room =
      kFirstScreenLines - std::min(kFirstScreenLines, lines(out) + below_lines + 2);
  std::size_t n = 0, at = 0;
  while (at < warn.out.size() && n < room) {
    at = warn.out.find('\n', at) + 1;
    ++n;
  }
  std::size_t more = 0;  // the warnings left out here, all of them in the text below
  for (const auto& w : d.warnings) more += !(reads_here(w, shown) && !(bg_block && w.kind == WarningKind::Background));
  for (std::size_t rest = at; rest < warn.out.size();) {
    more += warn.out.compare(rest, 2, "- ") == 0;
    std::size_t nl = warn.out.find('\n', rest);
    if (nl == std::string::npos) break;
    rest = nl + 1;
  }
  // Ops and kernel threads can fill the screen to the line that says what
  // is below; with no room left for a line of their own, the warnings left
  // out join that line (a recorded rmapbt case came to 42 lines without).
  const bool join = more > 0 && at == 0 && !below.empty() &&
                    lines(out) + below_lines + 2 > kFirstScreenLines;
  if (!below.empty()) {
    const std::string tail =
        join ? fmt::format("; {} more warning{}", more, more == 1 ? "" : "s") : "";
    std::string line = fmt::format("{}{}: below.", below, tail);
    if (line.size() > width)  // the ops' names, where the line has room for them
      line = fmt::format("{}{}: below.", unnamed_below, tail);
    out += "\n" + line + "\n";
  }
  out += warn.out.substr(0, at);
  if (more > 0 && !join)
    out += fmt::format("{}({} more warning{} below)\n", at == 0 ? "\n" : "", more, more == 1 ? "" : "s");
  return out;
}

}  // namespace fscost::diff_text
