// Where the threads work: DIR/shared for all of them, or DIR/t<K> each, plus
// the subdirectories --files-per-dir rolls over to. Made before the timed
// phase; the directories must not exist yet, so the counts stay exact.
#pragma once

#include <cstddef>
#include <vector>

#include "counts.h"
#include "options.h"
#include "sys.h"

namespace fscost::workload {

struct Layout {
  Dir root;                // DIR itself
  std::vector<Dir> bases;  // DIR/shared, or DIR/t0, DIR/t1, ...
  long subdirs = 0;        // d0000... in each base, with --files-per-dir

  const Dir& base(int thread) const {
    return bases.size() == 1 ? bases.front() : bases[std::size_t(thread)];
  }
};

// Makes and opens the directories, counting the syscalls in `c`.
Layout make_layout(const Options& o, Counts& c);

// Closes every directory fd (counted in `c`).
void close_layout(Layout& l, Counts& c);

}  // namespace fscost::workload
