// The process-wide stack pool behind InternedStack (interned_stack.h).
#include "model/interned_stack.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <deque>
#include <mutex>
#include <vector>

namespace fscost {

// Loads intern from several threads at once, one call per record (a
// profile's stacks are not a table in the file), so the pool is split in
// shards by hash, each under its own lock. Entries live in deques so their
// addresses never move.
class StackPool {
 public:
  using Entry = InternedStack::Entry;

  // `frames` is copied (const&) or moved (&&) only when it is new.
  template <typename S>
  const Entry* intern(S&& frames) {
    const std::uint64_t h = hash(frames);
    Shard& s = shards_[h >> 60];  // the top bits; the slot takes the low ones
    std::lock_guard lock(s.mutex);
    if (2 * (s.entries.size() + 1) > s.slots.size()) s.grow();
    const std::size_t mask = s.slots.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& slot = s.slots[i];
      if (!slot.entry) {
        Entry& e = s.entries.emplace_back(Entry{Stack(std::forward<S>(frames)), next_id_++});
        slot = {h, &e};
        return &e;
      }
      if (slot.hash == h && slot.entry->frames == frames) return slot.entry;
    }
  }

  std::size_t size() const { return next_id_.load(); }

 private:
  static constexpr std::size_t kShards = 16;

  static std::uint64_t hash(const Stack& frames) {
    std::uint64_t h = 0xcbf29ce484222325ull ^ frames.size();
    for (const Frame& f : frames) h = (h ^ f.id()) * 0x100000001b3ull;
    h ^= h >> 33;  // murmur3's finalizer: every bit of the hash mixes every frame
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
  }

  // Open addressing, the hash inline: a lookup is one slot and, on a
  // match, one compare of the frames.
  struct Slot {
    std::uint64_t hash = 0;
    const Entry* entry = nullptr;
  };
  struct Shard {
    std::mutex mutex;
    std::deque<Entry> entries;
    std::vector<Slot> slots;

    void grow() {
      std::vector<Slot> old(std::max<std::size_t>(256, 2 * slots.size()));
      old.swap(slots);
      const std::size_t mask = slots.size() - 1;
      for (const Slot& o : old) {
        if (!o.entry) continue;
        std::size_t i = o.hash & mask;
        while (slots[i].entry) i = (i + 1) & mask;
        slots[i] = o;
      }
    }
  };

  std::array<Shard, kShards> shards_;
  std::atomic<std::uint32_t> next_id_{0};
};

namespace {

// Never destroyed, as the frame pool: stacks in static objects may
// outlive any destruction order we could pick.
StackPool& pool() {
  static StackPool* p = new StackPool;
  return *p;
}

}  // namespace

const InternedStack::Entry* InternedStack::intern(Stack&& frames) {
  return pool().intern(std::move(frames));
}

const InternedStack::Entry* InternedStack::intern(const Stack& frames) {
  return pool().intern(frames);
}

const InternedStack::Entry* InternedStack::empty_entry() {
  static const Entry* e = pool().intern(Stack{});
  return e;
}

std::size_t InternedStack::pool_size() { return pool().size(); }

}  // namespace fscost
