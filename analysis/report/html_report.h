// The HTML report (docs/HTML.md): one self-contained page, no network and no
// other file, that a reviewer opens from a mail or a CI artifact. Run
// metadata, the per-operation table, interactive flame graphs (inline SVG
// from render_svg) per view for all operations together and for each
// operation, the lock table and the drop counters, linked from a table of
// contents.
#pragma once

#include <cstddef>
#include <string>

#include "model/profile.h"

namespace fscost {

struct HtmlOptions {
  std::string title;          // "" = "fscost report: <command>"
  std::string source;         // the profile's path, shown under the title; may be empty
  int graph_width = 1200;     // px; graphs shrink to the page, zoom keeps this resolution
  double min_width_px = 0.1;  // narrower frames are pruned, as in `fscost flamegraph`
  bool per_op_graphs = true;  // besides the combined graphs, one set per operation
  // Size budget of the graphs, shared equally among them (0 = none). A graph
  // over its share is pruned harder (min width doubled, up to 6.4 px) and
  // says so in its header; a recording of a few thousand distinct stacks
  // fits in the default without pruning.
  std::size_t max_bytes = 8u << 20;
};

// Views (oncpu, offcpu, locks) without stacks get no graph; a profile
// without any stacks still gives a page, saying so. Graph values are totals
// over the run (samples, or ns), as `fscost flamegraph` draws them.
std::string render_html_report(const Profile& p, const HtmlOptions& opt);

}  // namespace fscost
