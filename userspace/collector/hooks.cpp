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
    // One per FSCOST_FS_EVENT_TABLE row (bpf/fscost_tables.h); bpf/xfs.bpf.h
    // names the programs from the same row.
#define FS_EVENT_HOOK(id, sys, tp, group, obj) Hook{#sys, #tp, #tp, ProbeGroup::group},
    FSCOST_FS_EVENT_TABLE(FS_EVENT_HOOK)
#undef FS_EVENT_HOOK
    {"block", "block_rq_issue", "block_rq_issue", ProbeGroup::Block},
});

// The counter names, index = enum fscost_fs_event: the tracepoint names.
#define FS_EVENT_NAME(id, sys, tp, group, obj) std::string_view(#tp),
constexpr auto kFsEventNames = std::to_array({FSCOST_FS_EVENT_TABLE(FS_EVENT_NAME)});
#undef FS_EVENT_NAME
static_assert(kFsEventNames.size() == FSCOST_FS_EVENTS);
#define FS_EVENT_IN_ORDER(id, sys, tp, group, obj) \
  static_assert(kFsEventNames[FSCOST_FSEV_##id] == #tp);
FSCOST_FS_EVENT_TABLE(FS_EVENT_IN_ORDER)
#undef FS_EVENT_IN_ORDER

}  // namespace

std::span<const Hook> hooks() { return kHooks; }

std::string probe_of_program(std::string_view program) {
  if (program == "on_sample") return "cpu-clock";
  for (std::string_view flavour : {"_btf", "_raw"}) {
    if (!program.ends_with(flavour)) continue;
    std::string_view base = program.substr(0, program.size() - flavour.size());
    for (const Hook& h : kHooks)
      if (h.program == base) return fmt::format("{}:{}", h.category, h.event);
  }
  return std::string(program);
}

std::span<const std::string_view> fs_event_names() { return kFsEventNames; }

bool ProbeGroups::enabled(ProbeGroup g) const {
  switch (g) {
    case ProbeGroup::Ops: return true;
    case ProbeGroup::Offcpu: return offcpu;
    case ProbeGroup::Wakers: return wakers && offcpu;  // wakers annotate off-CPU intervals
    case ProbeGroup::Locks: return locks;
    case ProbeGroup::FsEvents: return fs_events;
    case ProbeGroup::FsBuf: return fs_buf;
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
    else if (word == "xfs") g.fs_events = true;
    else if (word == "xfsbuf") g.fs_buf = true;
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
