// fscost html: a profile as one self-contained HTML report (docs/HTML.md).
// Registered by main.cpp's subcommand table.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace fscost {

// `fscost html FILE [-o OUT] [--title T] [--no-per-op] [--min-width PX]
//  [--max-size MIB] [--image-width PX]`
void add_html(CLI::App& app, std::function<int()>& run);

}  // namespace fscost
