// The verdict the diff page opens on: summary.txt's first screen word for
// word, so that the page and the mail never tell two stories, with the
// names in it linked to the rows and graphs that hold their figures. The
// text is taken as first_screen() lays it out; names are found in it line
// by line, and one that the layout wrapped or cut is left unlinked.
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

bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Every place `name` stands in `line` as a whole name, not inside a longer
// one ("xfs_end_io" is not in "xfs_end_io_work").
void find_all(std::string_view line, std::string_view name, std::string_view href,
              std::vector<Link>& links) {
  if (name.empty() || href.empty()) return;
  for (auto at = line.find(name); at != std::string_view::npos; at = line.find(name, at + 1)) {
    std::size_t end = at + name.size();
    if ((at == 0 || !word_char(line[at - 1])) && (end == line.size() || !word_char(line[end])))
      links.push_back({at, name.size(), href});
  }
}

// The op whose sentence `line` starts ("create: on-CPU +1.9 µs/op ..."),
// the longest name if several fit.
const Op* lead(std::string_view line, const VerdictTargets& to) {
  const Op* best = nullptr;
  for (const auto& op : to.ops)
    if (line.starts_with(op.name + ": ") && (!best || op.name.size() > best->name.size()))
      best = &op;
  return best;
}

// The length of the figure opening `rest` ("on-CPU +1.9 µs/op" before its
// " (95% CI ..."), or just the view's word; 0 if `rest` opens with neither.
std::size_t figure_len(std::string_view rest, std::string_view view) {
  if (!rest.starts_with(view) || (rest.size() > view.size() && rest[view.size()] != ' ')) return 0;
  std::size_t n = view.size();
  if (rest.size() < n + 2 || (rest[n + 1] != '+' && rest[n + 1] != '-')) return n;
  return std::min(rest.find(" (", n), rest.size());
}

// The op's name to its metric row, the figure after it to its graph.
void lead_links(std::string_view line, const Op& op, std::vector<Link>& links) {
  std::size_t at = op.name.size() + 2;  // after "NAME: "
  std::string_view rest = line.substr(at);
  std::size_t off = figure_len(rest, "off-CPU"), on = figure_len(rest, "on-CPU");
  links.push_back({0, op.name.size(), off ? op.offcpu_row : op.oncpu_row});
  if (off) links.push_back({at, off, op.offcpu_graph});
  if (on) links.push_back({at, on, op.oncpu_graph});
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

void verdict_block(std::string& out, std::string_view text, const VerdictTargets& to) {
  out += "<div class=\"verdict\" id=\"verdict\">\n";
  const Op* op = nullptr;  // whose sentence the lines continue
  bool open = false, first = true;
  while (!text.empty()) {
    std::size_t nl = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(std::min(nl + 1, text.size()));
    if (line.find_first_not_of(' ') == std::string_view::npos) {  // between paragraphs
      if (open) out += "</p>\n";
      open = false;
      op = nullptr;
      continue;
    }
    out += open ? "\n" : first ? "<p class=\"vb head\">" : "<p class=\"vb\">";
    open = true;
    first = false;
    std::vector<Link> links;
    if (line.front() != ' ') op = lead(line, to);  // an unindented line starts a sentence
    if (op && line.front() != ' ') lead_links(line, *op, links);
    if (op)
      for (const auto& [name, id] : op->locks) find_all(line, name, id, links);
    for (const auto& [name, id] : to.buckets) find_all(line, name, id, links);
    emit_line(out, line, std::move(links));
  }
  if (open) out += "</p>\n";
  out += "</div>\n";
}

}  // namespace fscost::html
