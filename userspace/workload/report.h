// The one JSON line fscost-workload prints on stdout.
#pragma once

#include <string>
#include <vector>

#include "counts.h"
#include "options.h"
#include "workloads.h"

namespace fscost::workload {

struct RunSummary {
  Counts outside;  // the main thread's setup and teardown (directories)
  std::vector<ThreadResult> threads;
  double elapsed_s = 0;  // start barrier to the last thread's end
  double sync_s = -1;    // the --syncfs phase; < 0 without one
  bool setup_paused = false;  // the recorder paused over the threads' setup
};

// fsops's keys (mode, n, counts, elapsed_s, ops_per_s, user_s, sys_s) and
// the new ones; reads the process's rusage.
std::string result_json(const Options& o, const RunSummary& s);

}  // namespace fscost::workload
