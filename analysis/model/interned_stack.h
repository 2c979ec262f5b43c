// InternedStack: a profile's stack, stored once per distinct stack.
//
// The runs of one workload repeat the same stacks: 2 × 10 runs of 100k
// stacks held 418 MB of frame vectors, most of them copies of each other.
// An InternedStack is one pointer into a process-wide pool (never freed,
// as Frame's), so a profile's records cost a pointer per stack, == is
// pointer equality, and id() is dense (0..N-1 in interning order) for
// array-indexed lookups. It reads like the const std::vector<Frame> it
// was (iteration, size, [], conversion to const Stack&); it is built from
// one, and changed only by assigning another. Ordering is by frame text,
// as a vector of frames orders.
#pragma once

#include <compare>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "model/frame.h"

namespace fscost {

class InternedStack {
 public:
  using value_type = Frame;
  using size_type = std::size_t;
  using const_iterator = const Frame*;
  using iterator = const Frame*;
  using const_reverse_iterator = std::reverse_iterator<const Frame*>;

  InternedStack() : entry_(empty_entry()) {}
  // Interning constructors; implicit so a record can be given a stack.
  InternedStack(const Stack& frames) : entry_(intern(frames)) {}
  InternedStack(Stack&& frames) : entry_(intern(std::move(frames))) {}
  InternedStack(std::initializer_list<Frame> frames) : entry_(intern(Stack(frames))) {}

  const Stack& frames() const { return entry_->frames; }
  operator const Stack&() const { return entry_->frames; }
  std::uint32_t id() const { return entry_->id; }

  const Frame* begin() const { return entry_->frames.data(); }
  const Frame* end() const { return begin() + size(); }
  const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }
  const Frame* data() const { return begin(); }
  std::size_t size() const { return entry_->frames.size(); }
  bool empty() const { return entry_->frames.empty(); }
  const Frame& operator[](std::size_t i) const { return entry_->frames[i]; }
  const Frame& front() const { return entry_->frames.front(); }
  const Frame& back() const { return entry_->frames.back(); }

  // Distinct stacks interned so far (the empty stack counts once).
  static std::size_t pool_size();

  friend bool operator==(const InternedStack& a, const InternedStack& b) {
    return a.entry_ == b.entry_;
  }
  friend std::strong_ordering operator<=>(const InternedStack& a, const InternedStack& b) {
    if (a.entry_ == b.entry_) return std::strong_ordering::equal;
    return a.frames() <=> b.frames();
  }
  friend bool operator==(const InternedStack& a, const Stack& b) { return a.frames() == b; }
  friend bool operator==(const InternedStack& a, const std::vector<std::string>& b) {
    return a.frames() == b;
  }

 private:
  struct Entry {
    Stack frames;
    std::uint32_t id = 0;
  };
  friend class StackPool;

  static const Entry* intern(Stack&& frames);
  static const Entry* intern(const Stack& frames);  // copies only a new stack
  static const Entry* empty_entry();

  const Entry* entry_;
};

// What a pass over many runs works out once per distinct stack (the runs
// repeat their stacks), by pool id; `unknown` until set.
template <typename T>
class StackMemo {
 public:
  explicit StackMemo(T unknown = T{}) : unknown_(std::move(unknown)) {}
  T& operator[](const InternedStack& s) {
    if (s.id() >= known_.size()) known_.resize(InternedStack::pool_size(), unknown_);
    return known_[s.id()];
  }

 private:
  T unknown_;
  std::vector<T> known_;
};

}  // namespace fscost
