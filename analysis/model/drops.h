// The drop counters a profile carries: what each one means and the knob that
// fixes it. Printed with every report so lost data is never silent.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "fscost_tables.h"

namespace fscost {

struct DropCounter {
  std::string_view name;         // key in Profile::drops
  std::string_view description;  // what was lost, and why
  std::string_view hint;         // how to stop losing it
};

// The counters of the BPF side's .bss `drops` array (FSCOST_DROP_TABLE in
// bpf/fscost_tables.h): entry i is enum fscost_drop value i.
inline constexpr std::size_t kBpfDropCount = 0 FSCOST_DROP_TABLE(FSCOST_ROW_COUNT);
std::span<const DropCounter> bpf_drop_counters();

// Every counter this fscost knows, in report order: the BPF ones first.
std::span<const DropCounter> drop_counters();

// The entry for `name`; an unknown name (a newer recorder) gets a generic
// description and hint, so it is still printed.
DropCounter describe_drop(std::string_view name);

// What the program on a probe (Profile::prog_missed_by's key, as
// meta.probes names it: "raw_syscalls:sys_exit", "cpu-clock") feeds, so a
// run it missed can be weighed: `feeds` says what loses an event, and
// `op_counts` whether an op's count (and so every per-op figure) can be off.
struct ProbeFeed {
  std::string_view feeds;
  bool op_counts = false;
};
ProbeFeed probe_feed(std::string_view probe);

}  // namespace fscost
