// The workloads: each is an untimed per-thread setup (before the start
// barrier) and the timed loop. docs/WORKLOAD.md lists what each issues.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "counts.h"
#include "layout.h"
#include "options.h"

namespace fscost::workload {

// Shared, read-only while the threads run.
struct Context {
  const Options& options;
  const Layout& layout;
  std::vector<char> data;  // what writes write
};

struct ThreadResult {
  Counts setup;                // untimed, before the start barrier
  Counts timed;                // the timed loop
  std::uint64_t sequence = 0;  // random: hash of the op sequence it drew
};

using Step = void (*)(const Context&, int thread, ThreadResult&);

struct Workload {
  Step setup;  // may be null
  Step run;
};

// Bytes each write of the workload writes (random writes 4096 by default).
std::size_t write_size(const Options& o);

const Workload& workload_for(Mode m);

// The loops, one file per family.
void create_run(const Context&, int, ThreadResult&);
void remove_setup(const Context&, int, ThreadResult&);
void remove_run(const Context&, int, ThreadResult&);
void openclose_setup(const Context&, int, ThreadResult&);
void openclose_run(const Context&, int, ThreadResult&);
void mixed_run(const Context&, int, ThreadResult&);
void random_run(const Context&, int, ThreadResult&);

}  // namespace fscost::workload
