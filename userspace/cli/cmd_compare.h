// fscost compare: two filesystem configurations, one workload, repeated
// interleaved runs under `fscost record`, and a reviewer-ready diff
// (docs/COMPARE.md). Registered by main.cpp's subcommand table.
#pragma once

#include <functional>
#include <string>

#include "compare/session.h"  // run_compare_with, for calibrate

namespace CLI {
class App;
}

namespace fscost {

// `fscost compare --a SPEC --b SPEC (--workload W | --workload-cmd CMD) -o DIR …`
void add_compare(CLI::App& app, std::function<int()>& run);

}  // namespace fscost
