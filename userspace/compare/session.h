// A compare's session: root, the output directory claimed and held, the
// workload checked before the first mkfs, storage, one BPF load for every
// run, the warm-up, the interleaved runs, and then `then` with their
// outcome (compare's outputs, or fscost calibrate's). docs/COMPARE.md.
#pragma once

#include <functional>
#include <string>

#include "compare/options.h"

namespace fscost {

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
