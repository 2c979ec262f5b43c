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

struct Link {
  std::size_t at = 0, len = 0;
  std::string_view href;
};

// Where `to` leads in this page ("" = nowhere: no link).
std::string_view href(const diff_text::Target& to, const VerdictTargets& ids) {
  using K = diff_text::Target::Kind;
  const RowIds& rows = *ids.rows;
  auto at = [](const std::vector<std::string>& v, std::size_t i) {
    return i < v.size() ? std::string_view(v[i]) : std::string_view();
  };
  if (to.kind == K::Bucket) return at(rows.background, to.index);
  if (to.op >= rows.ops.size() || to.op >= ids.graphs.size()) return {};
  const RowIds::Op& op = rows.ops[to.op];
  switch (to.kind) {
    case K::OpRow: return to.oncpu ? op.oncpu : op.offcpu;
    case K::OpGraph: return to.oncpu ? ids.graphs[to.op].oncpu : ids.graphs[to.op].offcpu;
    case K::Lock: return at(op.locks, to.index);
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
  VerdictTargets to{.rows = &rows};
  for (const OpDiff& op : d.ops)
    to.graphs.push_back({graph_id(graphs, op.op, View::OnCpu), graph_id(graphs, op.op, View::OffCpu)});
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
