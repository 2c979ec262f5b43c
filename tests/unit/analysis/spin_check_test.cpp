// The spin cross-check: traced spin time against samples in spin paths.
#include "views/spin_check.h"

#include <gtest/gtest.h>

#include "full_fixture.h"

namespace fscost {
namespace {

using test::stack;

Profile spin_profile(std::uint32_t freq_hz) {
  Profile p;
  p.meta.freq_hz = freq_hz;
  auto add = [&](std::string op, Stack frames, std::uint64_t n) {
    p.samples.push_back({SampleKind::Op, std::move(op), stack(std::move(frames)), n});
  };
  add("create", {"f", "_raw_spin_lock", "native_queued_spin_lock_slowpath"}, 1);
  add("create", {"f", "queued_spin_lock_slowpath"}, 2);
  add("create", {"f", "__pv_queued_spin_lock_slowpath"}, 4);
  add("create", {"f", "_raw_read_lock", "queued_read_lock_slowpath"}, 8);
  add("create", {"f", "_raw_write_lock", "queued_write_lock_slowpath"}, 16);
  add("create", {"f", "__mutex_lock", "mutex_spin_on_owner"}, 32);
  add("create", {"f", "__mutex_lock", "osq_lock"}, 64);
  add("create", {"f", "rwsem_down_write_slowpath", "rwsem_optimistic_spin", "rwsem_spin_on_owner"},
      100);
  add("create", {"f", "rwsem_down_read_slowpath", "rwsem_optimistic_spin"}, 200);
  add("create", {"f", "rwsem_down_write_slowpath", "rwsem_optimistic_spin", "osq_lock"}, 400);
  // Not spin paths: a spin frame that is not the leaf, pv_wait, other ops.
  add("create", {"f", "native_queued_spin_lock_slowpath", "pv_wait"}, 1000);
  add("create", {"f", "xfs_create"}, 2000);
  add("unlink", {"f", "queued_spin_lock_slowpath"}, 3000);
  p.samples.push_back({SampleKind::Kthread, "create", {"queued_spin_lock_slowpath"}, 5000});
  LockStat l;
  l.name = "create";
  l.spin_ns = 700;
  p.locks = {l, l};
  l.kind = SampleKind::Kthread;  // background: not the operation's
  p.locks.push_back(l);
  l.kind = SampleKind::Op;
  l.name = "unlink";
  p.locks.push_back(l);
  return p;
}

TEST(SpinCheck, CountsLeavesByKind) {
  SpinCheck c = spin_check(spin_profile(1000), "create");
  EXPECT_EQ(c.traced_spin_ns, 1400u);
  EXPECT_EQ(c.spin_samples, 1u + 2 + 4 + 8 + 16 + 32 + 64);
  EXPECT_EQ(c.rwsem_spin_samples, 100u + 200 + 400);
  ASSERT_TRUE(c.sampled_spin_ns);
  EXPECT_DOUBLE_EQ(*c.sampled_spin_ns, 127 * 1e6);  // 1 ms per sample at 1000 Hz
  ASSERT_TRUE(c.rwsem_spin_ns);
  EXPECT_DOUBLE_EQ(*c.rwsem_spin_ns, 700 * 1e6);
}

TEST(SpinCheck, SampleTimeFollowsTheFrequency) {
  SpinCheck c = spin_check(spin_profile(997), "unlink");
  EXPECT_EQ(c.traced_spin_ns, 700u);
  EXPECT_EQ(c.spin_samples, 3000u);
  EXPECT_EQ(c.rwsem_spin_samples, 0u);
  EXPECT_DOUBLE_EQ(*c.sampled_spin_ns, 3000 * 1e9 / 997);
  EXPECT_DOUBLE_EQ(*c.rwsem_spin_ns, 0.0);
}

TEST(SpinCheck, NoFrequencyNoTime) {
  SpinCheck c = spin_check(spin_profile(0), "create");
  EXPECT_EQ(c.spin_samples, 127u);
  EXPECT_FALSE(c.sampled_spin_ns);
  EXPECT_FALSE(c.rwsem_spin_ns);
}

TEST(SpinCheck, FullProfile) {
  SpinCheck c = spin_check(test::full_profile(), "create");
  EXPECT_EQ(c.traced_spin_ns, 820'000u);
  EXPECT_EQ(c.spin_samples, 2u);
  EXPECT_EQ(c.rwsem_spin_samples, 4u);
  SpinCheck u = spin_check(test::full_profile(), "unlink");
  EXPECT_EQ(u.traced_spin_ns, 300'000u);
  EXPECT_EQ(u.spin_samples, 1u);  // osq_lock under a mutex is traced spinning
  EXPECT_EQ(u.rwsem_spin_samples, 0u);
  SpinCheck none = spin_check(test::full_profile(), "rmdir");
  EXPECT_EQ(none.traced_spin_ns, 0u);
  EXPECT_EQ(none.spin_samples, 0u);
}

}  // namespace
}  // namespace fscost
