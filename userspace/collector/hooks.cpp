#include "collector/hooks.h"

#include <fmt/format.h>

#include <array>

namespace fscost {
namespace {

constexpr auto kHooks = std::to_array<Hook>({
    {"raw_syscalls", "sys_enter", "sys_enter", ProbeGroup::Ops},
    {"raw_syscalls", "sys_exit", "sys_exit", ProbeGroup::Ops},
    {"sched", "sched_switch", "switch", ProbeGroup::Ops},
    {"sched", "sched_process_fork", "fork", ProbeGroup::Ops},
    {"sched", "sched_process_exit", "exit", ProbeGroup::Ops},
    {"sched", "sched_waking", "waking", ProbeGroup::Wakers},
    {"lock", "contention_begin", "lock_begin", ProbeGroup::Locks},
    {"lock", "contention_end", "lock_end", ProbeGroup::Locks},
    // In enum fscost_xfs_event order (xfs_event_names() relies on it).
    {"xfs", "xfs_trans_alloc", "xfs_trans_alloc", ProbeGroup::Xfs},
    {"xfs", "xfs_trans_commit", "xfs_trans_commit", ProbeGroup::Xfs},
    {"xfs", "xfs_trans_cancel", "xfs_trans_cancel", ProbeGroup::Xfs},
    {"xfs", "xfs_log_reserve", "xfs_log_reserve", ProbeGroup::Xfs},
    {"xfs", "xfs_log_regrant", "xfs_log_regrant", ProbeGroup::Xfs},
    {"xfs", "xfs_log_grant_sleep", "xfs_log_grant_sleep", ProbeGroup::Xfs},
    {"xfs", "xfs_log_force", "xfs_log_force", ProbeGroup::Xfs},
    {"xfs", "xfs_buf_read", "xfs_buf_read", ProbeGroup::XfsBuf},
    {"xfs", "xfs_buf_get", "xfs_buf_get", ProbeGroup::XfsBuf},
    {"xfs", "xfs_buf_lock", "xfs_buf_lock", ProbeGroup::XfsBuf},
    {"xfs", "xfs_ilock", "xfs_ilock", ProbeGroup::XfsBuf},
    {"xfs", "xfs_iget_miss", "xfs_iget_miss", ProbeGroup::Xfs},
    {"block", "block_rq_issue", "block_rq_issue", ProbeGroup::Block, true},
});

constexpr std::size_t kFirstXfs = 8;
static_assert(kHooks.size() == kFirstXfs + FSCOST_XFS_EVENTS + 1);

constexpr auto kXfsNames = [] {
  std::array<std::string_view, FSCOST_XFS_EVENTS> names{};
  for (std::size_t i = 0; i < names.size(); ++i) names[i] = kHooks[kFirstXfs + i].event;
  return names;
}();

}  // namespace

std::span<const Hook> hooks() { return kHooks; }

std::span<const std::string_view> xfs_event_names() { return kXfsNames; }

bool ProbeGroups::enabled(ProbeGroup g) const {
  switch (g) {
    case ProbeGroup::Ops: return true;
    case ProbeGroup::Offcpu: return offcpu;
    case ProbeGroup::Wakers: return wakers && offcpu;  // wakers annotate off-CPU intervals
    case ProbeGroup::Locks: return locks;
    case ProbeGroup::Xfs: return xfs;
    case ProbeGroup::XfsBuf: return xfs_buf;
    case ProbeGroup::Block: return block;
  }
  return false;
}

Result<ProbeGroups> parse_probe_groups(std::string_view spec) {
  if (spec == "default") return ProbeGroups{};
  if (spec == "all") return ProbeGroups{true, true, true, true, true, true};
  ProbeGroups g{false, false, false, false, false, false};
  if (spec == "none") return g;
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    auto comma = spec.find(',', pos);
    auto word = spec.substr(pos, comma == std::string_view::npos ? spec.npos : comma - pos);
    if (word == "offcpu") g.offcpu = true;
    else if (word == "wakers") g.wakers = g.offcpu = true;
    else if (word == "locks") g.locks = true;
    else if (word == "xfs") g.xfs = true;
    else if (word == "xfsbuf") g.xfs_buf = true;
    else if (word == "block") g.block = true;
    else
      return Error{fmt::format("unknown probe group '{}'", word),
                   "use default, all, none, or a comma list of offcpu,wakers,locks,xfs,xfsbuf,block"};
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return g;
}

}  // namespace fscost
