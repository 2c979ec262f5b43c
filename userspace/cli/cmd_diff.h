// fscost diff: where configuration B's extra (or saved) kernel cost comes
// from, over repeated runs of A and B (docs/DIFF.md). Registered by
// main.cpp's subcommand table.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace fscost {

// `fscost diff A B [-o DIR] [--format text|json] [--label-a L] [--label-b L]
//  [--alpha Q] [--flow-share S] [--top N]`
void add_diff(CLI::App& app, std::function<int()>& run);

}  // namespace fscost
