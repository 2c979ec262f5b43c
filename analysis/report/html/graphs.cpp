// The HTML report's flame graphs: which ones (views with stacks, combined
// and per operation), drawn by render_svg within the page's size budget,
// and made fit to inline in a page that holds many of them.
#include "report/html/graphs.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/escape.h"
#include "flame/flamegraph.h"
#include "model/parallel.h"
#include "report/report.h"

namespace fscost::html {

namespace {

// A graph before drawing.
struct Pending {
  GraphSet* set = nullptr;
  View view;
  std::string id;
  FlameInput input;
  SvgOptions svg;
};

bool has_data(const FlameInput& in) {
  double sum = 0;
  for (const auto& s : in.stacks) sum += s.second;
  return sum > 0;
}

void plan_set(const Profile& p, const HtmlOptions& opt, GraphSet& set, std::set<std::string>& ids,
              std::vector<Pending>& pending) {
  for (View view : kViews) {
    FlameInput in = flame_input(p, view, set.op, false);
    if (!has_data(in)) continue;
    SvgOptions o = flame_svg_options(p, view, set.op, false);
    o.width = opt.graph_width;
    o.min_width_px = opt.min_width_px;
    pending.push_back({&set, view, unique_id(fmt::format("{}-{}", set.id, view_name(view)), ids), std::move(in), o});
  }
}

// A frame's markup is a few hundred bytes whatever its width, so a wide
// profile (thousands of distinct stacks) makes a large graph; the narrowest
// frames go first, each doubling of the min width pruning more of them.
// `bytes` is graph i's size at min_width; measure(i, px) its size at px.
void shrink(std::size_t i, double& min_width, std::size_t& bytes, std::size_t budget,
            const SizeFn& measure) {
  while (bytes > budget && min_width < kMaxMinWidthPx) {
    min_width = std::min(std::max(2 * min_width, 0.2), kMaxMinWidthPx);
    bytes = measure(i, min_width);
  }
}

// Small graphs first, each within an equal share of what is left.
void fit_budget(std::vector<double>& min_width, std::vector<std::size_t>& bytes,
                const SizeFn& measure, std::size_t max_bytes) {
  std::vector<std::size_t> order(bytes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return bytes[a] < bytes[b]; });
  std::size_t left = max_bytes;
  for (std::size_t k = 0; k < order.size(); ++k) {
    std::size_t i = order[k];
    shrink(i, min_width[i], bytes[i], left / (order.size() - k), measure);
    left -= std::min(left, bytes[i]);
  }
}

// Appends `s` with each `from` replaced by `to`, left to right.
void append_replaced(std::string& out, std::string_view s, std::string_view from,
                     std::string_view to) {
  std::size_t at = 0;
  for (auto hit = s.find(from); hit != std::string_view::npos; hit = s.find(from, at)) {
    out.append(s.substr(at, hit - at));
    out.append(to);
    at = hit + from.size();
  }
  out.append(s.substr(at));
}

}  // namespace

std::string unique_id(std::string_view base, std::set<std::string>& used) {
  std::string id;
  for (char c : base) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '-' || c == '_';
    id += keep ? c : '-';
  }
  std::string candidate = id;
  for (int n = 2; !used.insert(candidate).second; ++n) candidate = fmt::format("{}-{}", id, n);
  return candidate;
}

std::vector<std::string> draw_within(std::vector<double>& min_width, const DrawFn& draw,
                                     std::size_t max_bytes, const SizeFn& size) {
  // Graphs are independent: each is first drawn (or measured) in parallel
  // (`draw` and `size` must allow that for different i); the budget's
  // shrinking depends on the sizes before it and stays in order.
  std::size_t n = min_width.size();
  std::vector<std::string> svgs(n);
  std::vector<std::size_t> bytes(n);
  if (max_bytes == 0 || !size) {
    parallel_for(n, [&](std::size_t i) {
      svgs[i] = draw(i, min_width[i]);
      bytes[i] = svgs[i].size();
    });
    if (max_bytes == 0) return svgs;
    fit_budget(
        min_width, bytes,
        [&](std::size_t i, double px) {
          svgs[i] = draw(i, px);
          return svgs[i].size();
        },
        max_bytes);
    return svgs;
  }
  // Measured, then drawn once at the width the budget settled on.
  parallel_for(n, [&](std::size_t i) { bytes[i] = size(i, min_width[i]); });
  fit_budget(min_width, bytes, size, max_bytes);
  parallel_for(n, [&](std::size_t i) { svgs[i] = draw(i, min_width[i]); });
  return svgs;
}

// Frames refer to no ids but the hatching patterns of diff frames, in a
// fill attribute (a frame's name is escaped, so it cannot hold `fill="`).
// One pass, appending: replacing in place shifts the rest of a graph of
// many megabytes for every hatched frame.
std::string inline_svg(std::string svg, std::size_t n) {
  std::string_view v = svg;
  if (v.starts_with("<?xml")) v.remove_prefix(v.find('\n') + 1);
  const std::string prefix = fmt::format("fg{}-", n);
  std::size_t head_end = std::min(v.find("<g class=\"fg-frames\""), v.size());
  std::string head;
  append_replaced(head, v.substr(0, head_end), "id=\"fg-", "id=\"" + prefix);
  std::string out;
  out.reserve(v.size() + v.size() / 64);
  append_replaced(out, head, "url(#fg-", "url(#" + prefix);
  append_replaced(out, v.substr(head_end), "fill=\"url(#fg-", "fill=\"url(#" + prefix);
  return out;
}

std::vector<GraphSet> graph_sets(const Profile& p, const HtmlOptions& opt,
                                 const std::vector<std::string>& ops, std::set<std::string>& ids) {
  std::vector<GraphSet> sets;
  sets.reserve(ops.size() + 1);  // Pending points into it
  sets.push_back({unique_id("all", ids), "All operations", std::nullopt, {}});
  if (opt.per_op_graphs)
    for (const auto& op : ops) sets.push_back({unique_id("op-" + op, ids), op, op, {}});
  std::vector<Pending> pending;
  for (auto& s : sets) plan_set(p, opt, s, ids, pending);
  std::vector<GraphSlot> slots;
  for (const auto& g : pending) slots.push_back({g.set, g.view, g.id, g.svg.min_width_px});
  place_graphs(
      sets, slots,
      [&](std::size_t i, double px) {
        SvgOptions o = pending[i].svg;
        o.min_width_px = px;
        return render_svg(pending[i].input, o);
      },
      opt.max_bytes);
  return sets;
}

void place_graphs(std::vector<GraphSet>& sets, const std::vector<GraphSlot>& slots,
                  const DrawFn& draw, std::size_t max_bytes, const SizeFn& size) {
  std::vector<double> min_width;
  for (const auto& g : slots) min_width.push_back(g.min_width_px);
  std::vector<std::string> svgs = draw_within(min_width, draw, max_bytes, size);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const GraphSlot& g = slots[i];
    g.set->graphs.push_back({g.view, g.id, inline_svg(std::move(svgs[i]), i + 1), min_width[i]});
  }
  std::erase_if(sets, [](const GraphSet& s) { return s.graphs.empty(); });
}


const GraphSet* set_of(const std::vector<GraphSet>& sets, const std::string& op) {
  for (const auto& s : sets)
    if (s.op == op) return &s;
  return nullptr;
}

void graph_panels(std::string& out, const std::vector<GraphSet>& sets) {
  for (const auto& s : sets) {
    std::string heading;
    append_escaped(heading, s.heading);
    fmt::format_to(std::back_inserter(out),
                   "<div class=\"views\" id=\"{}\">\n<h3>{}</h3>\n"
                   "<div class=\"view-tabs\" role=\"tablist\">",
                   s.id, heading);
    for (const auto& g : s.graphs)
      fmt::format_to(std::back_inserter(out),
                     "<a class=\"view-tab\" role=\"tab\" href=\"#{}\">{}</a>", g.id,
                     view_title(g.view));
    out += "</div>\n";
    for (const auto& g : s.graphs)
      fmt::format_to(
          std::back_inserter(out),
          "<div class=\"view-panel\" id=\"{}\" role=\"tabpanel\" data-view=\"{}\">\n{}</div>\n",
          g.id, view_name(g.view), g.svg);
    out += "</div>\n";
  }
}

}  // namespace fscost::html
