// The process-wide stack pool behind InternedStack (interned_stack.h).
#include "model/interned_stack.h"

#include <array>
#include <atomic>
#include <deque>
#include <mutex>
#include <unordered_set>

namespace fscost {

// Loads intern from several threads at once, one call per record (a
// profile's stacks are not a table in the file), so the pool is split in
// shards by hash, each under its own lock. Entries live in deques so their
// addresses never move.
class StackPool {
 public:
  using Entry = InternedStack::Entry;

  const Entry* intern(Stack&& frames) {
    const std::uint64_t h = hash(frames);
    Shard& s = shards_[(h >> 56) % kShards];
    std::lock_guard lock(s.mutex);
    const Probe probe{&frames, h};
    if (auto it = s.index.find(probe); it != s.index.end()) return it->entry;
    Entry& e = s.entries.emplace_back(Entry{std::move(frames), h, next_id_++});
    s.index.insert(Probe{&e.frames, h, &e});
    return &e;
  }

  std::size_t size() const { return next_id_.load(); }

 private:
  static constexpr std::size_t kShards = 16;

  static std::uint64_t hash(const Stack& frames) {
    std::uint64_t h = 0xcbf29ce484222325ull ^ frames.size();
    for (const Frame& f : frames) h = (h ^ f.id()) * 0x100000001b3ull;
    h ^= h >> 33;  // murmur3's finalizer: the shard takes the top bits
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
  }

  // A stack being looked up, or a kept entry.
  struct Probe {
    const Stack* frames;
    std::uint64_t hash;
    const Entry* entry = nullptr;
  };
  struct ProbeHash {
    std::size_t operator()(const Probe& p) const { return p.hash; }
  };
  struct ProbeEq {
    bool operator()(const Probe& a, const Probe& b) const {
      return a.hash == b.hash && *a.frames == *b.frames;
    }
  };
  struct Shard {
    std::mutex mutex;
    std::deque<Entry> entries;
    std::unordered_set<Probe, ProbeHash, ProbeEq> index;
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

const InternedStack::Entry* InternedStack::empty_entry() {
  static const Entry* e = pool().intern({});
  return e;
}

std::size_t InternedStack::pool_size() { return pool().size(); }

}  // namespace fscost
