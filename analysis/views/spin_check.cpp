#include "model/units.h"
#include "views/spin_check.h"

#include <array>

#include "model/frame_match.h"

namespace fscost {

namespace {

// Leaves where a CPU spins on a lock the lock tracepoints time (but for the
// native qspinlock's pending-bit spin, below). osq_lock is
// the MCS queue of both mutex and rwsem optimistic spinning, so it counts
// here only when no rwsem frame is below it.
constexpr std::array<std::string_view, 7> kTracedSpinLeaves = {
    "native_queued_spin_lock_slowpath",
    "queued_spin_lock_slowpath",
    "__pv_queued_spin_lock_slowpath",
    "queued_read_lock_slowpath",
    "queued_write_lock_slowpath",
    "mutex_spin_on_owner",
    "osq_lock",
};

// The native qspinlock slow path, whose pending-bit spin is untraced.
constexpr std::array<std::string_view, 2> kNativeQspinlockLeaves = {
    "native_queued_spin_lock_slowpath", "queued_spin_lock_slowpath"};

constexpr std::array<std::string_view, 2> kRwsemSpinLeaves = {"rwsem_spin_on_owner",
                                                              "rwsem_optimistic_spin"};
constexpr std::array<std::string_view, 3> kRwsemFrames = {"rwsem_*", "down_read*", "down_write*"};

std::optional<double> as_ns(std::uint64_t samples, std::uint32_t freq_hz) {
  if (freq_hz == 0) return std::nullopt;
  return static_cast<double>(samples) * 1e9 / freq_hz;
}

}  // namespace

SpinKind spin_kind(const Stack& frames) {
  if (frames.empty()) return SpinKind::None;
  const std::string& leaf = frames.back();
  if (frame_matches_any(leaf, kRwsemSpinLeaves)) return SpinKind::Rwsem;
  if (!frame_matches_any(leaf, kTracedSpinLeaves)) return SpinKind::None;
  if (frame_matches(leaf, "osq_lock") && stack_has_any(frames, kRwsemFrames)) return SpinKind::Rwsem;
  return SpinKind::Traced;
}

bool is_spin_stack(const Stack& frames) { return spin_kind(frames) != SpinKind::None; }

bool is_spin_leaf(const std::string& leaf) {
  return frame_matches_any(leaf, kRwsemSpinLeaves) || frame_matches_any(leaf, kTracedSpinLeaves);
}

SpinCheck spin_check(const Profile& p, const std::string& op) {
  SpinCheck c;
  for (const auto& s : p.locks)
    if (s.kind == SampleKind::Op && s.name == op) add_sat(c.traced_spin_ns, s.spin_ns);
  for (const auto& s : p.samples) {
    if (s.kind != SampleKind::Op || s.name != op) continue;
    SpinKind spin = spin_kind(s.frames);
    if (spin == SpinKind::Traced) {
      add_sat(c.spin_samples, s.count);
      if (frame_matches_any(s.frames.back().str(), kNativeQspinlockLeaves))
        add_sat(c.native_qspinlock_samples, s.count);
    }
    if (spin == SpinKind::Rwsem) add_sat(c.rwsem_spin_samples, s.count);
  }
  c.sampled_spin_ns = as_ns(c.spin_samples, p.meta.freq_hz);
  c.native_qspinlock_ns = as_ns(c.native_qspinlock_samples, p.meta.freq_hz);
  c.rwsem_spin_ns = as_ns(c.rwsem_spin_samples, p.meta.freq_hz);
  return c;
}

}  // namespace fscost
