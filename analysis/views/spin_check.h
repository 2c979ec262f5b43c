// Cross-check of traced spin time against cpu-clock samples: the lock
// tracepoints time each spin exactly, the sampler sees the spinning CPU.
// Both should roughly agree; rwsem optimistic spinning is seen only by the
// sampler (it runs before lock:contention_begin; docs/LOCKS.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/profile.h"

namespace fscost {

struct SpinCheck {
  std::uint64_t traced_spin_ns = 0;  // sum of LockStat::spin_ns of the operation
  // On-CPU samples of the operation whose leaf is a spin slow path that
  // lock:contention_begin covers (qspinlock, qrwlock, mutex spinning).
  std::uint64_t spin_samples = 0;
  // Of those, the native queued spinlock's (native_queued_spin_lock_slowpath,
  // or queued_spin_lock_slowpath on a kernel without paravirt spinlocks).
  // Its first waiter spins on the pending bit and returns before
  // trace_contention_begin(), which only the MCS-queued waiters reach
  // (kernel/locking/qspinlock.c): part or all of this spin is untraced, so
  // traced spin is a lower bound; with one waiter at a time (2 CPUs) it
  // reads 0. The paravirt slow path queues every waiter: fully traced.
  std::uint64_t native_qspinlock_samples = 0;
  // Samples spinning optimistically on an rwsem (rwsem_spin_on_owner,
  // rwsem_optimistic_spin, or osq_lock below an rwsem_* frame).
  std::uint64_t rwsem_spin_samples = 0;
  // The sample counts as time, samples × 1e9 / freq_hz; nullopt if the
  // profile has no sampling frequency.
  std::optional<double> sampled_spin_ns;
  std::optional<double> native_qspinlock_ns;
  std::optional<double> rwsem_spin_ns;
};

SpinCheck spin_check(const Profile& p, const std::string& op);

// How a stack's leaf spins on a lock: in a slow path the lock tracepoints
// time (qspinlock, qrwlock, mutex owner spinning), or in an rwsem's
// optimistic spin, which they do not (rwsem_spin_on_owner,
// rwsem_optimistic_spin, osq_lock under an rwsem). The one table of spin
// leaves; lock_names.h's spinning_lock names the lock.
enum class SpinKind { None, Traced, Rwsem };
SpinKind spin_kind(const Stack& frames);

// True if the stack's leaf spins on a lock (spin_kind is not None).
bool is_spin_stack(const Stack& frames);
// The same from the leaf alone: whatever is below osq_lock, it spins
// (Traced or Rwsem), so a non-empty stack spins exactly when its leaf is
// one of the spin leaves.
bool is_spin_leaf(const std::string& leaf);

}  // namespace fscost
