// The table of kernel hooks fscost attaches: which tracepoint, which BPF
// program (one per attach flavour), which probe group it belongs to. The
// collector decides autoload from it; nothing else lists programs by hand.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "collector/bpf_abi.h"
#include "model/result.h"

namespace fscost {

enum class ProbeGroup : std::uint8_t { Ops, Offcpu, Wakers, Locks, FsEvents, FsBuf, Block };

struct Hook {
  std::string_view category;  // tracepoint category, e.g. "sched"
  std::string_view event;     // tracepoint name, e.g. "sched_switch"
  std::string_view program;   // BPF program base name; flavours add _btf / _raw
  ProbeGroup group;
};

std::span<const Hook> hooks();

// The probe a loaded program serves, as the profile's meta.probes names it
// ("raw_syscalls:sys_enter", "cpu-clock" for the sampler): its hook's
// tracepoint for "<program>_btf" / "<program>_raw"; else the name itself.
std::string probe_of_program(std::string_view program);

// Filesystem event counters in enum fscost_fs_event order: the names reports use.
std::span<const std::string_view> fs_event_names();

// Which probe groups to attach; parsed from --probes.
struct ProbeGroups {
  bool offcpu = true;
  bool wakers = true;
  bool locks = true;
  bool fs_events = true;
  bool fs_buf = false;  // per-buffer events: ~30 per create, so not by default
  bool block = true;
  bool enabled(ProbeGroup g) const;
};

// "default" (all but xfsbuf), "all", "none", or a comma list of
// offcpu,wakers,locks,xfs,xfsbuf,block (ops and samples are always on).
Result<ProbeGroups> parse_probe_groups(std::string_view spec);

}  // namespace fscost
