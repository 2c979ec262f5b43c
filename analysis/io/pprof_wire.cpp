// What libprotobuf will allocate to parse a profile.proto, estimated from
// one pass over its wire format (io/pprof_parts.h).
#include <algorithm>
#include <cstdint>

#include "io/pprof_parts.h"

namespace fscost::pprof {

namespace {

// Measured: 20 million samples of one value each (5 bytes apiece, 145 KB
// of gzip) took 3.0 GB to parse, 150 bytes a Sample; a repeated integer
// is 8 bytes in memory however few it took on the wire; a string is its
// text and a std::string.
constexpr std::uint64_t kMessageBytes = 160;
constexpr std::uint64_t kScalarBytes = 8;
constexpr std::uint64_t kStringBytes = 32;

// profile.proto's field numbers that matter here.
constexpr std::uint32_t kSampleField = 2;    // Profile.sample
constexpr std::uint32_t kStringField = 6;    // Profile.string_table
constexpr std::uint32_t kCommentField = 13;  // Profile.comment, packed int64

class Wire {
 public:
  explicit Wire(std::string_view s) : s_(s) {}
  bool empty() const { return s_.empty(); }

  // The next field: its number, wire type and, when length-delimited, its
  // payload. False on malformed input.
  bool next(std::uint32_t& field, int& type, std::string_view& payload) {
    std::uint64_t tag = 0, v = 0;
    if (!varint(tag)) return false;
    field = static_cast<std::uint32_t>(tag >> 3);
    type = static_cast<int>(tag & 7);
    switch (type) {
      case 0: return varint(v);
      case 1: return skip(8);
      case 5: return skip(4);
      case 2:
        if (!varint(v) || v > s_.size()) return false;
        payload = s_.substr(0, v);
        s_.remove_prefix(v);
        return true;
      default: return false;  // groups (3, 4) are not in profile.proto
    }
  }

 private:
  bool varint(std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64 && !s_.empty(); shift += 7) {
      auto b = static_cast<unsigned char>(s_.front());
      s_.remove_prefix(1);
      v |= std::uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  }
  bool skip(std::size_t n) {
    if (s_.size() < n) return false;
    s_.remove_prefix(n);
    return true;
  }

  std::string_view s_;
};

// The integers a packed payload holds: one per byte without the
// continuation bit.
std::uint64_t packed_count(std::string_view p) {
  return static_cast<std::uint64_t>(
      std::count_if(p.begin(), p.end(), [](char c) { return !(c & 0x80); }));
}

// A message nested in Profile: itself, its integers, and its own nested
// messages (Sample.label, Location.line), or, in a Sample, the packed
// location ids and values.
std::optional<std::uint64_t> nested_cost(std::string_view payload, bool sample) {
  std::uint64_t cost = kMessageBytes;
  Wire w(payload);
  std::uint32_t field = 0;
  int type = 0;
  std::string_view inner;
  while (!w.empty()) {
    if (!w.next(field, type, inner)) return std::nullopt;
    if (type != 2)
      cost += kScalarBytes;
    else if (sample && (field == 1 || field == 2))
      cost += kScalarBytes * packed_count(inner);
    else
      cost += kMessageBytes;
  }
  return cost;
}

}  // namespace

std::optional<std::uint64_t> parse_cost(std::string_view raw) {
  std::uint64_t cost = kMessageBytes;
  Wire w(raw);
  std::uint32_t field = 0;
  int type = 0;
  std::string_view payload;
  while (!w.empty()) {
    if (!w.next(field, type, payload)) return std::nullopt;
    if (field == kCommentField) {
      cost += kScalarBytes * (type == 2 ? packed_count(payload) : 1);
    } else if (type != 2) {
      continue;  // a singular integer of Profile's own
    } else if (field == kStringField) {
      cost += kStringBytes + payload.size();
    } else {
      auto c = nested_cost(payload, field == kSampleField);
      if (!c) return std::nullopt;
      cost += *c;
    }
  }
  return cost;
}

}  // namespace fscost::pprof
