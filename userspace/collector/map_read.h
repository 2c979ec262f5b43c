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

// Deletes every entry of a hash map, whatever its key type: batches of keys
// read and deleted together (BPF_MAP_LOOKUP_AND_DELETE_BATCH), key by key
// where the kernel lacks it. False, with errno, if an entry stays.
inline bool clear_hash(int fd, std::size_t key_size, std::size_t value_size,
                       std::uint32_t batch = 4096) {
  std::vector<char> keys(key_size * batch), values(value_size * batch);
  std::uint64_t in = 0, next = 0;
  bool first = true;
  for (;;) {
    __u32 count = batch;
    int err = bpf_map_lookup_and_delete_batch(fd, first ? nullptr : &in, &next, keys.data(),
                                              values.data(), &count, nullptr);
    if (err && errno == ENOSPC && count == 0) {  // one bucket holds more than a batch
      batch *= 2;
      keys.resize(key_size * batch);
      values.resize(value_size * batch);
      continue;
    }
    // ENOENT: that was the last batch; another error (no batch op on this
    // kernel): what is left goes key by key below.
    if (err) break;
    in = next;
    first = false;
  }
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
