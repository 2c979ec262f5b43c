// Why an operation was off CPU: the wait class of one blocked interval.
//
// The BPF side reports a coarse reason at sched_switch; the blocked stack
// refines it into the XFS log waits that dominate metadata-heavy workloads.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/frame.h"

namespace fscost {

// Values fixed: bpf/ emits them. Unknown values classify like Sleep.
enum class BlockReason : std::uint32_t {
  Sleep = 0,     // blocked, not in iowait, no contended lock
  IoWait = 1,    // blocked with in_iowait set (io_schedule)
  Lock = 2,      // blocked between lock:contention_begin and contention_end
  Runqueue = 3,  // still runnable: preempted, or woken and waiting for a CPU
};

// Every wait class, in report column order.
inline constexpr std::array<std::string_view, 6> kWaitClasses = {
    "lock", "io", "log-reserve", "log-force", "runqueue", "sleep"};

bool is_wait_class(std::string_view s);

// Runqueue → "runqueue"; Lock → "lock"; otherwise the blocked stack (any
// frame, outermost first as in profiles) decides: an XFS log grant-head wait
// → "log-reserve", a log force or iclog wait → "log-force"; else IoWait →
// "io" and anything else → "sleep". docs/PROFILE.md lists the frames.
std::string classify_wait(BlockReason r, const Stack& frames);

}  // namespace fscost
