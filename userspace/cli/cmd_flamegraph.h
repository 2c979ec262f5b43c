// fscost flamegraph: a profile's stacks as an interactive SVG flame graph,
// or two profiles as a differential one (docs/FLAMEGRAPH.md). Registered by
// main.cpp's subcommand table.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace fscost {

// `fscost flamegraph FILE [--view V] [--op OP] [--per-op] [--icicle] [-o OUT]`
// `fscost flamegraph --diff A B [--view V] [--op OP] [--width b|a|max]
//  [--color inclusive|self] [-o OUT]`; FILE, A and B are profiles or
// `.folded` stacks.
void add_flamegraph(CLI::App& app, std::function<int()>& run);

}  // namespace fscost
