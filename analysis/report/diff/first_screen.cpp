// The first screen of summary.txt: the reviewer's question answered in at
// most kFirstScreenLines lines, laid out from the diff's findings
// (diff/findings.h, which decides what is told): per operation whose cost
// changed, by how much, along which call paths, in which function
// families, and whether lock contention changed; the kernel threads'
// work; then the warnings that change how to read that. Everything else
// follows below a separator (render_diff_text). Each finding is worded
// here once, with the words that lead to its rows and graphs marked, so
// that the HTML verdict shows these lines and links them without reading
// them again.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "diff/findings.h"
#include "report/diff/format.h"
#include "report/diff/text_parts.h"
#include "report/diff_report.h"
#include "views/wait_graph.h"

namespace fscost::diff_text {

namespace {

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

// How a lock's cost moved: by the figure that moved most, not by which
// tests passed (that flips between compares; the sizes are in the tables).
std::string how(const LockDiff& l) {
  double opt = std::fabs(l.optimistic_spin.delta()), spin = std::fabs(l.spin.delta()),
         sleep = std::fabs(l.sleep.delta());
  if (opt > std::max(spin, sleep)) return "optimistic spin (sampled)";
  return sleep >= spin ? "sleep" : "spin";
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


// A finding's paragraph as it is built: its words, where links start, and
// how its lines open. `verbatim`: one line as it is, never wrapped.
struct Said {
  std::string text;
  std::string_view first, rest = "  ";
  std::vector<Link> links;
  bool verbatim = false;

  Said& add(std::string_view s) {
    text += s;
    return *this;
  }
  Said& add(std::string_view s, Target to) {
    links.push_back({text.size(), s.size(), to});
    text += s;
    return *this;
  }
};

Said item(std::string text) { return {std::move(text), "  - ", "    "}; }

// A bucket's name, linked, as the reader should take it: the test
// filesystem's own, or other kernel work that may or may not be for it.
void add_bucket(Said& s, const Diff& d, std::size_t k) {
  s.add(d.background[k].name, {Target::Bucket, 0, k});
  s.add(bucket_text(d, d.background[k]).substr(d.background[k].name.size()));
}

// "create: on-CPU +2.0 µs/op (...": the op's name leads to its row, the
// figure (up to its interval, or the view's word alone) to its graph.
Said lead(std::string sentence, std::size_t op, const std::string& name, bool oncpu) {
  Said s{std::move(sentence)};
  const std::string_view view = oncpu ? "on-CPU" : "off-CPU";
  const std::size_t at = name.size() + 2;
  s.links.push_back({0, name.size(), {Target::OpRow, op, 0, oncpu}});
  std::string_view rest = std::string_view(s.text).substr(at);
  if (rest.starts_with(view)) {
    std::size_t n = view.size();
    if (rest.size() >= n + 2 && rest[n] == ' ' && (rest[n + 1] == '+' || rest[n + 1] == '-'))
      n = std::min(rest.find(" (", n), rest.size());
    s.links.push_back({at, n, {Target::OpGraph, op, 0, oncpu}});
  }
  return s;
}

// The contention verdict: which locks' contention changed and how, the
// wait on the chain's first holder, a slight change with its size, or none.
Said contention(const OpDiff& op, std::size_t i, const Finding& f) {
  Said s{"", "  ", "    "};
  s.add("contention: ");
  switch (f.answer) {
    case ContentionAnswer::Locks:
      for (std::size_t n = 0; n < f.items.size(); ++n) {
        const LockDiff& l = op.locks[f.items[n].i];
        const char* what = l.change == LockChange::New     ? "new contention point"
                           : l.change == LockChange::Worse ? "same lock, worse"
                           : l.change == LockChange::Better ? "same lock, better"
                                                            : "contention point gone";
        s.add(n ? "; " : "").add(what).add(": ").add(l.name, {Target::Lock, i, f.items[n].i});
        s.add(fmt::format(" [{}], {}", l.type, how(l)));
      }
      return s.add(".");
    case ContentionAnswer::HolderWait: {
      const Comparison& w = op.hop_waits.front();
      return s.add(fmt::format("the wait on its first holder {}/op (q {}); who held it, below.",
                               diff_fmt::value(w.delta(), "ns", true), diff_fmt::q_text(w.q)));
    }
    case ContentionAnswer::Slight: {
      const std::size_t k = f.items.front().i;
      const LockDiff& l = op.locks[k];
      s.add("no change that weighs on the op; the largest, ").add(l.name, {Target::Lock, i, k});
      return s.add(fmt::format(" [{}], {} {}/op (sure: {}), under {:.0f}% of its latency's "
                               "reach ({}/op).",
                               l.type, how(l), diff_fmt::value(l.wait.delta(), "ns", true),
                               diff_fmt::value(surely_moved(l.wait), "ns"), 100 * kLockShare,
                               diff_fmt::value(latency_reach(op), "ns")));
    }
    case ContentionAnswer::None:
      break;
  }
  return s.add("no change that weighs on the op; no lock's spin or sleep changed significantly.");
}

// "B (xfs) parent_add 1; A ...": across filesystems each side's own events;
// else "xfs_trans_commit 1.02 -> 2.02; ...".
std::string fs_events_text(const Diff& d, const OpDiff& op, const Finding& f) {
  std::vector<std::pair<std::string, const Comparison*>> events;
  for (const auto& [name, c] : op.fs_events) events.emplace_back(name, &c);
  if (!d.cross_filesystem()) {
    std::vector<std::string> moved;
    for (const Item& it : f.items) {
      const Comparison& c = *events[it.i].second;
      moved.push_back(fmt::format("{} {:.3g} -> {:.3g}", events[it.i].first, c.sa.mean, c.sb.mean));
    }
    return fmt::format("{}", fmt::join(moved, "; "));
  }
  std::string out;
  for (bool b : {false, true}) {
    std::vector<std::string> own;
    for (const Item& it : f.items) {
      const Comparison& c = *events[it.i].second;
      double mine = b ? c.sb.mean : c.sa.mean;
      if (mine >= 0.01) own.push_back(fmt::format("{} {:.3g}", events[it.i].first, mine));
    }
    if (own.empty()) continue;
    out += fmt::format("{}{} ({}) {}", out.empty() ? "" : "; ", b ? "B" : "A", b ? d.fs_b : d.fs_a,
                       fmt::join(own, ", "));
  }
  return out;
}

// Nothing resolved: the largest differences seen, and the smallest effect
// these runs could have told from noise, never a bare "no change".
std::vector<Said> quiet(const Diff& d, const Finding& f) {
  if (f.items.empty()) return {Said{"No operation was called often enough to be tested."}};
  std::vector<Said> out{
      Said{"No tested operation's cost changed beyond this noise. The largest differences:"}};
  for (const Item& it : f.items) {
    const OpDiff& op = d.ops[it.i];
    const Comparison& c = op.oncpu;
    auto r = stats::resolution(c.a, c.b, c.delta(), d.config.alpha);
    std::string floor;
    if (std::isfinite(r.min_effect) && c.sa.mean > 0)
      floor = fmt::format("; below {}{} ({:.0f}%) an effect cannot be told from noise at {}+{} runs",
                          diff_fmt::number(r.min_effect, c.unit, r.min_effect, false),
                          diff_fmt::suffix(c.unit, r.min_effect), 100 * r.min_effect / c.sa.mean,
                          c.sa.n, c.sb.n);
    std::string need = runs_needed(d, c);
    out.push_back(item(fmt::format("{} on-CPU {}{}{}.", op.op, delta_ci(c), floor,
                                   need.empty() ? "" : "; " + need)));
  }
  return out;
}

// A finding in words: its paragraphs, each with its links.
std::vector<Said> say(const Diff& d, const Finding& f, std::size_t width) {
  const OpDiff* op = f.op != kNoOp ? &d.ops[f.op] : nullptr;
  auto joined = [&](const char* head, auto&& each) {
    std::vector<std::string> parts;
    for (const Item& it : f.items) parts.push_back(each(it));
    return fmt::format("{}{}.", head, fmt::join(parts, "; "));
  };
  // A kernel threads' line: its buckets linked, each item after its name.
  auto buckets = [&](const char* head, auto&& after) {
    Said s{head};
    for (std::size_t n = 0; n < f.items.size(); ++n) {
      s.add(n ? "; " : "");
      add_bucket(s, d, f.items[n].i);
      s.add(after(f.items[n]));
    }
    return s.add(".");
  };
  auto confound = [](std::string text) { return Said{std::move(text), "! ", "  "}; };
  switch (f.kind) {
    case FindingKind::SetupDiffers:
      return {confound("The filesystems differ in more than the options asked: " +
                       fmt::format("{}.", fmt::join(setup_items(d.setup, 3), "; ")))};
    case FindingKind::Calibrated:
      return {confound(calibration_brief(d))};
    case FindingKind::ProbeCost:
      return {confound(fmt::format(
          "fscost's probes cost {} per traced op in A, {} in B: up to {}/op of a delta could be "
          "theirs.",
          diff_fmt::value(d.tracer_a, "ns"), diff_fmt::value(d.tracer_b, "ns"),
          diff_fmt::value(std::fabs(d.tracer_b - d.tracer_a), "ns")))};
    case FindingKind::OpTime:
      return {lead(sentence(d, *op, f.oncpu, true), f.op, op->op, f.oncpu)};
    case FindingKind::Unresolved: {
      const Comparison& c = op->oncpu;
      std::string need = runs_needed(d, c);
      return {lead(fmt::format("{}: on-CPU not resolved at {}+{} runs (q {}), {}{}.", op->op,
                               c.sa.n, c.sb.n, diff_fmt::q_text(c.q), delta_ci(c),
                               need.empty() ? "" : "; " + need),
                   f.op, op->op, true)};
    }
    case FindingKind::Path:
      return {item(path_line(op->paths[f.items.front().i], *op))};
    case FindingKind::Families: {
      std::vector<std::size_t> told;
      for (const Item& it : f.items) told.push_back(it.i);
      return {item(families_line(*op, told))};
    }
    case FindingKind::FsEvents:
      return {item("filesystem events per op: " + fs_events_text(d, *op, f) + ".")};
    case FindingKind::ExactCounts:
      return {item(joined("exact, every B run beyond every A run: ",
                          [&](const Item& it) { return exact_text(op->exact[it.i]); }))};
    case FindingKind::NewCode:
    case FindingKind::GoneCode: {
      std::vector<std::string> names;
      for (const Item& it : f.items) names.push_back(op->new_code[it.i].name);
      return {item(fmt::format("{}: {}.",
                               f.kind == FindingKind::GoneCode
                                   ? "gone in B (sampled in every A run, no B run)"
                                   : "new in B (sampled in every B run, no A run)",
                               fmt::join(names, ", ")))};
    }
    case FindingKind::MovedWork:
      return {item("work moved: " + moved_text(op->moved[f.items.front().i], op) + ".")};
    case FindingKind::Shares: {
      std::vector<std::string> shares;
      for (const Item& it : f.items) shares.push_back(share_text(op->shares[it.i]));
      return {item(fmt::format("down the call tree: {}.", fmt::join(shares, "; ")))};
    }
    case FindingKind::Contention:
      return {contention(*op, f.op, f)};
    case FindingKind::Chain: {
      const auto& c = op->chain_b ? op->chain_b : op->chain_a;
      double ops = op->chain_b ? op->count.sb.mean : op->count.sa.mean;
      return {Said{fmt::format("{}: {} — {}", op->chain_b ? "in B" : "in A", chain_text(*c, ops),
                               chain_choice_text(*c, ops, 2)),
                   "  ", "    "}};
    }
    case FindingKind::BackgroundCpu:
      return {buckets("kernel threads CPU per run: ", [&](const Item& it) {
        return " " + change_text(d.background[it.i].cpu);
      })};
    case FindingKind::BackgroundShares:
      return {buckets("kernel threads down the call tree: ", [&](const Item& it) {
        return ": " + share_text(d.background[it.i].shares[it.j], "the work");
      })};
    case FindingKind::BackgroundNew:
      return {buckets("kernel threads, new in B (sampled in every B run, no A run): ",
                      [&](const Item& it) {
                        const auto& fresh = d.background[it.i].new_in_b;
                        std::vector<std::string> names(
                            fresh.begin(), fresh.begin() + std::min<std::ptrdiff_t>(3, std::ssize(fresh)));
                        return fmt::format(": {}{}", fmt::join(names, ", "),
                                           fresh.size() > 3 ? ", …" : "");
                      })};
    case FindingKind::BackgroundWaits:
      return {buckets("kernel threads waiting per run (summed over their workers): ",
                      [&](const Item& it) {
                        const BackgroundDiff& b = d.background[it.i];
                        const Comparison& c = it.j == 0 ? b.offcpu : b.lock_wait;
                        std::string text =
                            fmt::format(" {} {}", it.j == 0 ? "off CPU" : "in locks", change_text(c));
                        // which lock, when one carries most of the change
                        if (it.j == 1 && b.top_lock_share >= 0.5)
                          text += fmt::format(", {:.0f}% of it on {}",
                                              100 * std::min(1.0, b.top_lock_share), b.top_lock);
                        return text;
                      })};
    case FindingKind::BackgroundEvents:
      return {buckets("kernel threads' filesystem events per run: ", [&](const Item& it) {
        const auto& [event, c] = d.background[it.i].fs_events[it.j];
        return fmt::format(" {} {:.0f} -> {:.0f}", event, c.sa.mean, c.sb.mean);
      })};
    case FindingKind::DeviceBytes: {
      std::vector<std::string> kinds;
      for (const Item& it : f.items) {
        const auto& [kind, k] = d.device_bytes_by_kind[it.i];
        kinds.push_back(kind + " " + diff_fmt::value(k.delta(), k.unit, true));
      }
      return {Said{"test device writes per run: " + change_text(d.device_bytes) +
                   (kinds.empty() ? "." : fmt::format(": {}.", fmt::join(kinds, ", ")))}};
    }
    case FindingKind::DeviceExact:
      return {Said{joined("test device writes per run, exact (every B run beyond every A run): ",
                          [&](const Item& it) { return exact_text(d.exact[it.i]); })}};
    case FindingKind::Quiet:
      return quiet(d, f);
    case FindingKind::Warning: {
      Said s{brief(d.warnings[f.items.front().i], width)};
      s.verbatim = true;
      return {s};
    }
  }
  return {};
}

// `s` wrapped to `width`, each link kept on the line its words landed on
// (one the wrap split or cut is left out).
void lay(std::vector<ScreenLine>& out, const Said& s, std::size_t width) {
  if (s.verbatim) {
    out.push_back({s.text, s.links});
    return;
  }
  std::vector<diff_fmt::Placed> placed;
  const std::size_t base = out.size();
  for (auto& l : diff_fmt::wrap(s.text, width, s.first, s.rest, &placed)) out.push_back({l, {}});
  auto word_at = [&](std::size_t byte) {
    return std::find_if(placed.begin(), placed.end(), [&](const diff_fmt::Placed& p) {
      return byte >= p.src && byte < p.src + p.len;
    });
  };
  for (const Link& l : s.links) {
    auto a = word_at(l.at), b = word_at(l.at + l.len - 1);
    if (l.len == 0 || a == placed.end() || b == placed.end() || a->line != b->line) continue;
    ScreenLine& line = out[base + a->line];
    const std::size_t col = a->col + (l.at - a->src);
    if (line.text.compare(col, l.len, s.text, l.at, l.len) == 0)
      line.links.push_back({col, l.len, l.to});
  }
}

// The one header line: A, B, the runs, what ran (cut to the width; the
// full command is below the line).
void title(std::vector<ScreenLine>& out, const Diff& d, std::size_t width) {
  std::string who = fmt::format("A = {}, B = {}: {}+{} runs", d.label_a, d.label_b, d.runs_a, d.runs_b);
  if (diff_fmt::columns(who) > width)  // long labels (paths): wrapped, never cut
    return lay(out, Said{who}, width);
  out.push_back({diff_fmt::truncate(d.workload.empty() ? who : who + ", " + d.workload, width), {}});
}

std::vector<ScreenLine> laid(const Diff& d, const std::vector<Finding>& fs, std::size_t width) {
  std::vector<ScreenLine> out;
  for (const Finding& f : fs)
    for (const Said& s : say(d, f, width)) lay(out, s, width);
  return out;
}

void append(std::vector<ScreenLine>& out, const std::vector<ScreenLine>& more, std::size_t n) {
  out.insert(out.end(), more.begin(), more.begin() + static_cast<std::ptrdiff_t>(n));
}

}  // namespace

std::string finding_text(const Diff& d, const Finding& f, std::size_t width) {
  std::string out;
  for (const Said& s : say(d, f, width)) out += (out.empty() ? "" : " ") + s.text;
  return out;
}

std::vector<ScreenLine> first_screen_lines(const Diff& d, std::size_t width) {
  const Findings found = select_findings(d);
  std::vector<ScreenLine> out;
  title(out, d, width);
  for (const ScreenLine& l : laid(d, found.confounds, width)) out.push_back(l);
  // Each block opens on a blank line.
  std::vector<std::vector<ScreenLine>> blocks;
  for (const FindingBlock& b : found.blocks) {
    blocks.push_back({ScreenLine{}});
    for (ScreenLine& l : laid(d, b.findings, width)) blocks.back().push_back(std::move(l));
  }
  std::vector<ScreenLine> warn;  // a blank, the head, one line per warning
  if (!found.warnings.empty()) {
    warn = {ScreenLine{}, ScreenLine{"warnings (in full below the line):", {}}};
    for (ScreenLine& l : laid(d, found.warnings, width)) warn.push_back(std::move(l));
  }
  const std::size_t head = 2;  // warn's lines before its first warning
  // Blocks in the findings' order while they fit: the op that costs most is
  // never left out for a smaller one. The first always shows, before the
  // warnings' share of the screen, cut to the screen if it must be.
  std::size_t budget = kFirstScreenLines - std::min(kFirstScreenLines, out.size() + 2);
  std::size_t warn_lines = std::min(warn.size(), budget / 3);
  std::size_t used = 0, left_out = 0;
  std::vector<std::string> left_names;  // the ops left out, named on the screen
  bool bg_left_out = false;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const auto& b = blocks[i];
    if (i == 0 && b.size() > budget - warn_lines) {
      std::size_t keep = std::min(b.size(), budget - 1);
      append(out, b, keep);
      if (keep < b.size()) out.push_back({"  (continued below)", {}});
      used += keep + (keep < b.size());
      continue;
    }
    if (left_out > 0 || bg_left_out || used + b.size() + warn_lines > budget) {
      if (found.blocks[i].op == kNoOp)
        bg_left_out = true;
      else
        left_names.push_back(d.ops[found.blocks[i].op].op), ++left_out;
      continue;
    }
    append(out, b, b.size());
    used += b.size();
  }
  if (blocks.empty()) {
    out.push_back({});
    for (ScreenLine& l : laid(d, found.quiet, width)) out.push_back(std::move(l));
  }
  std::string below, unnamed_below;  // what changed and is left for below the line
  if (left_out > 0 || bg_left_out) {
    auto ops = [&](bool named) {
      return left_out == 0 ? std::string()
                           : fmt::format("{} more operation{} changed{}", left_out,
                                         left_out == 1 ? "" : "s",
                                         named ? fmt::format(" ({})", fmt::join(left_names, ", "))
                                               : "");
    };
    auto rest = fmt::format("{}{}", left_out && bg_left_out ? "; " : "",
                            bg_left_out ? "kernel threads' and device changes" : "");
    below = ops(true) + rest;
    unnamed_below = ops(false) + rest;
  }
  const std::size_t below_lines = below.empty() ? 0 : 2;
  // Warnings last, cut to what is left of the screen: one line kept for
  // "(N more warnings below)", and one for the blank above it when no
  // warning fits.
  std::size_t room = kFirstScreenLines - std::min(kFirstScreenLines, out.size() + below_lines + 2);
  const std::size_t shown = std::min(room, warn.size());
  // the warnings left out here, all of them in the text below
  const std::size_t more =
      found.other_warnings + found.warnings.size() - (shown > head ? shown - head : 0);
  // Ops and kernel threads can fill the screen to the line that says what
  // is below; with no room left for a line of their own, the warnings left
  // out join that line (a recorded rmapbt case came to 42 lines without).
  const bool join = more > 0 && shown == 0 && !below.empty() &&
                    out.size() + below_lines + 2 > kFirstScreenLines;
  if (!below.empty()) {
    const std::string tail =
        join ? fmt::format("; {} more warning{}", more, more == 1 ? "" : "s") : "";
    std::string line = fmt::format("{}{}: below.", below, tail);
    if (line.size() > width)  // the ops' names, where the line has room for them
      line = fmt::format("{}{}: below.", unnamed_below, tail);
    out.push_back({});
    out.push_back({line, {}});
  }
  append(out, warn, shown);
  if (more > 0 && !join) {
    if (shown == 0) out.push_back({});
    out.push_back({fmt::format("({} more warning{} below)", more, more == 1 ? "" : "s"), {}});
  }
  return out;
}

std::string first_screen(const Diff& d, std::size_t width) {
  std::string out;
  for (const ScreenLine& l : first_screen_lines(d, width)) out += l.text + "\n";
  return out;
}

}  // namespace fscost::diff_text
