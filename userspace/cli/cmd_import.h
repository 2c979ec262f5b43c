// fscost import: other tools' stacks as an fscost profile
// (docs/FORMATS.md). Registered by main.cpp's subcommand table.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace fscost {

// `fscost import perf-script FILE [-o OUT] [--event EVENT]` and
// `fscost import folded FILE [-o OUT] [--column 0|1]`; FILE "-" is stdin.
void add_import(CLI::App& app, std::function<int()>& run);

}  // namespace fscost
