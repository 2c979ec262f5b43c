// Reading a BPF hash map whole, once the recording has stopped. Batched
// (BPF_MAP_LOOKUP_BATCH: one syscall per `batch` entries, not two per
// entry) where the kernel has it, key by key otherwise. At 256 CPUs the
// sample map defaults to 65536 entries: ~131k syscalls key by key.
#pragma once

#include <bpf/bpf.h>

#include <cerrno>
#include <cstdint>
#include <utility>
#include <vector>

namespace fscost {

template <typename K, typename V>
std::vector<std::pair<K, V>> read_hash_by_key(int fd) {
  std::vector<std::pair<K, V>> out;
  K key{}, next{};
  const K* prev = nullptr;
  while (bpf_map_get_next_key(fd, prev, &next) == 0) {
    V value{};
    if (bpf_map_lookup_elem(fd, &next, &value) == 0) out.emplace_back(next, value);
    key = next;
    prev = &key;
  }
  return out;
}

template <typename K, typename V>
std::vector<std::pair<K, V>> read_hash(int fd, std::uint32_t batch = 4096) {
  std::vector<std::pair<K, V>> out;
  std::vector<K> keys(batch);
  std::vector<V> values(batch);
  std::uint64_t in = 0, next = 0;  // the kernel's opaque batch cursor (a bucket index)
  bool first = true;
  for (;;) {
    __u32 count = batch;
    int err = bpf_map_lookup_batch(fd, first ? nullptr : &in, &next, keys.data(), values.data(),
                                   &count, nullptr);
    int e = err ? errno : 0;
    if (err && e == ENOSPC && count == 0) {  // one bucket holds more than a batch
      batch *= 2;
      keys.resize(batch);
      values.resize(batch);
      continue;
    }
    // Before any entry was read: a kernel (or map) without batch lookup.
    if (err && e != ENOENT && first && out.empty()) return read_hash_by_key<K, V>(fd);
    for (__u32 i = 0; i < count; ++i) out.emplace_back(keys[i], values[i]);
    if (err) break;  // ENOENT: that was the last batch
    in = next;
    first = false;
  }
  return out;
}

}  // namespace fscost
