// fscost calibrate: this host's between-compare noise for one workload
// (docs/COMPARE.md, "Calibration"). Registered by main.cpp's table.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace fscost {

// `fscost calibrate --config SPEC (--workload W | --workload-cmd CMD) [--runs R]
// [--compares K] -o DIR …`
void add_calibrate(CLI::App& app, std::function<int()>& run);

}  // namespace fscost
