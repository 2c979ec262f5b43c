// fscost compare: two filesystem configurations, one workload, repeated
// interleaved runs under `fscost record`, and a reviewer-ready diff
// (docs/COMPARE.md). Registered by main.cpp's subcommand table.
#pragma once

#include <functional>
#include <string>

#include "compare/options.h"

namespace CLI {
class App;
}

namespace fscost {

// `fscost compare --a SPEC --b SPEC (--workload W | --workload-cmd CMD) -o DIR …`
void add_compare(CLI::App& app, std::function<int()>& run);

struct CompareOutcome;  // compare/report.h
class OwnedDir;         // system/owned_dir.h

// What is done with a compare's runs once its storage is released:
// compare's outputs, or fscost calibrate's. Returns the exit code.
using AfterRuns =
    std::function<int(const CompareOptions&, const CompareOutcome&, const OwnedDir&)>;

// A compare's runs (checked options): root, the output directory claimed,
// storage, BPF, the interleaved runs, then `then`. `command` names it in
// messages ("calibrate"). 128 + the signal when interrupted before the
// first run.
int run_compare_with(CompareOptions o, const std::string& command, const AfterRuns& then);

}  // namespace fscost
