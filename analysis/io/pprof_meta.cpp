// The profile's metadata as pprof comments, and back (io/pprof.h).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "io/pprof.h"
#include "io/pprof_parts.h"

namespace fscost::pprof {

namespace {

constexpr std::string_view kPrefix = "fscost.";

std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      out += s[i + 1] == 'n' ? '\n' : s[i + 1];
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

// "a=1 b=2" for a counter map; names hold no ' ' or '='.
std::string counters(const std::map<std::string, std::uint64_t>& m, char sep = ' ',
                     char eq = '=') {
  std::string out;
  for (const auto& [k, v] : m) {
    if (!out.empty()) out += sep;
    fmt::format_to(std::back_inserter(out), "{}{}{}", k, eq, v);
  }
  return out;
}

bool number(std::string_view s, std::uint64_t& out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && end == s.data() + s.size();
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    auto at = s.find(sep);
    if (at != 0) out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) break;
    s.remove_prefix(at + 1);
  }
  return out;
}

// "k=v k=v" (or "k:v,k:v") into a counter map; false on a bad pair.
bool parse_counters(std::string_view s, char sep, char eq,
                    std::map<std::string, std::uint64_t>& out) {
  for (auto pair : split(s, sep)) {
    auto at = pair.rfind(eq);
    std::uint64_t v = 0;
    if (at == std::string_view::npos || !number(pair.substr(at + 1), v)) return false;
    out[std::string(pair.substr(0, at))] = v;
  }
  return true;
}

std::string op_comment(const OpStats& o) {
  std::string lat;
  for (auto n : o.latency_log2) fmt::format_to(std::back_inserter(lat), "{}{}", lat.empty() ? "" : ",", n);
  return fmt::format(
      "count={} errors={} wall_ns={} oncpu_ns={} offcpu_ns={} trans_min={} trans_max={} "
      "latency_log2={} fs_events={}",
      o.count, o.errors, o.wall_ns, o.oncpu_ns, o.offcpu_ns, o.trans_min, o.trans_max,
      lat.empty() ? "-" : lat, o.fs_events.empty() ? "-" : counters(o.fs_events, ',', ':'));
}

bool parse_op(std::string name, std::string_view s, OpStats& o) {
  o.name = std::move(name);
  std::map<std::string, std::string_view> fields;
  for (auto kv : split(s, ' ')) {
    auto at = kv.find('=');
    if (at == std::string_view::npos) return false;
    fields[std::string(kv.substr(0, at))] = kv.substr(at + 1);
  }
  for (auto [key, field] : std::initializer_list<std::pair<const char*, std::uint64_t*>>{
           {"count", &o.count},
           {"errors", &o.errors},
           {"wall_ns", &o.wall_ns},
           {"oncpu_ns", &o.oncpu_ns},
           {"offcpu_ns", &o.offcpu_ns},
           {"trans_min", &o.trans_min},
           {"trans_max", &o.trans_max}})
    if (!fields.contains(key) || !number(fields[key], *field)) return false;
  o.latency_log2.assign(kLatencyBuckets, 0);
  if (fields["latency_log2"] != "-") {
    auto buckets = split(fields["latency_log2"], ',');
    if (buckets.size() != kLatencyBuckets) return false;
    for (std::size_t i = 0; i < kLatencyBuckets; ++i)
      if (!number(buckets[i], o.latency_log2[i])) return false;
  }
  // fscost before profile format 2 wrote them as xfs=.
  std::string_view events = fields.contains("fs_events") ? fields["fs_events"] : fields["xfs"];
  return events == "-" || parse_counters(events, ',', ':', o.fs_events);
}

// A value read back into the field it came from; false when it is bad (the
// import then fails, so a field half set is never seen).
bool parse(const std::string& v, std::string& out) {
  out = v;
  return true;
}
bool parse(const std::string& v, std::uint64_t& out) { return number(v, out); }
bool parse(const std::string& v, std::uint32_t& out) {
  std::uint64_t n = 0;
  if (!number(v, n) || n > UINT32_MAX) return false;
  out = static_cast<std::uint32_t>(n);
  return true;
}
bool parse(const std::string& v, std::int64_t& out) {  // written from one >= 0
  std::uint64_t n = 0;
  if (!number(v, n) || n > INT64_MAX) return false;
  out = static_cast<std::int64_t>(n);
  return true;
}
bool parse(const std::string& v, std::map<std::string, std::uint64_t>& out) {
  return parse_counters(v, ' ', '=', out);
}

template <auto Member>
bool meta(const std::string& v, Profile& p) {
  return parse(v, p.meta.*Member);
}
template <auto Member>
bool field(const std::string& v, Profile& p) {
  return parse(v, p.*Member);
}

bool probes(const std::string& v, Profile& p) {
  p.meta.probes.clear();
  for (auto s : split(v, ';')) {
    while (s.starts_with(' ')) s.remove_prefix(1);
    if (!s.empty()) p.meta.probes.emplace_back(s);
  }
  return true;
}

bool rusage(const std::string& v, Profile& p) {
  std::map<std::string, std::uint64_t> r;
  bool ok = parse_counters(v, ' ', '=', r) && r.size() == 3;
  p.rusage = {ok, r["user_ns"], r["sys_ns"], r["wall_ns"]};
  return ok;
}

// Where each KEY of a "fscost.KEY: VALUE" comment goes, in the order
// metadata_comments() writes them; the families setup.NAME and op.NAME are
// apply_metadata_comment's own.
struct Key {
  std::string_view name;
  bool (*set)(const std::string& value, Profile& p);
};
constexpr Key kKeys[] = {
    {"version", meta<&Metadata::fscost_version>},
    {"hostname", meta<&Metadata::hostname>},
    {"kernel", meta<&Metadata::kernel_release>},
    {"cpus", meta<&Metadata::cpus>},
    {"cpu_model", [](const std::string& v, Profile& p) { return parse(v, p.setup["cpu_model"]); }},
    {"target", meta<&Metadata::target>},
    {"command", meta<&Metadata::command>},
    {"start_unix_ns", meta<&Metadata::start_unix_ns>},
    {"duration_ns", meta<&Metadata::duration_ns>},
    {"paused_ns", meta<&Metadata::paused_ns>},
    {"drain_ns", meta<&Metadata::drain_ns>},
    {"freq_hz", meta<&Metadata::freq_hz>},
    {"samples_total", field<&Profile::samples_total>},
    {"probes", probes},
    {"rusage", rusage},
    {"drops", field<&Profile::drops>},
    {"background_fs_events", field<&Profile::background_fs_events>},
    {"device_write_bytes", field<&Profile::device_write_bytes>},
    {"fs_write_bytes", field<&Profile::fs_write_bytes>},
    {"fs_events_other_fs", field<&Profile::fs_events_other_fs>},
    // Their names before profile format 2, for pprof files written then.
    {"background_xfs", field<&Profile::background_fs_events>},
    {"xfs_other_fs", field<&Profile::fs_events_other_fs>},
};

}  // namespace

std::vector<std::string> metadata_comments(const Profile& p) {
  const Metadata& m = p.meta;
  std::vector<std::string> out;
  auto add = [&](std::string_view key, const auto& value) {
    out.push_back(fmt::format("{}{}: {}", kPrefix, key, escape(fmt::format("{}", value))));
  };
  add("version", m.fscost_version);
  add("hostname", m.hostname);
  add("kernel", m.kernel_release);
  add("cpus", m.cpus);
  if (auto it = p.setup.find("cpu_model"); it != p.setup.end()) add("cpu_model", it->second);
  add("target", m.target);
  add("command", m.command);
  add("start_unix_ns", m.start_unix_ns);
  add("duration_ns", m.duration_ns);
  if (m.paused_ns) add("paused_ns", m.paused_ns);
  if (m.drain_ns) add("drain_ns", m.drain_ns);
  add("freq_hz", m.freq_hz);
  add("samples_total", p.samples_total);
  add("probes", fmt::format("{}", fmt::join(m.probes, "; ")));
  if (p.rusage.valid)
    add("rusage", fmt::format("user_ns={} sys_ns={} wall_ns={}", p.rusage.user_ns, p.rusage.sys_ns,
                              p.rusage.wall_ns));
  for (const auto& [k, v] : p.setup)
    if (k != "cpu_model") add("setup." + k, v);
  for (const auto& o : p.ops) add("op." + o.name, op_comment(o));
  add("drops", counters(p.drops));
  if (!p.background_fs_events.empty())
    add("background_fs_events", counters(p.background_fs_events));
  if (!p.device_write_bytes.empty()) add("device_write_bytes", counters(p.device_write_bytes));
  if (!p.fs_write_bytes.empty()) add("fs_write_bytes", counters(p.fs_write_bytes));
  if (p.fs_events_other_fs) add("fs_events_other_fs", p.fs_events_other_fs);
  return out;
}

bool is_metadata_comment(std::string_view c) { return c.starts_with(kPrefix); }

Status apply_metadata_comment(std::string_view c, Profile& p) {
  auto colon = c.find(": ");
  if (!c.starts_with(kPrefix) || colon == std::string_view::npos)
    return Error{fmt::format("comment '{}' is not 'fscost.KEY: VALUE'", c), ""};
  std::string key(c.substr(kPrefix.size(), colon - kPrefix.size()));
  std::string value = unescape(c.substr(colon + 2));
  bool ok = true;
  if (auto k = std::ranges::find(kKeys, key, &Key::name); k != std::end(kKeys)) {
    ok = k->set(value, p);
  } else if (key.starts_with("setup.")) {
    p.setup[key.substr(6)] = value;
  } else if (key.starts_with("op.")) {
    OpStats o;
    ok = parse_op(key.substr(3), value, o);
    // One entry per operation, as the profile file holds them (io/profile_io.cpp).
    for (const auto& other : p.ops)
      if (ok && other.name == o.name)
        return Error{fmt::format("comment 'fscost.{}' appears twice", key), ""};
    if (ok) p.ops.push_back(std::move(o));
  }
  // Keys a later fscost adds are kept out, not refused.
  if (!ok) return Error{fmt::format("comment 'fscost.{}' has a bad value '{}'", key, value), ""};
  return std::monostate{};
}

}  // namespace fscost::pprof
