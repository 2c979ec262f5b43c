// The optional profile fields: off-CPU stacks, lock contention and filesystem
// event counters (docs/PROFILE.md, "Optional fields"). Absent means zero or empty,
// so profiles written before these existed still read; present fields are
// checked as strictly as the required ones.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "io/profile_json.h"
#include "model/wait_class.h"

namespace fscost::profile_json {

namespace {

using Counters = std::map<std::string, std::uint64_t>;

void parse_counters(Checker& c, const Node& n, Counters& out) {
  c.each_member(n, [&](const std::string& name, const Node& v) { out[name] = c.u64(v); });
}

// Format version 1 and older name the filesystem event fields after XFS
// ("xfs", "background_xfs", ...): read the new key, else the old one.
std::optional<Node> find_fs_events(Checker& c, const Node& n, const char* key, const char* v1_key) {
  if (auto f = c.find(n, key)) return f;
  return c.find(n, v1_key);
}

// Off-CPU and lock entries belong to an operation, a kernel thread, or (locks)
// a tracked task in the kernel outside any operation.
SampleKind parse_owner(Checker& c, const Node& n) {
  Node kind = c.field(n, "kind");
  std::string k = c.str(kind);
  SampleKind out = SampleKind::Op;
  bool known = parse_sample_kind(k, out) && out != SampleKind::User;
  if (c.ok() && !known)
    c.fail(kind, fmt::format("unknown kind '{}' (expected op, kthread or kernel)", k));
  return out;
}

std::string parse_wait_class(Checker& c, const Node& n) {
  std::string s = c.str(n);
  if (c.ok() && !is_wait_class(s))
    c.fail(n, fmt::format("unknown wait class '{}' (expected lock, io, log-reserve, log-force, "
                          "runqueue or sleep)",
                          s));
  return s;
}

OffCpuStack parse_offcpu(Checker& c, const Node& n, const StackRefs& refs) {
  OffCpuStack s;
  s.kind = parse_owner(c, n);
  s.name = c.str(c.field(n, "name"));
  s.wait_class = parse_wait_class(c, c.field(n, "wait_class"));
  s.frames = parse_stack(c, c.field(n, "stack"), refs);
  s.waker = c.str(c.field(n, "waker"));
  s.waker_frames = parse_stack(c, c.field(n, "waker_stack"), refs);
  if (auto f = c.find(n, "waker_work")) s.waker_work = c.str(*f);
  if (auto f = c.find(n, "waker_last_work")) s.waker_last_work = c.str(*f);
  if (auto f = c.find(n, "waker_workqueue")) s.waker_workqueue = c.str(*f);
  s.count = c.u64(c.field(n, "count"));
  s.total_ns = c.u64(c.field(n, "total_ns"));
  return s;
}

// A lock record says which lock it is by "lock_id", its id in the recording
// (1, 2, …), or by "address", its kernel address, from a recording that kept
// them (--keep-addresses): a "0x…" string, exact in readers whose numbers
// are doubles; a number in profiles written before ids. Both land in
// `address`: every 64-bit kernel address has its top bit set and no id
// does, so the views tell them apart (views/lock_names.h) and the writer
// picks the key.
constexpr bool is_kernel_address(std::uint64_t a) { return (a >> 63) != 0; }

std::uint64_t parse_address(Checker& c, const Node& n) {
  if (!n.v.is_string()) return c.u64(n);
  std::string_view s = c.view(n);
  std::uint64_t v = 0;
  bool hex = s.starts_with("0x") && s.size() > 2 && s.size() <= 18;
  auto [end, ec] =
      std::from_chars(s.data() + std::min<std::size_t>(2, s.size()), s.data() + s.size(), v, 16);
  if (!hex || ec != std::errc() || end != s.data() + s.size())
    c.fail(n, fmt::format("expected a 0x-prefixed hex address of up to 16 digits, got \"{}\"", s));
  return v;
}

std::uint64_t parse_lock_identity(Checker& c, const Node& n) {
  auto id = c.find(n, "lock_id");
  auto address = c.find(n, "address");
  if (id && address) c.fail(n, "both lock_id and address (a lock has one or the other)");
  if (address) return parse_address(c, *address);
  if (!id) {
    c.fail(n, "missing required field lock_id (or address)");
    return 0;
  }
  std::uint64_t v = c.u64(*id);
  if (c.ok() && is_kernel_address(v))
    c.fail(*id, fmt::format("lock_id {} has the top bit set, as only a kernel address has", v));
  return v;
}

void add_lock_identity(std::uint64_t v, ojson& out) {
  if (is_kernel_address(v))
    out["address"] = fmt::format("{:#x}", v);
  else
    out["lock_id"] = v;
}

LockStat parse_lock(Checker& c, const Node& n, const StackRefs& refs) {
  LockStat s;
  s.kind = parse_owner(c, n);
  s.name = c.str(c.field(n, "name"));
  s.address = parse_lock_identity(c, n);
  s.symbol = c.str(c.field(n, "symbol"));
  s.flags = c.u32(c.field(n, "flags"));
  s.frames = parse_stack(c, c.field(n, "stack"), refs);
  s.count = c.u64(c.field(n, "count"));
  s.total_ns = c.u64(c.field(n, "total_ns"));
  s.max_ns = c.u64(c.field(n, "max_ns"));
  s.spin_ns = c.u64(c.field(n, "spin_ns"));
  s.sleep_ns = c.u64(c.field(n, "sleep_ns"));
  return s;
}

LockHolder parse_holder(Checker& c, const Node& n, const StackRefs& refs) {
  LockHolder h;
  h.op = c.str(c.field(n, "op"));
  h.address = parse_lock_identity(c, n);
  h.symbol = c.str(c.field(n, "symbol"));
  h.flags = c.u32(c.field(n, "flags"));
  h.frames = parse_stack(c, c.field(n, "stack"), refs);
  Node kind = c.field(n, "holder_kind");
  h.holder_kind = c.str(kind);
  if (c.ok() && h.holder_kind != "blocked" && h.holder_kind != "running" &&
      h.holder_kind != "task" && h.holder_kind != "kthread" && h.holder_kind != "readers")
    c.fail(kind, fmt::format("unknown holder kind '{}' (expected blocked, running, task, kthread "
                             "or readers)",
                             h.holder_kind));
  h.holder = c.str(c.field(n, "holder"));
  h.holder_class = c.str(c.field(n, "holder_class"));
  h.holder_frames = parse_stack(c, c.field(n, "holder_stack"), refs);
  h.count = c.u64(c.field(n, "count"));
  h.total_ns = c.u64(c.field(n, "total_ns"));
  return h;
}

ojson holder_json(const LockHolder& h, StackTable& table) {
  ojson o = {{"op", h.op}};
  add_lock_identity(h.address, o);
  o["symbol"] = h.symbol;
  o["flags"] = h.flags;
  o["stack"] = table.ref(h.frames);
  o["holder_kind"] = h.holder_kind;
  o["holder"] = h.holder;
  o["holder_class"] = h.holder_class;
  o["holder_stack"] = table.ref(h.holder_frames);
  o["count"] = h.count;
  o["total_ns"] = h.total_ns;
  return o;
}

ojson offcpu_json(const OffCpuStack& s, StackTable& table) {
  ojson o = {{"kind", to_string(s.kind)},  {"name", s.name},
             {"wait_class", s.wait_class}, {"stack", table.ref(s.frames)},
             {"waker", s.waker},           {"waker_stack", table.ref(s.waker_frames)},
             {"count", s.count},           {"total_ns", s.total_ns}};
  if (!s.waker_work.empty()) o["waker_work"] = s.waker_work;
  if (!s.waker_last_work.empty()) o["waker_last_work"] = s.waker_last_work;
  if (!s.waker_workqueue.empty()) o["waker_workqueue"] = s.waker_workqueue;
  return o;
}

ojson lock_json(const LockStat& s, StackTable& table) {
  ojson o = {{"kind", to_string(s.kind)}, {"name", s.name}};
  add_lock_identity(s.address, o);
  o["symbol"] = s.symbol;
  o["flags"] = s.flags;
  o["stack"] = table.ref(s.frames);
  o["count"] = s.count;
  o["total_ns"] = s.total_ns;
  o["max_ns"] = s.max_ns;
  o["spin_ns"] = s.spin_ns;
  o["sleep_ns"] = s.sleep_ns;
  return o;
}

}  // namespace

void parse_op_extra(Checker& c, const Node& n, OpStats& o) {
  if (auto f = c.find(n, "offcpu_ns")) o.offcpu_ns = c.u64(*f);
  if (auto f = find_fs_events(c, n, "fs_events", "xfs")) parse_counters(c, *f, o.fs_events);
  if (auto f = c.find(n, "trans_min")) o.trans_min = c.u64(*f);
  if (auto f = c.find(n, "trans_max")) o.trans_max = c.u64(*f);
}

void parse_profile_extra(Checker& c, const Node& root, const StackRefs& refs, Profile& p) {
  if (auto f = c.find(root, "offcpu"))
    c.each(*f, [&](const Node& e) { p.offcpu.push_back(parse_offcpu(c, e, refs)); });
  if (auto f = c.find(root, "locks"))
    c.each(*f, [&](const Node& e) { p.locks.push_back(parse_lock(c, e, refs)); });
  if (auto f = c.find(root, "lock_holders"))
    c.each(*f, [&](const Node& e) { p.lock_holders.push_back(parse_holder(c, e, refs)); });
  if (auto f = find_fs_events(c, root, "background_fs_events", "background_xfs"))
    parse_counters(c, *f, p.background_fs_events);
  if (auto f = find_fs_events(c, root, "kthread_fs_events", "kthread_xfs"))
    c.each_member(*f, [&](const std::string& name, const Node& v) {
      parse_counters(c, v, p.kthread_fs_events[name]);
    });
  if (auto f = find_fs_events(c, root, "fs_events_other_fs", "xfs_other_fs"))
    p.fs_events_other_fs = c.u64(*f);
  if (auto f = c.find(root, "device_write_bytes")) parse_counters(c, *f, p.device_write_bytes);
  if (auto f = c.find(root, "fs_write_bytes")) parse_counters(c, *f, p.fs_write_bytes);
  if (auto f = c.find(root, "bpf_programs"))
    c.each(*f, [&](const Node& e) {
      p.bpf_programs.push_back({c.str(c.field(e, "name")), c.u64(c.field(e, "runs")),
                                c.u64(c.field(e, "run_ns"))});
    });
  if (auto f = c.find(root, "prog_missed_by_probe")) parse_counters(c, *f, p.prog_missed_by);
  if (auto f = c.find(root, "functions"))
    c.each(*f, [&](const Node& e) {
      p.functions.push_back({c.str(c.field(e, "function")), c.str(c.field(e, "op")),
                             c.u64(c.field(e, "count")), c.u64(c.field(e, "timed")),
                             c.u64(c.field(e, "total_ns")), c.u64(c.field(e, "max_ns"))});
    });
  if (auto f = c.find(root, "setup"))
    c.each_member(*f, [&](const std::string& name, const Node& v) { p.setup[name] = c.str(v); });
}

void add_op_extra(const OpStats& o, ojson& out) {
  if (o.offcpu_ns != 0) out["offcpu_ns"] = o.offcpu_ns;
  if (!o.fs_events.empty()) out["fs_events"] = o.fs_events;
  if (o.trans_min != 0) out["trans_min"] = o.trans_min;
  if (o.trans_max != 0) out["trans_max"] = o.trans_max;
}

void add_profile_extra(const Profile& p, StackTable& table, ojson& doc) {
  if (!p.offcpu.empty()) {
    ojson& arr = doc["offcpu"] = ojson::array();
    for (const auto& s : p.offcpu) arr.push_back(offcpu_json(s, table));
  }
  if (!p.locks.empty()) {
    ojson& arr = doc["locks"] = ojson::array();
    for (const auto& s : p.locks) arr.push_back(lock_json(s, table));
  }
  if (!p.lock_holders.empty()) {
    ojson& arr = doc["lock_holders"] = ojson::array();
    for (const auto& h : p.lock_holders) arr.push_back(holder_json(h, table));
  }
  if (!p.background_fs_events.empty()) doc["background_fs_events"] = p.background_fs_events;
  if (!p.kthread_fs_events.empty()) doc["kthread_fs_events"] = p.kthread_fs_events;
  if (p.fs_events_other_fs != 0) doc["fs_events_other_fs"] = p.fs_events_other_fs;
  if (!p.device_write_bytes.empty()) doc["device_write_bytes"] = p.device_write_bytes;
  if (!p.fs_write_bytes.empty()) doc["fs_write_bytes"] = p.fs_write_bytes;
  if (!p.bpf_programs.empty()) {
    ojson& arr = doc["bpf_programs"] = ojson::array();
    for (const auto& g : p.bpf_programs)
      arr.push_back({{"name", g.name}, {"runs", g.runs}, {"run_ns", g.run_ns}});
  }
  if (!p.prog_missed_by.empty()) doc["prog_missed_by_probe"] = p.prog_missed_by;
  if (!p.functions.empty()) {
    ojson& arr = doc["functions"] = ojson::array();
    for (const auto& f : p.functions)
      arr.push_back({{"function", f.function}, {"op", f.op}, {"count", f.count},
                     {"timed", f.timed}, {"total_ns", f.total_ns}, {"max_ns", f.max_ns}});
  }
  if (!p.setup.empty()) doc["setup"] = p.setup;
}

}  // namespace fscost::profile_json
