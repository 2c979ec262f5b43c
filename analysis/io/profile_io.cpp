// Profile file reading and writing. The format is specified in docs/PROFILE.md.
#include "io/profile_io.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "io/profile_json.h"
#include "model/huge_pages.h"
#include "model/json_writer.h"

namespace fscost {

namespace {

using profile_json::Checker;
using profile_json::element;
using profile_json::Node;
using profile_json::ojson;
using profile_json::parse_stack;
using profile_json::StackRefs;
using profile_json::StackTable;

constexpr const char* kCorruptHint =
    "the file is damaged or was not written by `fscost record`; record it again";

// ---- parsing ----------------------------------------------------------------

Error not_a_profile(const std::string& origin) {
  return Error{fmt::format("{}: not an fscost profile (no \"format\": \"{}\" tag)", origin,
                           kProfileFormatTag),
               "pass a file written by `fscost record`"};
}

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
  if (auto f = c.find(n, "paused_ns")) m.paused_ns = c.u64(*f);
  if (auto f = c.find(n, "drain_ns")) m.drain_ns = c.u64(*f);
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
  profile_json::parse_op_extra(c, n, o);
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

StackSample parse_sample(Checker& c, const Node& n, const StackRefs& refs) {
  StackSample s;
  Node kind = c.field(n, "kind");
  std::string k = c.str(kind);
  if (c.ok() && !parse_sample_kind(k, s.kind))
    c.fail(kind, fmt::format("unknown sample kind '{}' (expected op, user, kernel or kthread)", k));
  s.name = c.str(c.field(n, "name"));
  s.frames = parse_stack(c, c.field(n, "stack"), refs);
  s.count = c.u64(c.field(n, "count"));
  return s;
}

// `fast`: the frames, stacks and samples, read by read_fast; the rest of
// the document is `root`.
Profile parse_body(Checker& c, const Node& root, std::uint64_t version,
                   profile_json::FastRead* fast) {
  Profile p;
  p.meta = parse_meta(c, c.field(root, "meta"));
  p.rusage = parse_rusage(c, c.field(root, "rusage"));
  p.ops = parse_ops(c, c.field(root, "ops"));
  StackRefs own;
  const StackRefs& refs = fast ? fast->refs : own;
  if (fast) {
    p.samples = std::move(fast->samples);
  } else {
    own.frames = profile_json::parse_frames(c, c.field(root, "frames"));
    if (version >= 3) profile_json::parse_stack_table(c, c.field(root, "stacks"), own);
    Node samples = c.field(root, "samples");
    p.samples.reserve(Checker::size_hint(samples));
    c.each(samples, [&](const Node& s) { p.samples.push_back(parse_sample(c, s, own)); });
  }
  p.samples_total = c.u64(c.field(root, "samples_total"));
  c.each_member(c.field(root, "drops"),
                [&](const std::string& name, const Node& v) { p.drops[name] = c.u64(v); });
  profile_json::parse_profile_extra(c, root, refs, p);
  return p;
}

// The format tag and version come first and get their own messages: a newer
// file may have changed everything else. Returns the version.
Result<std::uint64_t> check_header(element doc, const std::string& origin) {
  std::optional<element> tag = profile_json::member(doc, "format");
  std::string_view name;
  if (!tag || tag->get_string().get(name) != simdjson::SUCCESS || name != kProfileFormatTag)
    return not_a_profile(origin);
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
  return version;
}

Result<Profile> parse_document(element doc, const std::string& origin,
                               profile_json::FastRead* fast = nullptr) {
  auto version = check_header(doc, origin);
  if (!version) return version.error();
  Checker c;
  Profile p = parse_body(c, Node{doc}, version.value(), fast);
  if (!c.ok()) return Error{fmt::format("{}: {}", origin, c.error()), kCorruptHint};
  return p;
}

// Why simdjson refused JSON that nlohmann accepts.
std::string refused(simdjson::error_code err) {
  switch (err) {
    case simdjson::NUMBER_ERROR:
      return "a number outside the 64-bit integer range";
    case simdjson::DEPTH_ERROR:
      return fmt::format("nested deeper than {} levels", simdjson::DEFAULT_MAX_DEPTH);
    case simdjson::CAPACITY:
      return "larger than 4 GB";
    default:
      return simdjson::error_message(err);
  }
}

// Re-reads JSON that simdjson refused with nlohmann's SAX parser, keeping
// no values, only the path to the current one ("samples[2].count", as
// Checker names fields), so that an error can say where it is.
class WhereSax {
 public:
  using json = nlohmann::json;
  // What stopped the parse: the first byte of bad JSON, or the path and
  // text of a number no profile field can hold.
  std::optional<std::size_t> bad_byte;
  std::optional<std::string> bad_number_path, bad_number;
  bool integer = false;  // bad_number is an integer (beyond 64 bits), not a float
  // Nested deeper than simdjson reads: the re-read stops there, so a file
  // of ten million '[' costs no level each.
  bool too_deep = false;

  bool null() { return value(); }
  bool boolean(bool) { return value(); }
  bool number_integer(json::number_integer_t) { return value(); }
  bool number_unsigned(json::number_unsigned_t) { return value(); }
  bool number_float(json::number_float_t, const json::string_t& text) {
    // nlohmann reads an integer beyond 64 bits as a float; simdjson refuses it.
    if (text.find_first_of(".eE") != json::string_t::npos) return value();
    integer = true;
    bad_number_path = path();
    bad_number = text;
    return false;
  }
  bool string(json::string_t&) { return value(); }
  bool binary(json::binary_t&) { return value(); }
  bool start_object(std::size_t) { return open(false); }
  bool key(json::string_t& k) {
    levels_.back().key = k;
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(true); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t byte, const std::string& token,
                   const nlohmann::detail::exception& e) {
    if (e.id == 406) {  // out_of_range.406: a number beyond a double's range
      integer = token.find_first_of(".eE") == std::string::npos;
      bad_number_path = path();
      bad_number = token;
    } else {
      // nlohmann counts bytes from 1, and counts end of input as a byte.
      bad_byte = byte > 0 ? byte - 1 : 0;
    }
    return false;
  }

 private:
  struct Level {
    bool array;
    std::size_t index = 0;
    std::string key;
  };
  std::vector<Level> levels_;

  std::string path() const {
    std::string p;
    for (const auto& l : levels_) {
      if (l.array)
        p += fmt::format("[{}]", l.index);
      else
        p += p.empty() ? l.key : "." + l.key;
    }
    return p.empty() ? "top level" : p;
  }
  bool value() {
    if (!levels_.empty() && levels_.back().array) ++levels_.back().index;
    return true;
  }
  bool open(bool array) {
    if (levels_.size() >= simdjson::DEFAULT_MAX_DEPTH) {
      too_deep = true;
      return false;
    }
    levels_.push_back({array});
    return true;
  }
  bool close() {
    levels_.pop_back();
    return value();
  }
};

// A number as an error message shows it: a long one cut, with its length.
std::string shown_number(const std::string& text) {
  constexpr std::size_t kShown = 24;
  if (text.size() <= kShown) return text;
  return fmt::format("{}… ({} characters)", text.substr(0, kShown), text.size());
}

// simdjson says what is wrong but not where. Only on this error path,
// nlohmann re-reads the text, keeping no values, to find the byte or field.
Error json_error(std::string_view text, const std::string& origin, simdjson::error_code err) {
  WhereSax where;
  try {
    nlohmann::json::sax_parse(text, &where);
  } catch (const nlohmann::json::exception& e) {  // not expected: the handler takes every error
    return Error{fmt::format("{}: {}", origin, e.what()), kCorruptHint};
  }
  bool object = text[text.find_first_not_of(" \t\r\n")] == '{';
  if (where.too_deep && !object) return not_a_profile(origin);
  if (where.too_deep)
    return Error{fmt::format("{}: cannot read: nested deeper than {} levels", origin,
                             simdjson::DEFAULT_MAX_DEPTH),
                 kCorruptHint};
  if (where.bad_byte)
    return Error{fmt::format("{}: truncated or corrupt JSON at byte {}{}", origin, *where.bad_byte,
                             *where.bad_byte >= text.size() ? " (end of file)" : ""),
                 kCorruptHint};
  // Valid JSON that simdjson refuses. No profile field nests deep or holds
  // a number beyond 64 bits, so such a file is damaged or not a profile.
  if (!object) return not_a_profile(origin);
  if (where.bad_number)
    return Error{fmt::format("{}: {}: {} {} {}", origin, *where.bad_number_path,
                             where.integer ? "integer" : "number", shown_number(*where.bad_number),
                             where.integer ? "does not fit in 64 bits" : "is out of range"),
                 kCorruptHint};
  return Error{fmt::format("{}: cannot read: {}", origin, refused(err)), kCorruptHint};
}

// ---- serializing ------------------------------------------------------------

ojson meta_json(const Metadata& m) {
  ojson out = {{"fscost_version", m.fscost_version},
               {"kernel_release", m.kernel_release},
               {"hostname", m.hostname},
               {"cpus", m.cpus},
               {"target", m.target},
               {"command", m.command},
               {"start_unix_ns", m.start_unix_ns},
               {"duration_ns", m.duration_ns},
               {"freq_hz", m.freq_hz},
               {"probes", m.probes}};
  if (m.paused_ns) out["paused_ns"] = m.paused_ns;
  if (m.drain_ns) out["drain_ns"] = m.drain_ns;
  return out;
}

ojson rusage_json(const Rusage& r) {
  return {{"valid", r.valid}, {"user_ns", r.user_ns}, {"sys_ns", r.sys_ns}, {"wall_ns", r.wall_ns}};
}

ojson op_json(const OpStats& o) {
  ojson out = {{"name", o.name},       {"count", o.count},       {"errors", o.errors},
               {"wall_ns", o.wall_ns}, {"oncpu_ns", o.oncpu_ns}, {"latency_log2", o.latency_log2}};
  profile_json::add_op_extra(o, out);
  return out;
}

ojson sample_json(const StackSample& s, StackTable& table) {
  return {{"kind", to_string(s.kind)},
          {"name", s.name},
          {"stack", table.ref(s.frames)},
          {"count", s.count}};
}

}  // namespace

namespace {

// Kept for the next file: `fscost diff` reads many profiles in a row, and
// faulting in fresh buffers (about 14× the file) costs a third of a load.
// parse() copies the text into its padded buffer (simdjson reads 64-byte blocks).
simdjson::dom::parser& thread_parser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

}  // namespace

void release_profile_parser() {
  thread_parser() = simdjson::dom::parser();
  profile_json::release_fast_parser();
}

namespace {

// Room for a document of `len` bytes, its tape and index asked for in huge
// pages (model/huge_pages.h): they are most of a load's memory, 4-5× the
// file. A failure is left to parse(), which meets it again and says so.
// What parse() would allocate, made first (members simdjson keeps public
// "for internal use"); past its largest document, left to parse() to refuse.
void make_room(simdjson::dom::parser& parser, std::size_t len) {
  if (len > parser.max_capacity()) return;
  if (len > parser.capacity() && parser.allocate(len) == simdjson::SUCCESS)
    advise_huge_pages(parser.implementation->structural_indexes.get(), len * sizeof(std::uint32_t));
  if (len > parser.doc.capacity() && parser.doc.allocate(len) == simdjson::SUCCESS)
    advise_huge_pages(parser.doc.tape.get(), len * sizeof(std::uint64_t));
}

// The checked reader: the whole document as a DOM, every field checked and
// every error named by its path.
Result<Profile> parse_checked(std::string_view padded_text, const std::string& origin) {
  simdjson::dom::parser& parser = thread_parser();
  make_room(parser, padded_text.size());
  element doc;
  if (auto err = parser.parse(padded_text.data(), padded_text.size(), false).get(doc))
    return json_error(padded_text, origin, err);
  return parse_document(doc, origin);
}

// The bulk read without a DOM (profile_fast.cpp), the rest by the checked
// reader; nullopt if either finds anything amiss.
std::optional<Profile> parse_fast(std::string_view padded_text, const std::string& origin) {
  auto fast = profile_json::read_fast(padded_text);
  if (!fast) return std::nullopt;
  element doc;
  if (thread_parser().parse(fast->rest).get(doc) != simdjson::SUCCESS) return std::nullopt;
  auto p = parse_document(doc, origin, &*fast);
  if (!p) return std::nullopt;
  return std::move(p.value());
}

// `padded`: `text` may be read SIMDJSON_PADDING bytes past its end, so it
// need not be copied.
Result<Profile> parse_text(std::string_view text, bool padded, const std::string& origin,
                           bool fast = true) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return Error{fmt::format("{}: empty file, not an fscost profile", origin), kCorruptHint};
  std::string copy;
  if (!padded) {
    copy.reserve(text.size() + simdjson::SIMDJSON_PADDING);
    copy.assign(text);
    text = copy;
  }
  Result<Profile> p = Error{};
  if (auto read = fast ? parse_fast(text, origin) : std::nullopt)
    p = std::move(*read);
  else
    p = parse_checked(text, origin);
  if (p) bound_stack_depth(p.value());
  return p;
}

}  // namespace

Result<Profile> parse_profile(std::string_view text, const std::string& origin) {
  return parse_text(text, false, origin);
}

Result<Profile> parse_profile_checked(std::string_view text, const std::string& origin) {
  return parse_text(text, false, origin, false);
}

Result<Profile> read_profile(const std::string& path) {
  static_assert(kReadSlack >= simdjson::SIMDJSON_PADDING);
  auto text = read_whole_file(path, "profile");
  if (!text) return text.error();
  const std::string& t = text.value();
  return parse_text(t, t.capacity() - t.size() >= simdjson::SIMDJSON_PADDING, path);
}

std::string serialize_profile(const Profile& p, int version) {
  if (version != 2 && version != kProfileFormatVersion)
    throw std::invalid_argument(fmt::format("cannot write profile format version {}", version));
  StackTable table(version);
  ojson samples = ojson::array();
  for (const auto& s : p.samples) samples.push_back(sample_json(s, table));
  ojson ops = ojson::array();
  for (const auto& o : p.ops) ops.push_back(op_json(o));
  // Interned after the samples, so sample frame and stack indexes do not
  // depend on whether contention data was recorded.
  ojson extra = ojson::object();
  profile_json::add_profile_extra(p, table, extra);
  ojson doc = {{"format", kProfileFormatTag},
               {"version", version},
               {"meta", meta_json(p.meta)},
               {"rusage", rusage_json(p.rusage)},
               {"ops", std::move(ops)},
               {"frames", table.frames()}};
  if (table.has_table()) doc["stacks"] = table.take_stacks();
  doc["samples"] = std::move(samples);
  doc["samples_total"] = p.samples_total;
  doc["drops"] = p.drops;
  doc.update(extra);
  return dump_json(doc) + "\n";
}

Status write_profile_atomic(const Profile& p, const std::string& path) {
  return write_file_atomic(serialize_profile(p), path);
}

}  // namespace fscost
