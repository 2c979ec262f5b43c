// Profile file reading and writing. The format is specified in docs/PROFILE.md.
#include "profile_io.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <unordered_map>

namespace fscost {

namespace {

using nlohmann::json;

constexpr const char* kCorruptHint =
    "the file is damaged or was not written by `fscost record`; record it again";

// ---- checked access ---------------------------------------------------------

// A value inside the document and how we got there. The JSON path is only
// spelled out when something is wrong, so large profiles parse cheaply.
struct Node {
  const json& v;
  const Node* parent = nullptr;
  const char* key = nullptr;  // object member name; nullptr for array elements
  std::size_t index = 0;
};

const json kNull;

std::string path_of(const Node& n) {
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

// ---- parsing ----------------------------------------------------------------

Metadata parse_meta(Checker& c, const Node& n) {
  Metadata m;
  m.fscost_version = c.str(c.field(n, "fscost_version"));
  m.kernel_release = c.str(c.field(n, "kernel_release"));
  m.hostname = c.str(c.field(n, "hostname"));
  m.cpus = c.u32(c.field(n, "cpus"));
  m.target = c.str(c.field(n, "target"));
  m.command = c.str(c.field(n, "command"));
  m.start_unix_ns = c.i64(c.field(n, "start_unix_ns"));
  m.duration_ns = c.u64(c.field(n, "duration_ns"));
  m.freq_hz = c.u32(c.field(n, "freq_hz"));
  c.each(c.field(n, "probes"), [&](const Node& p) { m.probes.push_back(c.str(p)); });
  return m;
}

Rusage parse_rusage(Checker& c, const Node& n) {
  Rusage r;
  r.valid = c.boolean(c.field(n, "valid"));
  r.user_ns = c.u64(c.field(n, "user_ns"));
  r.sys_ns = c.u64(c.field(n, "sys_ns"));
  r.wall_ns = c.u64(c.field(n, "wall_ns"));
  return r;
}

OpStats parse_op(Checker& c, const Node& n) {
  OpStats o;
  o.name = c.str(c.field(n, "name"));
  o.count = c.u64(c.field(n, "count"));
  o.errors = c.u64(c.field(n, "errors"));
  o.wall_ns = c.u64(c.field(n, "wall_ns"));
  o.oncpu_ns = c.u64(c.field(n, "oncpu_ns"));
  Node lat = c.field(n, "latency_log2");
  c.each(lat, [&](const Node& b) { o.latency_log2.push_back(c.u64(b)); });
  if (o.latency_log2.size() != kLatencyBuckets)
    c.fail(lat, fmt::format("expected {} buckets, got {}", kLatencyBuckets, o.latency_log2.size()));
  return o;
}

std::vector<OpStats> parse_ops(Checker& c, const Node& n) {
  std::vector<OpStats> ops;
  std::set<std::string> seen;
  c.each(n, [&](const Node& e) {
    ops.push_back(parse_op(c, e));
    if (!seen.insert(ops.back().name).second)
      c.fail(e, fmt::format("operation '{}' appears twice", ops.back().name));
  });
  return ops;
}

StackSample parse_sample(Checker& c, const Node& n, const std::vector<std::string>& frames) {
  StackSample s;
  Node kind = c.field(n, "kind");
  std::string k = c.str(kind);
  if (c.ok() && !parse_sample_kind(k, s.kind))
    c.fail(kind, fmt::format("unknown sample kind '{}' (expected op, user, kernel or kthread)", k));
  s.name = c.str(c.field(n, "name"));
  c.each(c.field(n, "stack"), [&](const Node& f) {
    std::uint64_t i = c.u64(f);
    if (i < frames.size())
      s.frames.push_back(frames[i]);
    else
      c.fail(f,
             fmt::format("frame index {} out of range (frames has {} entries)", i, frames.size()));
  });
  s.count = c.u64(c.field(n, "count"));
  return s;
}

Profile parse_body(Checker& c, const Node& root) {
  Profile p;
  p.meta = parse_meta(c, c.field(root, "meta"));
  p.rusage = parse_rusage(c, c.field(root, "rusage"));
  p.ops = parse_ops(c, c.field(root, "ops"));
  std::vector<std::string> frames;
  c.each(c.field(root, "frames"), [&](const Node& f) { frames.push_back(c.str(f)); });
  c.each(c.field(root, "samples"),
         [&](const Node& s) { p.samples.push_back(parse_sample(c, s, frames)); });
  p.samples_total = c.u64(c.field(root, "samples_total"));
  c.each_member(c.field(root, "drops"),
                [&](const std::string& name, const Node& v) { p.drops[name] = c.u64(v); });
  return p;
}

// The format tag and version come first and get their own messages: a newer
// file may have changed everything else.
std::optional<Error> check_header(const json& doc, const std::string& origin) {
  auto tag = doc.is_object() ? doc.find("format") : doc.end();
  if (!doc.is_object() || tag == doc.end() || !tag->is_string() ||
      tag->get_ref<const std::string&>() != kProfileFormatTag)
    return Error{fmt::format("{}: not an fscost profile (no \"format\": \"{}\" tag)", origin,
                             kProfileFormatTag),
                 "pass a file written by `fscost record`"};
  Checker c;
  Node root{doc};
  std::uint64_t version = c.u64(c.field(root, "version"));
  if (!c.ok()) return Error{fmt::format("{}: {}", origin, c.error()), kCorruptHint};
  if (version > static_cast<std::uint64_t>(kProfileFormatVersion))
    return Error{
        fmt::format("{}: written by a newer fscost (format version {}, this one reads ≤ {})",
                    origin, version, kProfileFormatVersion),
        "upgrade fscost to read this profile"};
  if (version == 0) return Error{fmt::format("{}: invalid format version 0", origin), kCorruptHint};
  return std::nullopt;
}

Result<Profile> parse_document(const json& doc, const std::string& origin) {
  if (auto err = check_header(doc, origin)) return *err;
  Checker c;
  Profile p = parse_body(c, Node{doc});
  if (!c.ok()) return Error{fmt::format("{}: {}", origin, c.error()), kCorruptHint};
  return p;
}

// ---- serializing ------------------------------------------------------------

using ojson = nlohmann::ordered_json;

ojson meta_json(const Metadata& m) {
  return {{"fscost_version", m.fscost_version},
          {"kernel_release", m.kernel_release},
          {"hostname", m.hostname},
          {"cpus", m.cpus},
          {"target", m.target},
          {"command", m.command},
          {"start_unix_ns", m.start_unix_ns},
          {"duration_ns", m.duration_ns},
          {"freq_hz", m.freq_hz},
          {"probes", m.probes}};
}

ojson rusage_json(const Rusage& r) {
  return {{"valid", r.valid}, {"user_ns", r.user_ns}, {"sys_ns", r.sys_ns}, {"wall_ns", r.wall_ns}};
}

ojson op_json(const OpStats& o) {
  return {{"name", o.name},       {"count", o.count},       {"errors", o.errors},
          {"wall_ns", o.wall_ns}, {"oncpu_ns", o.oncpu_ns}, {"latency_log2", o.latency_log2}};
}

// Each distinct frame is stored once; samples refer to it by index, in
// order of first use so the output is deterministic.
class FrameTable {
 public:
  std::uint64_t intern(const std::string& frame) {
    auto [it, added] = index_.try_emplace(frame, frames_.size());
    if (added) frames_.push_back(frame);
    return it->second;
  }
  const std::vector<std::string>& frames() const { return frames_; }

 private:
  std::unordered_map<std::string, std::uint64_t> index_;
  std::vector<std::string> frames_;
};

ojson sample_json(const StackSample& s, FrameTable& table) {
  ojson stack = ojson::array();
  for (const auto& f : s.frames) stack.push_back(table.intern(f));
  return {{"kind", to_string(s.kind)},
          {"name", s.name},
          {"stack", std::move(stack)},
          {"count", s.count}};
}

}  // namespace

Result<Profile> parse_profile(std::string_view text, const std::string& origin) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return Error{fmt::format("{}: empty file, not an fscost profile", origin), kCorruptHint};
  // The one place nlohmann may throw; everything after uses checked access.
  try {
    json doc = json::parse(text);
    return parse_document(doc, origin);
  } catch (const json::parse_error& e) {
    // nlohmann counts bytes from 1, and counts end of input as a byte.
    std::size_t at = e.byte > 0 ? e.byte - 1 : 0;
    return Error{fmt::format("{}: truncated or corrupt JSON at byte {}{}", origin, at,
                             at >= text.size() ? " (end of file)" : ""),
                 kCorruptHint};
  } catch (const json::exception& e) {
    return Error{fmt::format("{}: {}", origin, e.what()), kCorruptHint};
  }
}

Result<Profile> read_profile(const std::string& path) {
  auto text = read_whole_file(path, "profile");
  if (!text) return text.error();
  return parse_profile(text.value(), path);
}

std::string serialize_profile(const Profile& p) {
  FrameTable table;
  ojson samples = ojson::array();
  for (const auto& s : p.samples) samples.push_back(sample_json(s, table));
  ojson ops = ojson::array();
  for (const auto& o : p.ops) ops.push_back(op_json(o));
  ojson doc = {{"format", kProfileFormatTag},
               {"version", kProfileFormatVersion},
               {"meta", meta_json(p.meta)},
               {"rusage", rusage_json(p.rusage)},
               {"ops", std::move(ops)},
               {"frames", table.frames()},
               {"samples", std::move(samples)},
               {"samples_total", p.samples_total},
               {"drops", p.drops}};
  return doc.dump(-1, ' ', false, ojson::error_handler_t::replace) + "\n";
}

Status write_profile_atomic(const Profile& p, const std::string& path) {
  return write_file_atomic(serialize_profile(p), path);
}

}  // namespace fscost
