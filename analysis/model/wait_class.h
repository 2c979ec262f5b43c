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

#include "fscost_tables.h"
#include "model/frame.h"

namespace fscost {

// The reason the BPF side saw at sched_switch: FSCOST_BLOCK_REASON_TABLE
// (bpf/fscost_tables.h), one value per row in order. Unknown values
// classify like Sleep.
enum class BlockReason : std::uint32_t {
#define FSCOST_X(id, name) name,
  FSCOST_BLOCK_REASON_TABLE(FSCOST_X)
#undef FSCOST_X
};
inline constexpr std::uint32_t kBlockReasons = 0 FSCOST_BLOCK_REASON_TABLE(FSCOST_ROW_COUNT);

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
