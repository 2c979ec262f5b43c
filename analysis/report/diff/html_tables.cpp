// The diff page's tables. Every comparison is one row with both means and
// deviations, the delta and its interval, q, the rank test and the effect
// size; rows the diff does not call significant are grey (class
// "insignificant"), so the page never shows noise in the colours of a
// finding.
#include "report/diff/html_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "report/diff/format.h"
#include "report/diff/text_parts.h"
#include "model/escape.h"
#include <tuple>

namespace fscost::html {

namespace {

using namespace diff_fmt;

// Functions listed per operation; the text names only config.top.
constexpr std::size_t kFunctionRows = kDiffFunctionRows;  // summary.json has them too

std::string row_class(const Comparison& c) {
  if (!c.significant()) return "insignificant";
  return c.verdict == Verdict::More ? "significant more" : "significant less";
}

std::string verdict_text(const Comparison& c) {
  switch (c.verdict) {
    case Verdict::More:
      return "* B higher";
    case Verdict::Less:
      return "* B lower";
    case Verdict::TooFewRuns:
      return "~ too few runs (" + run_counts(c) + ")";
    case Verdict::NoChange:
      break;
  }
  return "~ not significant";
}

// A figure ("+8.9 ns", "-4.6 ns .. +22.3 ns") wraps only between its ends,
// never between a number and its unit: its other spaces become no-break
// spaces.
std::string figure(std::string_view s) {
  std::string out;
  while (!s.empty()) {
    std::size_t cut = std::min(s.find(" .. "), s.find(" → "));
    std::string_view part = s.substr(0, cut);
    for (std::size_t sp; (sp = part.find(' ')) != std::string_view::npos;) {
      append_escaped(out, part.substr(0, sp));
      out += "\xC2\xA0";  // U+00A0
      part.remove_prefix(sp + 1);
    }
    append_escaped(out, part);
    if (cut == std::string_view::npos) break;
    std::size_t sep = s.compare(cut, 4, " .. ") == 0 ? 4 : std::string_view(" → ").size();
    append_escaped(out, s.substr(cut, sep));
    s.remove_prefix(cut + sep);
  }
  return out;
}

std::string td(std::string_view s, std::string_view cls = {}) {
  if (cls == "text") return fmt::format("<td class=\"text\">{}</td>", escaped_lines(s));
  return cls.empty() ? fmt::format("<td>{}</td>", figure(s))
                     : fmt::format("<td class=\"{}\">{}</td>", cls, figure(s));
}

std::string th_row(std::initializer_list<std::string_view> names, std::size_t text_cols) {
  std::string s = "<tr>";
  std::size_t i = 0;
  for (auto n : names)
    s += fmt::format("<th{}>{}</th>", i++ < text_cols ? " class=\"text\"" : "", escaped_lines(n));
  return s + "</tr>\n";
}

double finite_or_zero(double v) { return std::isfinite(v) ? v : 0; }

// The statistics of `c` after its label cells.
std::string stat_cells(const Comparison& c) {
  double mag = std::max(std::fabs(finite_or_zero(c.sa.mean)), std::fabs(finite_or_zero(c.sb.mean)));
  double dmag = std::fabs(finite_or_zero(c.delta()));
  if (c.tested())
    dmag = std::max({dmag, std::fabs(finite_or_zero(c.ci_lo())), std::fabs(finite_or_zero(c.ci_hi()))});
  std::string ci = c.tested() ? value(c.ci_lo(), c.unit, true, dmag) + " .. " +
                                    value(c.ci_hi(), c.unit, true, dmag)
                              : "-";
  return td(value(c.sa.mean, c.unit, false, mag)) + td(value(c.sa.sd, c.unit, false, mag)) +
         td(value(c.sb.mean, c.unit, false, mag)) + td(value(c.sb.sd, c.unit, false, mag)) +
         td(value(c.delta(), c.unit, true, dmag), "delta") + td(rel_cell(c), "delta") + td(ci) +
         td(q_text(c.q)) + td(c.mwu.valid ? fmt::format("{:.3f}", c.mwu.p) : "-") +
         td(std::isnan(c.effect) ? "-" : fmt::format("{:+.2f}", c.effect)) +
         td(verdict_text(c), "text");
}

constexpr auto kStatHeads = {"A mean",  "A sd", "B mean",         "B sd",      "Δ",      "Δ%",
                             "CI of Δ", "q",    "Mann-Whitney p", "Hedges' g", "verdict"};

std::string stat_heads(std::vector<std::string> labels) {
  std::string s = "<tr>";
  for (const auto& l : labels) s += fmt::format("<th class=\"text\">{}</th>", escaped_lines(l));
  for (auto h : kStatHeads) s += fmt::format("<th>{}</th>", escaped_lines(h));
  return s + "</tr>\n";
}

// `id`: the row's anchor, if something links to it.
void stat_row(std::string& out, const std::vector<std::string>& labels, const Comparison& c,
              std::string_view id = {}) {
  if (id.empty())
    out += fmt::format("<tr class=\"{}\">", row_class(c));
  else
    out += fmt::format("<tr class=\"{}\" id=\"{}\">", row_class(c), id);
  for (const auto& l : labels) out += td(l, "text");
  out += stat_cells(c) + "</tr>\n";
}

void metrics(std::string& out, const OpDiff& op, const RowIds::Op& ids) {
  out += "<table class=\"diff metrics\">\n" + stat_heads({"metric", "unit"});
  for (const auto& m : kOpMetrics) {
    const Comparison& c = op.*m.field;
    const std::string id = m.field == &OpDiff::oncpu    ? ids.oncpu
                           : m.field == &OpDiff::offcpu ? ids.offcpu
                                                        : std::string();
    stat_row(out, {std::string(m.label), c.unit}, c, id);
    if (m.field == &OpDiff::offcpu)  // its wait classes under it
      for (const auto& [cls, k] : op.offcpu_by_class)
        if (k.sa.mean != 0 || k.sb.mean != 0) stat_row(out, {"off-CPU: " + cls, k.unit}, k);
  }
  for (const auto& [name, c] : op.fs_events)
    if (c.sa.mean != 0 || c.sb.mean != 0) stat_row(out, {"XFS: " + name, c.unit}, c);
  out += "</table>\n";
}

void parts(std::string& out, const OpDiff& op) {
  if (op.oncpu_parts.empty() && op.offcpu_parts.empty()) return;
  out += "<h4>Where the delta comes from</h4>\n<table class=\"diff parts\">\n" +
         th_row({"side", "kind", "where", "detail", "Δ per op", "share", "significant"}, 4);
  for (auto [side, v] : {std::pair{"on-CPU", &op.oncpu_parts}, {"off-CPU", &op.offcpu_parts}})
    for (const auto& p : *v)
      out += fmt::format(
          "<tr class=\"{}\">{}{}{}{}{}{}{}</tr>\n", p.significant ? "significant" : "insignificant",
          td(side, "text"), td(p.kind, "text"), td(p.where, "text"), td(p.detail, "text"),
          td(value(p.delta_ns, "ns/op", true)), td(fmt::format("{:.0f}%", 100 * p.share)),
          td(p.significant ? "*" : "~ not significant"));
  out += "</table>\n";
}

// The call paths (explanation by descent) and the function families.
void paths(std::string& out, const OpDiff& op) {
  if (op.paths.empty()) return;
  out += "<h4>Call paths carrying the on-CPU delta</h4>\n<table class=\"diff paths\">\n" +
         stat_heads({"path (last frames)", "class", "share", "splits into"});
  for (const auto& p : op.paths) {
    std::string split;
    for (const auto& [name, dns] : p.split)
      split += (split.empty() ? "" : ", ") + name + " " + value(dns, "ns/op", true);
    stat_row(out,
             {diff_fmt::chain_text(p) + (p.besides.empty() ? "" : " (besides the above)"),
              p.kind == "contention" ? "contention: " + p.lock
              : p.kind == "fs-path"  ? "fs-path: " + p.fs
                                     : p.kind,
              fmt::format("{:.0f}%", 100 * p.share), split},
             p.inclusive);
  }
  out += "</table>\n";
}

void families(std::string& out, const OpDiff& op) {
  if (op.families.empty()) return;
  out += "<h4>Function families (union-inclusive, by |Δ|)</h4>\n<table class=\"diff families\">\n" +
         stat_heads({"family", "functions", "note"});
  for (std::size_t i = 0; i < op.families.size() && i < kFunctionRows; ++i) {
    const FamilyDiff& f = op.families[i];
    stat_row(out, {f.name, std::to_string(f.functions), f.new_in_b ? "new in B" : ""},
             f.inclusive);
  }
  out += "</table>\n";
}

void functions(std::string& out, const OpDiff& op) {
  if (op.functions.empty()) return;
  out += "<h4>Functions on CPU (inclusive, by |Δ|)</h4>\n<table class=\"diff functions\">\n" +
         stat_heads({"function", "note", "self Δ"});
  for (std::size_t i = 0; i < op.functions.size() && i < kFunctionRows; ++i) {
    const FunctionDiff& f = op.functions[i];
    std::string note = f.new_in_b ? "new in B" : f.gone_in_b ? "gone in B" : "";
    stat_row(out, {f.name, note, value(f.self.delta(), f.self.unit, true)}, f.inclusive);
  }
  out += "</table>\n";
  if (op.functions.size() > kFunctionRows)
    fmt::format_to(std::back_inserter(out),
                   "<p class=\"note\">{} more functions compared: <code>fscost diff -o DIR "
                   "--all-functions</code> writes every one to DIR/functions.json.</p>\n",
                   op.functions.size() - kFunctionRows);
}

std::string graph_links(const GraphSet* s) {
  if (!s) return "no stacks on either side";
  std::string links;
  for (const auto& g : s->graphs)
    links += fmt::format("{}<a href=\"#{}\">{}</a>", links.empty() ? "" : " · ", g.id,
                         g.view == View::OnCpu    ? "on-CPU"
                         : g.view == View::OffCpu ? "off-CPU"
                                                  : "locks");
  return links;
}

std::string explain_class(const Comparison& c) {
  return c.significant() ? "explain significant" : "explain insignificant";
}

bool nonzero(const Comparison& c) { return c.sa.mean != 0 || c.sb.mean != 0; }

// A kernel thread's rows in the workload table: its figures that are not
// zero on both sides.
bool has_rows(const BackgroundDiff& bg) {
  return nonzero(bg.cpu) || nonzero(bg.offcpu) || nonzero(bg.lock_wait) ||
         std::any_of(bg.fs_events.begin(), bg.fs_events.end(),
                     [](const auto& e) { return nonzero(e.second); });
}

}  // namespace


RowIds row_ids(const Diff& d, std::set<std::string>& used) {
  RowIds ids;
  for (const auto& op : d.ops) ids.ops.push_back({unique_id("op-" + op.op, used), {}, {}, {}});
  for (std::size_t i = 0; i < d.ops.size(); ++i) {
    const OpDiff& op = d.ops[i];
    RowIds::Op& o = ids.ops[i];
    o.oncpu = unique_id("row-" + op.op + "-oncpu", used);
    o.offcpu = unique_id("row-" + op.op + "-offcpu", used);
    for (const auto& l : op.locks)
      o.locks.push_back(unique_id("lock-" + op.op + "-" + l.name, used));
  }
  for (const auto& bg : d.background)
    ids.background.push_back(has_rows(bg) ? unique_id("bg-" + bg.name, used) : std::string());
  return ids;
}

void op_block(std::string& out, const Diff& d, const OpDiff& op, const RowIds::Op& ids,
              const GraphSet* graphs) {
  fmt::format_to(std::back_inserter(out), "<div class=\"diff-op\" id=\"{}\">\n<h3>{}</h3>\n",
                 ids.block, escaped_lines(op.op));
  fmt::format_to(std::back_inserter(out), "<p class=\"{}\">{}</p>\n<p class=\"{}\">{}</p>\n",
                 explain_class(op.oncpu), escaped_lines(diff_text::sentence(d, op, true)),
                 explain_class(op.offcpu), escaped_lines(diff_text::sentence(d, op, false)));
  metrics(out, op, ids);
  parts(out, op);
  paths(out, op);
  families(out, op);
  functions(out, op);
  // Who the op waited for: each side's chosen chain and why
  // (views/wait_graph.h).
  for (auto [side, c, ops] : {std::tuple{"A", &op.chain_a, op.count.sa.mean},
                              std::tuple{"B", &op.chain_b, op.count.sb.mean}})
    if (*c)
      fmt::format_to(std::back_inserter(out),
                     "<p class=\"chain\">Who waited for whom, {}: {} — {}</p>\n", side,
                     escaped_lines(chain_text(**c, ops)), escaped_lines(chain_choice_text(**c, ops)));
  out += "<p class=\"note\">Differential flame graphs: " + graph_links(graphs) + "</p>\n</div>\n";
}

void lock_table(std::string& out, const Diff& d, const RowIds& ids) {
  bool any =
      std::any_of(d.ops.begin(), d.ops.end(), [](const auto& o) { return !o.locks.empty(); });
  if (!any) {
    out += "<p class=\"note\">No lock contention in A or B.</p>\n";
    return;
  }
  // Eighteen columns do not fit a 1400 px window: the lock's type, the
  // change's detail and the three A → B figures share cells, a line each
  // (the cells are white-space: pre-line).
  out += "<table class=\"diff locks\">\n" +
         stat_heads({"operation", "lock, type", "change", "A → B per op, per contention, spun"});
  for (std::size_t i = 0; i < d.ops.size(); ++i)
    for (std::size_t j = 0; j < d.ops[i].locks.size(); ++j) {
      const OpDiff& op = d.ops[i];
      const LockDiff& l = op.locks[j];
      auto arrow = [](const Comparison& c) {
        double mag =
            std::max(std::fabs(finite_or_zero(c.sa.mean)), std::fabs(finite_or_zero(c.sb.mean)));
        return value(c.sa.mean, c.unit, false, mag) + " → " + value(c.sb.mean, c.unit, false, mag);
      };
      stat_row(out,
               {op.op, l.name + "\n" + l.type, std::string(to_string(l.change)) + "\n" + l.detail,
                "contentions " + arrow(l.contentions) + "\neach " + arrow(l.per_contention) +
                    "\noptimistic spin (sampled) " + arrow(l.optimistic_spin)},
               l.wait, ids.ops[i].locks[j]);
    }
  out += "</table>\n";
}

void workload_table(std::string& out, const Diff& d, const RowIds& ids) {
  out += "<table class=\"diff workload\">\n" + stat_heads({"per run", "unit"});
  for (const auto& [label, c] : {std::pair{"system CPU", &d.sys_ns},
                                 {"user CPU", &d.user_ns},
                                 {"wall clock", &d.wall_ns},
                                 {"user share", &d.user_share},
                                 {"kernel threads CPU", &d.kthread_ns},
                                 {"test device writes", &d.device_bytes}})
    if (c->sa.n + c->sb.n > 0) stat_row(out, {label, c->unit}, *c);
  if (nonzero(d.fs_kthread_ns))
    stat_row(out, {"kernel threads CPU: the test filesystem's", "ns"}, d.fs_kthread_ns);
  for (const auto& [kind, c] : d.device_bytes_by_kind)
    if (nonzero(c)) stat_row(out, {"test device writes: " + kind, c.unit}, c);
  for (std::size_t i = 0; i < d.background.size(); ++i) {
    const BackgroundDiff& bg = d.background[i];
    std::string who = (bg.test_fs ? "test fs thread: " : "kernel thread: ") + bg.name;
    std::string_view id = ids.background[i];  // on the bucket's first row
    auto row = [&](const std::string& label, const std::string& unit, const Comparison& c) {
      if (!nonzero(c)) return;
      stat_row(out, {label, unit}, c, id);
      id = {};
    };
    row(who + " CPU", bg.cpu.unit, bg.cpu);
    row(who + " off CPU", bg.offcpu.unit, bg.offcpu);
    row(who + " in locks", bg.lock_wait.unit, bg.lock_wait);
    for (const auto& [event, c] : bg.fs_events) row(who + " " + event, "events", c);
  }
  out += "</table>\n";
}

}  // namespace fscost::html
