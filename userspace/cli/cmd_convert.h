// fscost convert: a profile in another tool's format (docs/FORMATS.md).
// Registered by main.cpp's subcommand table.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace fscost {

// `fscost convert FILE.profile --to speedscope|folded [--view V] [--op OP] [-o OUT]`;
// stdout without -o.
void add_convert(CLI::App& app, std::function<int()>& run);

}  // namespace fscost
