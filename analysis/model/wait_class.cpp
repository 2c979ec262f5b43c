#include "model/wait_class.h"

#include <algorithm>

#include "model/frame_match.h"

namespace fscost {

namespace {

// Waiting for log space: xlog_grant_head_check() sleeps in
// xlog_grant_head_wait() until the AIL pushes the tail forward.
constexpr std::array<std::string_view, 2> kLogReserve = {"xlog_grant_head_wait",
                                                         "xlog_grant_head_check"};

// Waiting for the log to reach disk: a log force (fsync, sync transactions,
// pinned buffers) waits for iclog I/O or for a CIL push.
constexpr std::array<std::string_view, 6> kLogForce = {"xfs_log_force",      "xfs_log_force_seq",
                                                       "xlog_wait_on_iclog", "xlog_wait",
                                                       "xlog_cil_force_seq", "xfs_log_force_inode"};

}  // namespace

bool is_wait_class(std::string_view s) {
  return std::find(kWaitClasses.begin(), kWaitClasses.end(), s) != kWaitClasses.end();
}

std::string classify_wait(BlockReason r, const Stack& frames) {
  if (r == BlockReason::Runqueue) return "runqueue";
  if (r == BlockReason::Lock) return "lock";
  if (stack_has_any(frames, kLogReserve)) return "log-reserve";
  if (stack_has_any(frames, kLogForce)) return "log-force";
  return r == BlockReason::IoWait ? "io" : "sleep";
}

}  // namespace fscost
