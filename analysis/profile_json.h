// Internal to profile_io*.cpp: checked JSON access and the frame table.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profile.h"

namespace fscost::profile_json {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

// A value inside the document and how we got there. The JSON path is only
// spelled out when something is wrong, so large profiles parse cheaply.
struct Node {
  const json& v;
  const Node* parent = nullptr;
  const char* key = nullptr;  // object member name; nullptr for array elements
  std::size_t index = 0;
};

inline const json kNull;

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
      fail(obj, fmt::format("expected object, got {}", obj.v.type_name()));
      return {kNull, &obj, key};
    }
    auto it = obj.v.find(key);
    if (it != obj.v.end()) return {*it, &obj, key};
    Node missing{kNull, &obj, key};
    fail(missing, "missing required field");
    return missing;
  }

  // An optional member: nullopt if `obj` has no `key` (or is not an object,
  // which is an error).
  std::optional<Node> find(const Node& obj, const char* key) {
    if (!obj.v.is_object()) {
      fail(obj, fmt::format("expected object, got {}", obj.v.type_name()));
      return std::nullopt;
    }
    auto it = obj.v.find(key);
    if (it == obj.v.end()) return std::nullopt;
    return Node{*it, &obj, key};
  }

  std::uint64_t u64(const Node& n) {
    if (n.v.is_number_unsigned()) return n.v.get<std::uint64_t>();
    if (n.v.is_number_integer())
      fail(n, fmt::format("expected unsigned integer, got negative number {}",
                          n.v.get<std::int64_t>()));
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
    if (n.v.is_number_unsigned() && n.v.get<std::uint64_t>() <= INT64_MAX)
      return n.v.get<std::int64_t>();
    if (n.v.is_number_integer() && !n.v.is_number_unsigned()) return n.v.get<std::int64_t>();
    fail(n, fmt::format("expected 64-bit integer, got {}", describe(n.v)));
    return 0;
  }

  bool boolean(const Node& n) {
    if (n.v.is_boolean()) return n.v.get<bool>();
    fail(n, fmt::format("expected boolean, got {}", describe(n.v)));
    return false;
  }

  std::string str(const Node& n) {
    if (n.v.is_string()) return n.v.get<std::string>();
    fail(n, fmt::format("expected string, got {}", describe(n.v)));
    return {};
  }

  // Calls f(element) for each array element.
  template <typename F>
  void each(const Node& arr, F&& f) {
    if (!arr.v.is_array()) {
      fail(arr, fmt::format("expected array, got {}", describe(arr.v)));
      return;
    }
    for (std::size_t i = 0; i < arr.v.size() && ok(); ++i) f(Node{arr.v[i], &arr, nullptr, i});
  }

  // Calls f(name, value) for each object member.
  template <typename F>
  void each_member(const Node& obj, F&& f) {
    if (!obj.v.is_object()) {
      fail(obj, fmt::format("expected object, got {}", describe(obj.v)));
      return;
    }
    for (auto it = obj.v.begin(); it != obj.v.end() && ok(); ++it)
      f(it.key(), Node{it.value(), &obj, it.key().c_str()});
  }

 private:
  static std::string describe(const json& v) {
    if (v.is_null()) return "null";
    if (v.is_number()) return fmt::format("number {}", v.dump());
    return v.type_name();
  }

  std::string error_;
};

// Each distinct frame is stored once; samples refer to it by index, in
// order of first use so the output is deterministic. Keyed by the Frame's
// pool id, so writing hashes no text.
class FrameTable {
 public:
  std::uint64_t intern(const Frame& frame) {
    auto [it, added] = index_.try_emplace(frame.id(), frames_.size());
    if (added) frames_.push_back(frame.str());
    return it->second;
  }
  const std::vector<std::string>& frames() const { return frames_; }

 private:
  std::unordered_map<std::uint32_t, std::uint64_t> index_;
  std::vector<std::string> frames_;
};

// A stack stored as indexes into the file's frame table, interned once per
// file (parse_frame_table), so building a stack copies pointers.
inline Stack parse_stack(Checker& c, const Node& n, const std::vector<Frame>& frames) {
  Stack out;
  if (n.v.is_array()) out.reserve(n.v.size());
  c.each(n, [&](const Node& f) {
    std::uint64_t i = c.u64(f);
    if (i < frames.size())
      out.push_back(frames[i]);
    else
      c.fail(f,
             fmt::format("frame index {} out of range (frames has {} entries)", i, frames.size()));
  });
  return out;
}

inline ojson stack_json(const Stack& stack, FrameTable& table) {
  ojson out = ojson::array();
  for (const auto& f : stack) out.push_back(table.intern(f));
  return out;
}

// The optional v1 fields (profile_io_extra.cpp): read when present, written
// when not zero or empty.
void parse_op_extra(Checker& c, const Node& n, OpStats& o);
void parse_profile_extra(Checker& c, const Node& root, const std::vector<Frame>& frames,
                         Profile& p);
void add_op_extra(const OpStats& o, ojson& out);
void add_profile_extra(const Profile& p, FrameTable& table, ojson& doc);

}  // namespace fscost::profile_json
