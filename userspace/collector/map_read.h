// Reading a BPF hash map whole, once the recording has stopped, and emptying
// maps between recordings of one load (Collector::reset). Batched
// (BPF_MAP_LOOKUP_BATCH: one syscall per `batch` entries, not two per
// entry) where the kernel has it, key by key otherwise. At 256 CPUs the
// sample map defaults to 65536 entries: ~131k syscalls key by key.
#pragma once

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
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

// Walks a hash map in batches, `count` keys and values at a time to
// `each(keys, values, count)`: BPF_MAP_LOOKUP_BATCH, or with `remove`
// BPF_MAP_LOOKUP_AND_DELETE_BATCH. 0 at the end of the map; the errno of a
// kernel (or map) without the batch op when it failed before any entry.
// The buffers are left uninitialised: the kernel writes the `count`
// entries it returns and nothing else, so an empty map's batch touches no
// page of them. Zero-filled, they were 4096 values of every hash map at
// every Collector::reset: a fifth of a compare's own CPU (perf, 2 × 5 runs).
template <typename Each>
int for_each_batch(int fd, std::size_t key_size, std::size_t value_size, bool remove, Each each,
                   std::uint32_t batch = 4096) {
  auto keys = std::make_unique_for_overwrite<char[]>(key_size * batch);
  auto values = std::make_unique_for_overwrite<char[]>(value_size * batch);
  std::uint64_t in = 0, next = 0;  // the kernel's opaque batch cursor (a bucket index)
  bool first = true;
  for (;;) {
    __u32 count = batch;
    int err = (remove ? bpf_map_lookup_and_delete_batch : bpf_map_lookup_batch)(
        fd, first ? nullptr : &in, &next, keys.get(), values.get(), &count, nullptr);
    int e = err ? errno : 0;
    if (err && e == ENOSPC && count == 0) {  // one bucket holds more than a batch
      batch *= 2;
      keys = std::make_unique_for_overwrite<char[]>(key_size * batch);
      values = std::make_unique_for_overwrite<char[]>(value_size * batch);
      continue;
    }
    if (err && e != ENOENT && first) return e;
    each(keys.get(), values.get(), count);
    if (err) return e == ENOENT ? 0 : e;  // ENOENT: that was the last batch
    in = next;
    first = false;
  }
}

template <typename K, typename V>
std::vector<std::pair<K, V>> read_hash(int fd, std::uint32_t batch = 4096) {
  std::vector<std::pair<K, V>> out;
  int err = for_each_batch(fd, sizeof(K), sizeof(V), false,
                           [&](const char* keys, const char* values, __u32 count) {
                             for (__u32 i = 0; i < count; ++i) {
                               std::pair<K, V> kv;
                               std::memcpy(&kv.first, keys + i * sizeof(K), sizeof(K));
                               std::memcpy(&kv.second, values + i * sizeof(V), sizeof(V));
                               out.push_back(kv);
                             }
                           },
                           batch);
  // Before any entry was read: a kernel (or map) without batch lookup.
  if (err && out.empty()) return read_hash_by_key<K, V>(fd);
  return out;
}

// Deletes every entry of a hash map, whatever its key type, in batches;
// what a kernel without the batch op leaves goes key by key. False, with
// errno, if an entry stays.
inline bool clear_hash(int fd, std::size_t key_size, std::size_t value_size) {
  for_each_batch(fd, key_size, value_size, true, [](const char*, const char*, __u32) {});
  std::vector<char> key(key_size);
  while (bpf_map_get_next_key(fd, nullptr, key.data()) == 0)
    if (bpf_map_delete_elem(fd, key.data()) && errno != ENOENT) return false;
  return errno == ENOENT;
}

// Zeroes every entry of a per-CPU array on every possible CPU.
inline bool zero_percpu_array(int fd, std::uint32_t entries, std::uint32_t value_size) {
  int cpus = libbpf_num_possible_cpus();
  // The kernel copies each CPU's value rounded up to 8 bytes.
  std::vector<char> zero(static_cast<std::size_t>(cpus > 0 ? cpus : 1) * ((value_size + 7) / 8 * 8));
  for (__u32 i = 0; i < entries; ++i)
    if (bpf_map_update_elem(fd, &i, zero.data(), BPF_ANY)) return false;
  return true;
}

}  // namespace fscost
