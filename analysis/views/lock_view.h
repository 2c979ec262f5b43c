// The lock view of a profile: per operation, the contended locks by name
// with per-op figures and the spin cross-check; kernel threads' locks.
#pragma once

#include <vector>

#include "views/lock_names.h"
#include "model/profile.h"
#include "views/view.h"
#include "views/spin_check.h"

namespace fscost {

struct LockOp {
  OpStats stats;              // zeros if none completed
  std::vector<LockRow> rows;  // lock_rows() of this operation
  SpinCheck spin;
};

struct LockView {
  std::vector<LockOp> ops;          // in the order of build_report_view's rows
  std::vector<LockRow> background;  // kernel threads, most total_ns first
};

LockView build_lock_view(const Profile& p, const ReportOptions& opt);

// Whether the recording probed lock contention: it has lock entries, or its
// probes list lock:contention_begin as attached (then no entry means no
// contended lock, not "not recorded", and the spin check still applies:
// spinning the tracepoints do not see shows only in the samples).
bool locks_recorded(const Profile& p);

}  // namespace fscost
