// Map sizes: what the options ask, or floors that grow with the CPU count.
#include <gtest/gtest.h>

#include "collector/map_sizes.h"

namespace fscost {
namespace {

TEST(MapSizes, FloorsOnSmallMachinesPerCpuAbove128) {
  MapSizes two = resolve_map_sizes({}, 2);
  EXPECT_EQ(two.max_stacks, 32768u);
  EXPECT_EQ(two.stack_storage, 16384u);
  EXPECT_EQ(two.max_threads, 16384u);
  EXPECT_EQ(two.max_procs, 8192u);
  EXPECT_EQ(two.max_offcpu, 16384u);
  EXPECT_EQ(two.max_locks, 16384u);
  EXPECT_EQ(two.max_background, 1024u);
  EXPECT_EQ(two.max_devices, 256u);
  // 128 CPUs: still the floors; 256: twice them.
  MapSizes m128 = resolve_map_sizes({}, 128), m256 = resolve_map_sizes({}, 256);
  EXPECT_EQ(m128.max_stacks, 32768u);
  EXPECT_EQ(m256.max_stacks, 65536u);
  EXPECT_EQ(m256.stack_storage, 32768u);
  EXPECT_EQ(m256.max_threads, 32768u);
  EXPECT_EQ(m256.max_procs, 16384u);
  EXPECT_EQ(m256.max_background, 2048u);
  EXPECT_EQ(m256.max_devices, 512u);
  // The options' own limit (2^22) bounds the default too.
  EXPECT_EQ(resolve_map_sizes({}, 1u << 20).max_stacks, 1u << 22);
  EXPECT_EQ(resolve_map_sizes({}, 0).max_stacks, 32768u);
}

TEST(MapSizes, WhatIsAskedWinsAtAnyCpuCount) {
  MapSizeOptions asked;
  asked.max_stacks = 100;
  asked.max_locks = 1u << 22;
  MapSizes m = resolve_map_sizes(asked, 512);
  EXPECT_EQ(m.max_stacks, 100u);
  EXPECT_EQ(m.max_locks, 1u << 22);
  EXPECT_EQ(m.max_offcpu, 65536u);  // not asked: 128 per CPU
}

}  // namespace
}  // namespace fscost
