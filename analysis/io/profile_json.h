// Internal to profile_io*.cpp and profile_fast.cpp: checked JSON access, the
// frame and stack tables, and the fast path's hand-off.
//
// The checked reader uses simdjson's DOM, which names every error by its
// path; the fast path (profile_fast.cpp, On-Demand) reads the frames, stacks
// and samples of a file fscost wrote and leaves everything else to it.
// Writing uses nlohmann's ordered_json, which keeps the documented member
// order.
#pragma once

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "io/depth_cut.h"
#include "model/frame.h"
#include "model/profile.h"

namespace fscost::profile_json {

using ojson = nlohmann::ordered_json;
using simdjson::dom::element;
using simdjson::dom::element_type;

// A value inside the document and how we got there. The JSON path is only
// spelled out when something is wrong, so large profiles parse cheaply.
struct Node {
  element v;
  const Node* parent = nullptr;
  const char* key = nullptr;  // object member name; nullptr for array elements
  std::size_t index = 0;
};

// Stands in for a missing member: a default dom::element points at no
// document, so reading one would crash.
inline element null_element() {
  static simdjson::dom::parser parser;
  static const element null = parser.parse("null", 4).value_unsafe();
  return null;
}

// The value of `key` in `v`; nullopt if `v` is not an object or has no `key`.
// A repeated key means its last value, as nlohmann (the old reader) did.
inline std::optional<element> member(element v, std::string_view key) {
  simdjson::dom::object obj;
  if (v.get_object().get(obj) != simdjson::SUCCESS) return std::nullopt;
  std::optional<element> found;
  for (auto [k, value] : obj)
    if (k == key) found = value;
  return found;
}

inline std::string path_of(const Node& n) {
  if (!n.parent) return "";
  std::string p = path_of(*n.parent);
  if (!n.key) return fmt::format("{}[{}]", p, n.index);
  return p.empty() ? n.key : fmt::format("{}.{}", p, n.key);
}

// Type-checked reads. The first failure is kept and later reads return
// defaults, so a parser reads a whole struct and checks once at the end.
class Checker {
 public:
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  void fail(const Node& n, std::string_view what) {
    if (!ok()) return;
    std::string path = path_of(n);
    error_ = fmt::format("{}: {}", path.empty() ? "top level" : path, what);
  }

  Node field(const Node& obj, const char* key) {
    if (!obj.v.is_object()) {
      fail(obj, fmt::format("expected object, got {}", type_name(obj.v)));
      return {null_element(), &obj, key};
    }
    if (auto v = member(obj.v, key)) return {*v, &obj, key};
    Node missing{null_element(), &obj, key};
    fail(missing, "missing required field");
    return missing;
  }

  // An optional member: nullopt if `obj` has no `key` (or is not an object,
  // which is an error).
  std::optional<Node> find(const Node& obj, const char* key) {
    if (!obj.v.is_object()) {
      fail(obj, fmt::format("expected object, got {}", type_name(obj.v)));
      return std::nullopt;
    }
    if (auto v = member(obj.v, key)) return Node{*v, &obj, key};
    return std::nullopt;
  }

  // Any integer in [0, 2^64): simdjson types those above INT64_MAX UINT64.
  std::uint64_t u64(const Node& n) {
    std::uint64_t v = 0;
    if (n.v.get_uint64().get(v) == simdjson::SUCCESS) return v;
    if (n.v.type() == element_type::INT64)
      fail(n, fmt::format("expected unsigned integer, got negative number {}",
                          n.v.get_int64().value_unsafe()));
    else
      fail(n, fmt::format("expected unsigned integer, got {}", describe(n.v)));
    return 0;
  }

  std::uint32_t u32(const Node& n) {
    std::uint64_t v = u64(n);
    if (v <= UINT32_MAX) return static_cast<std::uint32_t>(v);
    fail(n, fmt::format("{} does not fit in 32 bits", v));
    return 0;
  }

  std::int64_t i64(const Node& n) {
    std::int64_t v = 0;
    if (n.v.get_int64().get(v) == simdjson::SUCCESS) return v;
    fail(n, fmt::format("expected 64-bit integer, got {}", describe(n.v)));
    return 0;
  }

  bool boolean(const Node& n) {
    bool v = false;
    if (n.v.get_bool().get(v) == simdjson::SUCCESS) return v;
    fail(n, fmt::format("expected boolean, got {}", describe(n.v)));
    return false;
  }

  std::string str(const Node& n) { return std::string(view(n)); }

  // A string without copying it; valid while the parsed document lives.
  std::string_view view(const Node& n) {
    std::string_view v;
    if (n.v.get_string().get(v) == simdjson::SUCCESS) return v;
    fail(n, fmt::format("expected string, got {}", describe(n.v)));
    return {};
  }

  // The number of elements if `n` is an array, else 0 (for reserve()).
  static std::size_t size_hint(const Node& n) {
    simdjson::dom::array arr;
    return n.v.get_array().get(arr) == simdjson::SUCCESS ? arr.size() : 0;
  }

  // Calls f(element) for each array element.
  template <typename F>
  void each(const Node& arr, F&& f) {
    simdjson::dom::array a;
    if (arr.v.get_array().get(a) != simdjson::SUCCESS) {
      fail(arr, fmt::format("expected array, got {}", describe(arr.v)));
      return;
    }
    std::size_t i = 0;
    for (auto it = a.begin(); it != a.end() && ok(); ++it, ++i) f(Node{*it, &arr, nullptr, i});
  }

  // Calls f(name, value) for each object member, in file order.
  template <typename F>
  void each_member(const Node& obj, F&& f) {
    simdjson::dom::object o;
    if (obj.v.get_object().get(o) != simdjson::SUCCESS) {
      fail(obj, fmt::format("expected object, got {}", describe(obj.v)));
      return;
    }
    for (auto it = o.begin(); it != o.end() && ok(); ++it)
      f(std::string(it.key()), Node{it.value(), &obj, it.key_c_str()});
  }

 private:
  // The words nlohmann's type_name() used, so messages stay as they were.
  static const char* type_name(element v) {
    switch (v.type()) {
      case element_type::ARRAY:
        return "array";
      case element_type::OBJECT:
        return "object";
      case element_type::STRING:
        return "string";
      case element_type::BOOL:
        return "boolean";
      case element_type::NULL_VALUE:
        return "null";
      default:
        return "number";
    }
  }

  static std::string describe(element v) {
    switch (v.type()) {
      case element_type::INT64:
        return fmt::format("number {}", v.get_int64().value_unsafe());
      case element_type::UINT64:
        return fmt::format("number {}", v.get_uint64().value_unsafe());
      case element_type::DOUBLE:  // printed as the old reader did: 1.0, 1.5, 1e+30
        return fmt::format("number {}", nlohmann::json(v.get_double().value_unsafe()).dump());
      default:
        return type_name(v);
    }
  }

  std::string error_;
};

// Each distinct frame is stored once, and (format 3) each distinct stack:
// records refer to a stack by its index in `stacks`, a stack to its frames
// by their indexes in `frames`, both in order of first use so the output is
// deterministic. Keyed by pool ids, so writing hashes no text.
class StackTable {
 public:
  // `version`: 3 writes the stack table; 2 (bench/ feeds older builds) the
  // frame indexes in each record.
  explicit StackTable(int version) : table_(version >= 3) {}

  // What a record writes for its stack.
  ojson ref(const InternedStack& stack) {
    if (!table_) return frame_refs(stack);
    auto [it, added] = stack_index_.try_emplace(stack.id(), stacks_.size());
    if (added) stacks_.push_back(frame_refs(stack));
    return it->second;
  }
  bool has_table() const { return table_; }
  const std::vector<std::string>& frames() const { return frames_; }
  ojson take_stacks() { return std::move(stacks_); }

 private:
  ojson frame_refs(const Stack& stack) {
    ojson out = ojson::array();
    for (const auto& f : stack) {
      auto [it, added] = frame_index_.try_emplace(f.id(), frames_.size());
      if (added) frames_.push_back(f.str());
      out.push_back(it->second);
    }
    return out;
  }

  bool table_;
  std::unordered_map<std::uint32_t, std::uint64_t> frame_index_, stack_index_;
  std::vector<std::string> frames_;
  ojson stacks_ = ojson::array();
};

// How the records of one file name their stacks: frame indexes in each
// record (format 1 and 2), or an index into the stack table (format 3).
struct StackRefs {
  Stack frames;
  std::vector<InternedStack> stacks;
  bool table = false;
};

// What read_fast (profile_fast.cpp) read itself, and the rest of the
// document as JSON text for the checked reader.
struct FastRead {
  StackRefs refs;
  std::vector<StackSample> samples;
  std::string rest;
};

// The document at `padded_text` (readable SIMDJSON_PADDING bytes past its
// end) read without a DOM; nullopt wherever the checked reader might read
// it otherwise or find it wrong: that reader then reads it all.
std::optional<FastRead> read_fast(std::string_view padded_text);
void release_fast_parser();

// The frame table as written, before any stack refers to it.
inline Stack parse_frames(Checker& c, const Node& n) {
  Stack out;
  out.reserve(Checker::size_hint(n));
  c.each(n, [&](const Node& f) { out.emplace_back(c.view(f)); });
  return out;
}

// Frame indexes into `frames`. Every index is checked, but only the first
// kReadDepth are kept (io/depth_cut.h): parse_profile's bound_stack_depth
// cuts the rest and counts the stack.
inline InternedStack parse_frame_refs(Checker& c, const Node& n, const Stack& frames) {
  Stack out;
  out.reserve(std::min(Checker::size_hint(n), kReadDepth));
  c.each(n, [&](const Node& f) {
    std::uint64_t i = c.u64(f);
    if (i >= frames.size())
      c.fail(f,
             fmt::format("frame index {} out of range (frames has {} entries)", i, frames.size()));
    else if (out.size() < kReadDepth)
      out.push_back(frames[i]);
  });
  return out;
}

// Format 3's stack table, once `refs.frames` is read.
inline void parse_stack_table(Checker& c, const Node& n, StackRefs& refs) {
  refs.table = true;
  refs.stacks.reserve(Checker::size_hint(n));
  c.each(n, [&](const Node& s) { refs.stacks.push_back(parse_frame_refs(c, s, refs.frames)); });
}

// A record's stack, as its file's format names it.
inline InternedStack parse_stack(Checker& c, const Node& n, const StackRefs& refs) {
  if (!refs.table) return parse_frame_refs(c, n, refs.frames);
  std::uint64_t i = c.u64(n);
  if (i < refs.stacks.size()) return refs.stacks[i];
  if (c.ok())
    c.fail(n, fmt::format("stack index {} out of range (stacks has {} entries)", i,
                          refs.stacks.size()));
  return {};
}

// The optional v1 fields (profile_io_extra.cpp): read when present, written
// when not zero or empty.
void parse_op_extra(Checker& c, const Node& n, OpStats& o);
void parse_profile_extra(Checker& c, const Node& root, const StackRefs& refs, Profile& p);
void add_op_extra(const OpStats& o, ojson& out);
void add_profile_extra(const Profile& p, StackTable& table, ojson& doc);

}  // namespace fscost::profile_json
