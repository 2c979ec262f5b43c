// The profile's bulk (frames, stacks, samples) read with simdjson On-Demand:
// no DOM tape (16 bytes per integer, most of a DOM load's memory and page
// faults), each value converted once where the parser meets it. The rest of
// the document, a few kilobytes, is handed on as JSON text to the checked
// DOM reader. Anything this reader does not take as written (a field out of
// place, a repeated key, a member it does not know inside a sample, a wrong
// type, an index out of range) makes it give
// up, and the checked reader reads the whole file and names the error: so a
// profile it accepts reads exactly as the checked reader reads it
// (unit.ProfileFast).
#include <fmt/format.h>
#include <simdjson.h>

#include <nlohmann/json.hpp>

#include "io/depth_cut.h"
#include "io/profile_io.h"
#include "io/profile_json.h"

namespace fscost::profile_json {

namespace {

namespace od = simdjson::ondemand;

simdjson::ondemand::parser& thread_parser() {
  thread_local od::parser parser;
  return parser;
}

// Any simdjson error: the checked reader takes over.
struct GiveUp {};

template <typename T, typename R>
T take(R&& result) {
  T v;
  if (std::move(result).get(v) != simdjson::SUCCESS) throw GiveUp{};
  return v;
}

class Reader {
 public:
  static constexpr std::size_t kMaxMembers = 64;

  explicit Reader(FastRead& out) : out_(out) {}

  void top(od::object root) {
    std::vector<std::string_view> seen;
    for (auto member : root) {
      od::field f = take<od::field>(member);
      std::string_view key = take<std::string_view>(f.unescaped_key());
      // fscost writes about 20; more is not its file, and keeps this linear.
      if (seen.size() == kMaxMembers || std::find(seen.begin(), seen.end(), key) != seen.end())
        throw GiveUp{};
      seen.push_back(key);
      od::value v = f.value();
      if (key == "format") {
        if (take<std::string_view>(v.get_string()) != kProfileFormatTag) throw GiveUp{};
        pass_on(key, nlohmann::json(kProfileFormatTag).dump());
      } else if (key == "version") {
        version_ = take<std::uint64_t>(v.get_uint64());
        if (version_ == 0 || version_ > static_cast<std::uint64_t>(kProfileFormatVersion))
          throw GiveUp{};
        pass_on(key, std::to_string(version_));
      } else if (key == "frames" && version_ && !frames_read_) {
        frames(take<od::array>(v.get_array()));
      } else if (key == "stacks" && version_ >= 3 && frames_read_) {
        stacks(take<od::array>(v.get_array()));
      } else if (key == "samples" && frames_read_ && out_.refs.table == (version_ >= 3)) {
        samples(take<od::array>(v.get_array()));
        samples_read_ = true;
      } else if (key == "frames" || key == "samples" || (key == "stacks" && version_ >= 3)) {
        throw GiveUp{};  // out of the order the writer keeps
      } else {
        pass_on(key, raw(v));
      }
    }
    if (!samples_read_) throw GiveUp{};
    out_.rest += '}';
  }

 private:
  void pass_on(std::string_view key, std::string_view json) {
    out_.rest += out_.rest.empty() ? "{" : ",";
    out_.rest += nlohmann::json(std::string(key)).dump();
    out_.rest += ':';
    out_.rest += json;
  }

  static std::string_view raw(od::value v) {
    switch (take<od::json_type>(v.type())) {
      case od::json_type::object:
        return take<std::string_view>(take<od::object>(v.get_object()).raw_json());
      case od::json_type::array:
        return take<std::string_view>(take<od::array>(v.get_array()).raw_json());
      default:
        return v.raw_json_token();
    }
  }

  void frames(od::array a) {
    out_.refs.frames.reserve(take<std::size_t>(a.count_elements()));
    for (auto f : a) out_.refs.frames.emplace_back(take<std::string_view>(f.get_string()));
    frames_read_ = true;
  }

  // Frame indexes, the first kReadDepth kept (as parse_frame_refs). Read
  // into one buffer, so each stack is allocated once, at its size.
  InternedStack frame_refs(od::array a) {
    const Stack& frames = out_.refs.frames;
    scratch_.clear();
    for (auto f : a) {
      std::uint64_t i = take<std::uint64_t>(f.get_uint64());
      if (i >= frames.size()) throw GiveUp{};
      if (scratch_.size() < kReadDepth) scratch_.push_back(frames[i]);
    }
    return InternedStack(scratch_);
  }

  void stacks(od::array a) {
    out_.refs.table = true;
    out_.refs.stacks.reserve(take<std::size_t>(a.count_elements()));
    for (auto s : a) out_.refs.stacks.push_back(frame_refs(take<od::array>(s.get_array())));
  }

  InternedStack stack(od::value v) {
    if (!out_.refs.table) return frame_refs(take<od::array>(v.get_array()));
    std::uint64_t i = take<std::uint64_t>(v.get_uint64());
    if (i >= out_.refs.stacks.size()) throw GiveUp{};
    return out_.refs.stacks[i];
  }

  void samples(od::array a) {
    out_.samples.reserve(take<std::size_t>(a.count_elements()));
    for (auto element : a) {
      StackSample s;
      unsigned seen = 0;  // a bit per field: kind, name, stack, count
      for (auto member : take<od::object>(element.get_object())) {
        od::field f = take<od::field>(member);
        std::string_view key = take<std::string_view>(f.unescaped_key());
        unsigned bit = key == "kind"    ? 1
                       : key == "name"  ? 2
                       : key == "stack" ? 4
                       : key == "count" ? 8
                                        : 0;
        // An unknown member's value would be skipped unchecked (On-Demand
        // counts brackets), and fscost writes none: the checked reader's.
        if (bit == 0 || (bit & seen)) throw GiveUp{};
        seen |= bit;
        od::value v = f.value();
        if (bit == 1) {
          if (!parse_sample_kind(std::string(take<std::string_view>(v.get_string())), s.kind))
            throw GiveUp{};
        } else if (bit == 2) {
          s.name = take<std::string_view>(v.get_string());
        } else if (bit == 4) {
          s.frames = stack(v);
        } else {
          s.count = take<std::uint64_t>(v.get_uint64());
        }
      }
      if (seen != 15) throw GiveUp{};
      out_.samples.push_back(std::move(s));
    }
  }

  FastRead& out_;
  Stack scratch_;
  std::uint64_t version_ = 0;
  bool frames_read_ = false, samples_read_ = false;
};

}  // namespace

std::optional<FastRead> read_fast(std::string_view padded_text) {
  FastRead out;
  try {
    od::document doc = take<od::document>(thread_parser().iterate(
        padded_text.data(), padded_text.size(), padded_text.size() + simdjson::SIMDJSON_PADDING));
    Reader(out).top(take<od::object>(doc.get_object()));
    const char* trailing = nullptr;  // OUT_OF_BOUNDS: nothing after the object
    if (doc.current_location().get(trailing) != simdjson::OUT_OF_BOUNDS) return std::nullopt;
  } catch (const GiveUp&) {
    return std::nullopt;
  }
  return out;
}

void release_fast_parser() { thread_parser() = od::parser(); }

}  // namespace fscost::profile_json
