// Naming contended kernel locks so that a report can add them up.
//
// A lock:contention_begin event carries an address and flags, nothing more.
// Addresses are per object (every directory has its own i_rwsem), so locks
// are named by their *role*, inferred from the call site, and merged by name.
// The tables are in lock_names.cpp and documented in docs/LOCKS.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/profile.h"

namespace fscost {

// contention_begin flags (include/trace/events/lock.h).
inline constexpr std::uint32_t kLockSpin = 1;
inline constexpr std::uint32_t kLockRead = 2;
inline constexpr std::uint32_t kLockWrite = 4;
inline constexpr std::uint32_t kLockRt = 8;
inline constexpr std::uint32_t kLockPercpu = 16;
inline constexpr std::uint32_t kLockMutex = 32;

// "spinlock", "rwlock:R", "rwsem:W", "percpu-rwsem:R", "mutex",
// "mutex (spun)", "rt-mutex", "semaphore", ...; "unknown(0xNN)" for flag
// combinations the kernel does not emit.
std::string lock_type(std::uint32_t flags);

// A lock record's `address` is the lock's kernel address only if the
// recording kept them (--keep-addresses); by default it is the lock's id in
// its recording (1, 2, …), so that nothing shared defeats KASLR. Every
// 64-bit kernel address has its top bit set (the rule of perf script import
// too); an id never does.
inline bool is_kernel_address(std::uint64_t a) { return (a >> 63) != 0; }

// The static lock's symbol if known; else its role from the stack at
// contention_begin ("i_rwsem (parent dir, filename_create)", "xfs_buf lock
// (AGI)", "<function> lock"); else, if there is no stack, "lock#<id>", or
// "lock@0x<address>" from a recording that kept addresses.
std::string lock_name(const LockStat& s);

// The lock a sampled stack spins on, named as lock_name names a traced
// wait from the same call site. `optimistic` is spinning the lock
// tracepoints never see: an rwsem's optimistic spin (rwsem_spin_on_owner,
// rwsem_optimistic_spin, osq_lock under rwsem_*), which runs before
// contention_begin (kernel/locking/rwsem.c). A mutex's owner spin
// (mutex_spin_on_owner, osq_lock) is inside its traced wait (MUTEX|SPIN),
// like a spinlock or rwlock slow path: timed, not optimistic here.
struct SpinningLock {
  std::string name;  // "i_rwsem (parent dir, open)", "xfs_buf lock (AGI)", ...
  std::string type;  // "rwsem:W", "rwsem:R", "mutex", "spinlock", "rwlock:R", "rwlock:W"
  bool optimistic = false;
};
// nullopt if the stack's leaf does not spin on a lock.
std::optional<SpinningLock> spinning_lock(const Stack& frames);

// "spin", "sleep", "both" or "-": how the waits were spent.
std::string lock_mode(std::uint64_t spin_ns, std::uint64_t sleep_ns);

// LockStats merged by (kind, bucket, lock_name, lock_type).
struct LockRow {
  SampleKind kind = SampleKind::Op;
  std::string bucket;  // operation, or kthread name
  std::string name;    // lock_name()
  std::string type;    // lock_type()
  std::uint64_t count = 0;
  std::uint64_t total_ns = 0;
  std::uint64_t max_ns = 0;
  std::uint64_t spin_ns = 0;
  std::uint64_t sleep_ns = 0;
  std::uint64_t addresses = 0;  // distinct locks (addresses, or ids) merged into this row
  // cpu-clock samples of the op spinning optimistically on this lock
  // (spinning_lock), which the tracepoints never time; the lock view fills
  // it, lock_rows leaves it 0.
  std::uint64_t optimistic_spin_samples = 0;
  std::optional<double> optimistic_spin_ns;  // samples × 1e9 / freq_hz; nullopt without a rate
};

// Every LockStat of the profile merged into rows, or only those of operation
// `op` (kind Op) if given; by total_ns descending, ties by (kind, bucket,
// name, type).
std::vector<LockRow> lock_rows(const Profile& p, const std::optional<std::string>& op);

}  // namespace fscost
