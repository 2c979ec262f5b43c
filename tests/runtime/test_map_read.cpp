// Draining a hash map the size 256 CPUs get by default (65536 sample
// entries, collector/map_sizes.h): every entry comes back once, batched
// and key by key alike, and a map whose buckets outgrow a batch still
// reads whole. A real kernel map: the batch interface is the kernel's.
#include <bpf/bpf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <cstdint>
#include <set>

#include "collector/map_read.h"
#include "collector/map_sizes.h"
#include "fscost.h"
#include "support.h"
#include "system/subprocess.h"  // UniqueFd

namespace fscost {
namespace {

// A sample map full to its default size at `cpus` CPUs, keys made distinct
// by (op, stack, name).
UniqueFd filled_sample_map(unsigned cpus, std::uint32_t* entries) {
  std::uint32_t n = resolve_map_sizes({}, cpus).max_stacks;
  UniqueFd fd(bpf_map_create(BPF_MAP_TYPE_HASH, "fscost_test", sizeof(fscost_sample_key),
                          sizeof(std::uint64_t), n, nullptr));
  if (fd.get() < 0) return fd;
  for (std::uint32_t i = 0; i < n; ++i) {
    fscost_sample_key k{};
    k.kind = FSCOST_SK_OP;
    k.op = i % FSCOST_MAX_OPS;
    k.stack = 0x9e3779b97f4a7c15ull * (i + 1);
    k.name[0] = static_cast<char>('a' + i % 26);
    std::uint64_t count = i + 1;
    if (bpf_map_update_elem(fd.get(), &k, &count, BPF_NOEXIST)) break;
    *entries = i + 1;
  }
  return fd;
}

TEST(MapRead, A256CpuSampleMapDrainsWhole) {
  FSCOST_REQUIRE_ROOT();
  std::uint32_t n = 0;
  UniqueFd fd = filled_sample_map(256, &n);
  ASSERT_GE(fd.get(), 0) << "bpf_map_create: " << std::strerror(errno);
  ASSERT_EQ(n, 65536u);
  auto batched = read_hash<fscost_sample_key, std::uint64_t>(fd.get());
  auto by_key = read_hash_by_key<fscost_sample_key, std::uint64_t>(fd.get());
  ASSERT_EQ(batched.size(), n);
  ASSERT_EQ(by_key.size(), n);
  std::set<std::uint64_t> counts;
  std::uint64_t sum = 0;
  for (const auto& [k, v] : batched) {
    counts.insert(v);
    sum += v;
    EXPECT_EQ(k.stack, 0x9e3779b97f4a7c15ull * v);  // each key with its own value
  }
  EXPECT_EQ(counts.size(), n);  // none twice
  EXPECT_EQ(sum, static_cast<std::uint64_t>(n) * (n + 1) / 2);
}

TEST(MapRead, BatchesSmallerThanABucketStillReadWhole) {
  FSCOST_REQUIRE_ROOT();
  std::uint32_t n = 0;
  UniqueFd fd = filled_sample_map(2, &n);
  ASSERT_GE(fd.get(), 0) << "bpf_map_create: " << std::strerror(errno);
  // A batch of one entry: any bucket with two keys needs the batch grown.
  auto batched = read_hash<fscost_sample_key, std::uint64_t>(fd.get(), 1);
  EXPECT_EQ(batched.size(), n);
}

}  // namespace
}  // namespace fscost
