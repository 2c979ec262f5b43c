// Guest memory the host may have taken back.
#pragma once

#include <cstdint>

namespace fscost {

// MemAvailable of /proc/meminfo, in bytes; 0 if unreadable.
std::uint64_t mem_available_bytes();

// Faults in `bytes` of fresh anonymous memory and frees it again. On a VM
// that hands free memory back to its host (virtio-balloon free page
// reporting), the next allocations — a run's page cache — then land on
// pages the host backs already, instead of paying ~1 s of sys time per GiB
// in clear_page inside the run (issue 15). Best effort: does nothing if the
// memory cannot be had.
void touch_free_memory(std::uint64_t bytes);

}  // namespace fscost
