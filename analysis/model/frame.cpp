// The process-wide frame pool behind Frame (frame.h).
#include "model/frame.h"

#include <deque>
#include <mutex>
#include <ostream>
#include <unordered_map>

namespace fscost {

// Entries live in a deque so their addresses never move; the map's keys view
// the entries' own text. Loads may intern from several threads at once, so
// every lookup takes the lock: a profile interns each distinct name once per
// file (its frame table), not once per stack entry, so the lock is cold.
class FramePool {
 public:
  const Frame::Entry* intern(std::string_view text) {
    std::lock_guard lock(mutex_);
    auto it = index_.find(text);
    if (it != index_.end()) return it->second;
    auto id = static_cast<std::uint32_t>(entries_.size());
    Frame::Entry& e = entries_.emplace_back(Frame::Entry{std::string(text), id});
    index_.emplace(e.text, &e);
    return &e;
  }

  std::size_t size() {
    std::lock_guard lock(mutex_);
    return entries_.size();
  }

 private:
  std::mutex mutex_;
  std::deque<Frame::Entry> entries_;
  std::unordered_map<std::string_view, const Frame::Entry*> index_;
};

namespace {

// Never destroyed: Frames in other static objects may outlive any
// destruction order we could pick.
FramePool& pool() {
  static FramePool* p = new FramePool;
  return *p;
}

}  // namespace

const Frame::Entry* Frame::intern(std::string_view text) { return pool().intern(text); }

const Frame::Entry* Frame::empty_entry() {
  static const Entry* e = pool().intern({});
  return e;
}

std::size_t Frame::pool_size() { return pool().size(); }

std::ostream& operator<<(std::ostream& os, const Frame& f) { return os << f.str(); }

std::vector<std::string> frame_strings(const std::vector<Frame>& frames) {
  return {frames.begin(), frames.end()};
}

std::vector<Frame> to_frames(const std::vector<std::string>& frames) {
  return {frames.begin(), frames.end()};
}

}  // namespace fscost
