// Frame: an interned, immutable kernel frame name.
//
// A profile set repeats the same few thousand function names in millions of
// stack entries; storing each as a std::string cost gigabytes and made every
// later stage hash and compare text. A Frame is one pointer into a
// process-wide pool (never freed), so copying is free, == is pointer
// equality, and id() is dense (0..N-1 in interning order) for array-indexed
// accumulation. Ordering is by TEXT, not id, so sorted containers of frames
// come out in the same order as they did with strings, independent of which
// thread or file interned a name first.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <compare>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace fscost {

class Frame {
 public:
  // The empty frame name.
  Frame() : entry_(empty_entry()) {}
  // Interning constructors; implicit so frame lists read like string lists.
  Frame(std::string_view text) : entry_(intern(text)) {}
  Frame(const std::string& text) : entry_(intern(text)) {}
  Frame(const char* text) : entry_(intern(text)) {}

  const std::string& str() const { return entry_->text; }
  operator const std::string&() const { return entry_->text; }
  std::uint32_t id() const { return entry_->id; }
  bool empty() const { return entry_->text.empty(); }

  // Distinct names interned so far (the empty name counts once).
  static std::size_t pool_size();

  friend bool operator==(const Frame& a, const Frame& b) { return a.entry_ == b.entry_; }
  friend std::strong_ordering operator<=>(const Frame& a, const Frame& b) {
    if (a.entry_ == b.entry_) return std::strong_ordering::equal;
    return a.str().compare(b.str()) <=> 0;
  }
  // Against text: exact overloads, so `f == "x"` does not have to choose
  // between interning "x" and converting it to a string_view.
  friend bool operator==(const Frame& a, std::string_view b) { return a.str() == b; }
  friend bool operator==(const Frame& a, const std::string& b) { return a.str() == b; }
  friend bool operator==(const Frame& a, const char* b) { return a.str() == b; }
  friend std::strong_ordering operator<=>(const Frame& a, std::string_view b) {
    return a.str().compare(b) <=> 0;
  }
  friend std::strong_ordering operator<=>(const Frame& a, const std::string& b) {
    return a.str().compare(b) <=> 0;
  }
  friend std::strong_ordering operator<=>(const Frame& a, const char* b) {
    return a.str().compare(b) <=> 0;
  }

 private:
  struct Entry {
    std::string text;
    std::uint32_t id = 0;
  };
  friend class FramePool;

  static const Entry* intern(std::string_view text);
  static const Entry* empty_entry();

  const Entry* entry_;
};

using Stack = std::vector<Frame>;

std::ostream& operator<<(std::ostream& os, const Frame& f);

// Conversions at the edges where a text stack is still wanted (folded
// stacks, flame inputs) or given (tests, parsers).
std::vector<std::string> frame_strings(const std::vector<Frame>& frames);
std::vector<Frame> to_frames(const std::vector<std::string>& frames);

// A stack equals the list of its texts (tests and callers holding text).
inline bool operator==(const Stack& a, const std::vector<std::string>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const Frame& f, const std::string& t) { return f.str() == t; });
}

}  // namespace fscost

template <>
struct std::hash<fscost::Frame> {
  std::size_t operator()(const fscost::Frame& f) const noexcept { return f.id(); }
};

template <>
struct fmt::formatter<fscost::Frame> : fmt::formatter<std::string_view> {
  template <typename Ctx>
  auto format(const fscost::Frame& f, Ctx& ctx) const {
    return fmt::formatter<std::string_view>::format(f.str(), ctx);
  }
};
