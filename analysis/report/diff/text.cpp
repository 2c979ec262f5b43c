// The diff as mail-ready text: header, warnings, then per operation one
// sentence per side of the CPU (on-CPU, off-CPU) saying how much changed,
// how sure that is, and where the change comes from; the tables follow
// (report/diff/text_tables.cpp). No line is wider than the page.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "diff/findings.h"
#include "report/diff/format.h"
#include "report/diff/text_parts.h"
#include "report/diff_report.h"

namespace fscost {

namespace diff_text {

void Page::line(std::string_view s) {
  out += s;
  out += '\n';
}

void Page::para(std::string_view text, std::string_view first, std::string_view rest) {
  for (const auto& l : diff_fmt::wrap(text, width, first, rest)) line(l);
}

namespace {

using namespace diff_fmt;

std::string ci_label(double level) { return fmt::format("{:g}% CI", 100 * level); }

}  // namespace

void method(Page& page, const Diff& d) {
  if (!d.workload.empty()) page.para("what ran: " + d.workload + ".");
  if (d.runs_a < 2 || d.runs_b < 2)
    page.para(
        fmt::format("Too few runs for a conclusion ({} vs {}): a test needs at least 2 "
                    "runs of each configuration, 5 or more to find small changes.",
                    d.runs_a, d.runs_b));
  page.para(
      fmt::format("B against A per operation; {}s of the difference; significance by "
                  "Welch's t (functions, paths and optimistic spin: a quasi-Poisson "
                  "test on their sample counts) with Benjamini-Hochberg FDR {:g} per "
                  "family ({} metrics, "
                  "{} function and {} lock comparisons); ops with fewer than {:g} calls "
                  "per run and \"other\" not tested. '*' significant, '~' not.",
                  ci_label(d.config.level), d.config.alpha, d.families.metrics,
                  d.families.functions, d.families.locks, d.config.min_ops));
  if (std::isfinite(d.tracer_a) && std::isfinite(d.tracer_b))
    page.para(
        fmt::format("fscost's probes: {} per traced op in A, {} in B (bpf_stats of "
                    "the warm-up runs); up to {}/op of a delta could be theirs.",
                    value(d.tracer_a, "ns"), value(d.tracer_b, "ns"),
                    value(std::fabs(d.tracer_b - d.tracer_a), "ns")));
  if (std::string cal = calibration_line(d); !cal.empty()) page.para(cal);
}

void warnings(Page& page, const Diff& d) {
  if (d.warnings.empty()) return;
  page.blank();
  page.line("warnings:");
  for (const auto& w : d.warnings) page.para(w.message, "- ", "  ");
}

namespace {

void header(Page& page, const Diff& d) {
  page.para(fmt::format("fscost diff: A = {} ({} run{}), B = {} ({} run{})", d.label_a, d.runs_a,
                        d.runs_a == 1 ? "" : "s", d.label_b, d.runs_b, d.runs_b == 1 ? "" : "s"));
  method(page, d);
}

// "on-CPU +1.9 µs/op (+18%, 95% CI +1.2..+2.6, q 0.002)"
std::string measured(std::string_view what, const Comparison& c, double level) {
  double mag = std::fabs(c.delta());
  if (c.tested()) mag = std::max({mag, std::fabs(c.ci_lo()), std::fabs(c.ci_hi())});
  if (!std::isfinite(mag)) mag = 0;
  std::string s = fmt::format("{} {}{} ({}", what, number(c.delta(), c.unit, mag, true),
                              suffix(c.unit, mag), rel_short(c));
  if (c.tested())
    s += fmt::format(", {} {}..{}", ci_label(level), number(c.ci_lo(), c.unit, mag, true),
                     number(c.ci_hi(), c.unit, mag, true));
  if (c.verdict != Verdict::TooFewRuns) s += ", q " + q_text(c.q);
  return s + ")";
}

std::string share_text(double share) {
  double p = std::fabs(100 * share);
  return p < 0.5 ? "<1%" : fmt::format("{:.0f}%", p);
}

std::string under(std::string_view word, const std::string& where) {
  return where.empty() ? std::string() : fmt::format(" {} {}", word, where);
}

// What a part is, in the direction of its own delta.
std::string phrase(const DeltaPart& p) {
  bool more = p.delta_ns >= 0;
  const std::string& k = p.kind;
  std::string mw = more ? "more" : "less";
  if (k == "new-code") return (more ? "new code" : "code gone") + under("under", p.where);
  if (k == "fs-path") return "different code path (" + p.fs + ")" + under("under", p.where);
  if (k == "spin") return mw + " spin" + under("on", p.where);
  if (k == "more-work") return "same path, " + mw + " work" + under("under", p.where);
  if (k == "lock") return mw + " sleep" + under("on", p.where);
  if (k == "io") return mw + " I/O wait" + under("under", p.where);
  if (k == "log-reserve") return mw + " log space wait" + under("under", p.where);
  if (k == "log-force") return mw + " log force wait" + under("under", p.where);
  if (k == "runqueue") return mw + " run-queue wait";
  if (k == "sleep") return mw + " other sleep" + under("under", p.where);
  return mw + " " + k + under("under", p.where);
}

// A wait class's detail only names the class, which the phrase already
// says; a lock's (or spin's) detail says how the lock changed.
bool is_wait_class(const std::string& kind) {
  return kind == "io" || kind == "log-reserve" || kind == "log-force" || kind == "runqueue" ||
         kind == "sleep";
}

std::string part_text(const DeltaPart& p) {
  std::string notes = is_wait_class(p.kind) ? std::string() : p.detail;
  if (!p.significant) notes += notes.empty() ? "n.s." : "; n.s.";
  std::string s = share_text(p.share) + " " + phrase(p);
  return notes.empty() ? s : s + " (" + notes + ")";
}

// Parts in the direction of the total first, at most `top` of each kind;
// those pulling the other way after "offset by".
std::string parts_text(const std::vector<DeltaPart>& parts, std::size_t top, double total,
                       bool significant_only) {
  std::vector<std::string> with, against;
  std::map<std::string, std::size_t> per_kind;
  std::size_t left_out = 0;
  double left_share = 0;
  for (const auto& p : parts) {
    if (significant_only && !p.significant) continue;
    if (++per_kind[p.kind] > top) {
      ++left_out;
      left_share += p.share;
      continue;
    }
    (p.delta_ns * total >= 0 ? with : against).push_back(part_text(p));
  }
  std::string s;
  for (const auto& t : with) s += (s.empty() ? "" : ", ") + t;
  if (left_out > 0)
    s += fmt::format("{}{} more part{} ({})", s.empty() ? "" : ", ", left_out,
                     left_out == 1 ? "" : "s", share_text(left_share));
  if (!against.empty()) {
    s += s.empty() ? "offset by " : "; offset by ";
    for (std::size_t i = 0; i < against.size(); ++i) s += (i ? ", " : "") + against[i];
  }
  return s;
}

// Off-CPU figures are absent from profiles recorded without those probes.
bool recorded(const Comparison& c) {
  return c.sa.n + c.sb.n > 0 && (c.sa.mean != 0 || c.sb.mean != 0);
}

bool has_significant_path(const OpDiff& op) {
  return std::any_of(op.paths.begin(), op.paths.end(),
                     [&](const DeltaPath& p) { return path_shown(p, op); });
}

std::string side(const Diff& d, const OpDiff& op, std::string_view what, const Comparison& c,
                 const std::vector<DeltaPart>& parts, bool significant_only = false) {
  std::string s = op.op + ": ";
  if (!recorded(c)) return s + std::string(what) + " none in A or B.";
  s += measured(what, c, d.config.level) + ": ";
  if (&parts == &op.oncpu_parts && c.significant() && has_significant_path(op))
    return s + "by call path,";
  // no path of its own, the work that moved in its tree (the lines below)
  if (&parts == &op.oncpu_parts && c.significant() &&
      std::any_of(op.moved.begin(), op.moved.end(),
                  [](const MovedWork& m) { return m.fragile < 0; }))
    return s + "by its call tree,";
  if (c.verdict == Verdict::TooFewRuns)
    s += "too few runs for a conclusion (" + run_counts(c) + ")";
  else if (!c.significant())
    s += "no significant change";
  else if (parts.empty())
    s += "not attributed (no stacks)";
  else if (std::string t = parts_text(parts, d.config.top, c.delta(), significant_only); t.empty())
    s += "no part of it is significant on its own";
  else
    s += t;
  return s + ".";
}

// "31× A", "new in B", "0.4× A", "gone in B".
std::string times_a(const Comparison& c) {
  if (!(c.sa.mean > 0)) return "new in B";
  if (c.sb.mean == 0) return "gone in B";
  double r = c.sb.mean / c.sa.mean;
  return r >= 10 ? fmt::format("{:.0f}× A", r) : fmt::format("{:.1f}× A", r);
}

std::string path_kind(const DeltaPath& p) {
  if (p.kind == "new-code") return "new code";
  if (p.kind == "fs-path") return "different code path (" + p.fs + "'s own)";
  if (p.kind == "contention") return "spin on " + (p.lock.empty() ? "a lock" : p.lock);
  if (p.kind == "less-work") return "same path, less work";
  return "same path, more work";
}

}  // namespace

const DeltaPath* path_where_moved(const MovedWork& m, const OpDiff& op) {
  for (const DeltaPath& p : op.paths)
    if (p.inclusive.significant() && telling_move(p, op) == &m && p.frames.size() > m.via.size() &&
        std::equal(m.via.begin(), m.via.end(), p.frames.end() - 1 - m.via.size()))
      return &p;
  return nullptr;
}

std::string split_items(const DeltaPath& p) {
  std::string s;
  for (std::size_t i = 0; i < p.split.size(); ++i)
    s += fmt::format("{}{} {}", i ? ", " : "", p.split[i].first,
                     number(p.split[i].second, "ns", std::fabs(p.split[i].second), true) +
                         suffix("ns", std::fabs(p.split[i].second)));
  return s;
}

std::string path_line(const DeltaPath& p, const OpDiff& op) {
  const Comparison& c = p.inclusive;
  double mag = std::fabs(c.delta());
  std::string s =
      fmt::format("{}{} ({}, {} of the {}) {}: {}", number(c.delta(), c.unit, mag, true),
                  suffix(c.unit, mag), times_a(c), share_text(p.share),
                  c.delta() >= 0 ? "increase" : "decrease", path_kind(p), chain_text(p));
  // Only the paths above on the screen are named; the figure leaves out the
  // others too: where the work moved (the move's line), or paths that did
  // not hold on their own.
  std::size_t above = 0, moved = 0, not_held = 0;
  for (std::size_t j : p.besides) {
    const DeltaPath& q = op.paths.at(j);
    ++(path_shown(q, op) ? above : telling_move(q, op) ? moved : not_held);
  }
  std::vector<std::string> less;
  if (moved > 0) less.push_back("the work moved below it");
  if (not_held > 0)
    less.push_back(not_held == 1 ? "a path below it not significant on its own"
                                 : "paths below it not significant on their own");
  if (above > 0) s += above == 1 ? ", besides the path above" : ", besides the paths above";
  if (!less.empty())
    s += fmt::format("{} {}", above > 0 ? " and" : ", less", fmt::join(less, " and "));
  return s + (p.split.empty() ? "" : "; there " + split_items(p)) + ".";
}

// "families, each inclusive (they nest): xfs_attr_* +0.8 µs/op (new in
// B), ...": the families told_families() selects, in its order.
std::string families_line(const OpDiff& op, const std::vector<std::size_t>& told) {
  std::string fams;
  for (std::size_t k : told) {
    const FamilyDiff& f = op.families[k];
    const Comparison& c = f.inclusive;
    double mag = std::fabs(c.delta());
    fams += fmt::format("{}{} {}{} ({})", fams.empty() ? "" : ", ", f.name,
                        number(c.delta(), c.unit, mag, true), suffix(c.unit, mag), times_a(c));
  }
  // Inclusive figures: a family under another, or under a path above, is
  // counted in both, so they may add up to more than the op's delta.
  if (fams.empty()) return {};
  return (told.size() == 1 ? "family, inclusive: " : "families, each inclusive (they nest): ") +
         fams + ".";
}

// The significant call paths of an op's on-CPU delta, one item each; the
// rest is not significant and is not given as a reason. Then the function
// families that moved, significant and at least 5% of the op's delta.
void paths(Page& page, const OpDiff& op) {
  if (!op.oncpu.significant()) return;
  for (const auto& p : op.paths)
    if (path_shown(p, op)) page.para(path_line(p, op), "  - ", "    ");
  if (std::string fams = families_line(op, told_families(op)); !fams.empty())
    page.para(fams, "  - ", "    ");
}

std::string sentence(const Diff& d, const OpDiff& op, bool oncpu, bool significant_only) {
  return oncpu ? side(d, op, "on-CPU", op.oncpu, op.oncpu_parts, significant_only)
               : side(d, op, "off-CPU", op.offcpu, op.offcpu_parts, significant_only);
}

std::vector<std::string> setup_items(const SetupDiff& s, std::size_t max) {
  std::vector<std::string> items;
  for (bool asked : {false, true})
    for (const auto& x : s.settings)
      if (x.asked == asked)
        items.push_back(fmt::format("{} {} -> {} ({})", x.name, x.a.empty() ? "(not shown)" : x.a,
                                    x.b.empty() ? "(not shown)" : x.b,
                                    asked ? "asked" : "incidental"));
  if (items.size() > max) {
    std::size_t more = items.size() - max;
    items.resize(max);
    items.push_back(fmt::format("and {} more", more));
  }
  return items;
}

void setup_section(Page& page, const Diff& d) {
  const SetupDiff& s = d.setup;
  if (!s.recorded) {
    page.para(
        "Filesystems: not recorded in these profiles (fscost compare records the mkfs "
        "output, xfs_info and mount options of every run).");
    return;
  }
  page.para(s.mkfs_a == s.mkfs_b
                ? fmt::format("Filesystems: made by {}.", s.mkfs_a)
                : fmt::format("Filesystems: A made by {}, B by {}.", s.mkfs_a, s.mkfs_b));
  if (s.settings.empty()) {
    page.para("A and B print the same geometry, features and mount options.", "  ", "    ");
    return;
  }
  page.para("A and B differ in:", "  ", "    ");
  for (const auto& item : setup_items(s, s.settings.size())) page.para(item, "  - ", "    ");
}

std::string explanation(const Diff& d, std::size_t width) {
  Page page;
  page.width = width;
  header(page, d);
  warnings(page, d);
  page.blank();
  setup_section(page, d);
  page.blank();
  if (d.ops.empty()) page.para("No operation was recorded in both A and B.");
  for (std::size_t i = 0; i < d.ops.size(); ++i) {
    if (i > 0) page.blank();
    page.para(sentence(d, d.ops[i], true));
    paths(page, d.ops[i]);
    page.para(sentence(d, d.ops[i], false));
  }
  return page.out;
}

}  // namespace diff_text

std::string render_diff_text(const Diff& d, std::size_t width) {
  diff_text::Page page;
  page.width = width;
  page.out = diff_text::first_screen(d, width);
  page.line(std::string(width, '-'));
  page.blank();
  page.out += diff_text::explanation(d, width);
  page.blank();
  diff_text::tables(page, d);
  return page.out;
}

}  // namespace fscost
