// The verdict the diff page opens on: summary.txt's first screen word for
// word, so that the page and the mail never tell two stories, with the
// words its findings mark (diff_text::first_screen_lines) linked to the rows
// and graphs that hold their figures. Nothing is looked for in the text.
#include "report/diff/html_verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "model/escape.h"

namespace fscost::html {

namespace {

using Op = VerdictTargets::Op;

struct Link {
  std::size_t at = 0, len = 0;
  std::string_view href;
};

// Where `to` leads in this page ("" = nowhere: no link).
std::string_view href(const diff_text::Target& to, const VerdictTargets& ids) {
  using K = diff_text::Target::Kind;
  if (to.kind == K::Bucket)
    return to.index < ids.buckets.size() ? std::string_view(ids.buckets[to.index].second) : "";
  if (to.op >= ids.ops.size()) return {};
  const Op& op = ids.ops[to.op];
  switch (to.kind) {
    case K::OpRow: return to.oncpu ? op.oncpu_row : op.offcpu_row;
    case K::OpGraph: return to.oncpu ? op.oncpu_graph : op.offcpu_graph;
    case K::Lock: return to.index < op.locks.size() ? std::string_view(op.locks[to.index].second) : "";
    case K::Bucket: break;
  }
  return {};
}

// `line` escaped, with its links; of overlapping links the first wins, the
// longer of two at one place.
void emit_line(std::string& out, std::string_view line, std::vector<Link> links) {
  std::erase_if(links, [](const Link& l) { return l.href.empty(); });
  std::stable_sort(links.begin(), links.end(), [](const Link& x, const Link& y) {
    return x.at != y.at ? x.at < y.at : x.len > y.len;
  });
  std::size_t pos = 0;
  for (const Link& l : links) {
    if (l.at < pos) continue;
    append_escaped(out, line.substr(pos, l.at - pos));
    out += "<a href=\"#";
    append_escaped(out, l.href);
    out += "\">";
    append_escaped(out, line.substr(l.at, l.len));
    out += "</a>";
    pos = l.at + l.len;
  }
  append_escaped(out, line.substr(pos));
}

std::string graph_id(const std::vector<GraphSet>& sets, const std::string& op, View view) {
  const GraphSet* s = set_of(sets, op);
  if (!s) return {};
  for (const auto& g : s->graphs)
    if (g.view == view) return g.id;
  return {};
}

}  // namespace

VerdictTargets verdict_targets(const Diff& d, const RowIds& rows,
                               const std::vector<GraphSet>& graphs) {
  VerdictTargets to;
  for (std::size_t i = 0; i < d.ops.size(); ++i) {
    const OpDiff& op = d.ops[i];
    const RowIds::Op& r = rows.ops[i];
    Op t{.name = op.op, .oncpu_row = r.oncpu, .offcpu_row = r.offcpu};
    t.oncpu_graph = graph_id(graphs, op.op, View::OnCpu);
    t.offcpu_graph = graph_id(graphs, op.op, View::OffCpu);
    for (std::size_t j = 0; j < op.locks.size(); ++j)
      t.locks.emplace_back(op.locks[j].name, r.locks[j]);
    to.ops.push_back(std::move(t));
  }
  for (std::size_t i = 0; i < d.background.size(); ++i)
    to.buckets.emplace_back(d.background[i].name, rows.background[i]);
  return to;
}

void verdict_block(std::string& out, const std::vector<diff_text::ScreenLine>& lines,
                   const VerdictTargets& to) {
  out += "<div class=\"verdict\" id=\"verdict\">\n";
  bool open = false, first = true;
  for (const auto& line : lines) {
    if (line.text.find_first_not_of(' ') == std::string::npos) {  // between paragraphs
      if (open) out += "</p>\n";
      open = false;
      continue;
    }
    out += open ? "\n" : first ? "<p class=\"vb head\">" : "<p class=\"vb\">";
    open = true;
    first = false;
    std::vector<Link> links;
    for (const auto& l : line.links) links.push_back({l.at, l.len, href(l.to, to)});
    emit_line(out, line.text, std::move(links));
  }
  if (open) out += "</p>\n";
  out += "</div>\n";
}

}  // namespace fscost::html
