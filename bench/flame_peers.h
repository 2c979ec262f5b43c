// fscost flamegraph beside FlameGraph's scripts, on the same input
// (docs/PERFORMANCE.md, "Analysis speed", its Method): each
// command run as its own process, the tools interleaved round by round.
// FlameGraph is not part of fscost; its scripts are found in a directory
// given at run time, and without them the rows say so and are not run.
#pragma once

#include <string>

namespace fscost::bench {

struct PeerOptions {
  std::string flamegraph_dir;  // holds flamegraph.pl and difffolded.pl; "" = not given
  std::string fscost;          // the fscost binary
  int rounds = 3;
};

// Which profiles a table is of, and its targets (FlameGraph ÷ fscost).
struct PeerShape {
  std::string name;  // "synthetic", "random walks"
  double single = 20, diff = 30;
};

// `a` and `b`: a profile of each side; their folded stacks are written to
// `dir`. Prints a markdown table.
void flame_peer_rows(const PeerOptions& o, const PeerShape& shape, const std::string& a,
                     const std::string& b, const std::string& dir);

}  // namespace fscost::bench
