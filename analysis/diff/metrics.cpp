// Per-run metrics for the diff: each op's exact counters, off-CPU stacks,
// lock rows and cpu-clock samples, divided by the op's count.
#include "diff/metrics.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "diff/internal.h"  // setup_number
#include "model/frame_match.h"  // function_family, work_function
#include "views/lock_names.h"
#include "views/offcpu_view.h"  // wait_class_index
#include "model/wait_class.h"

namespace fscost {

// A kworker's sample, off-CPU interval or lock wait names the work it ran:
// the frame process_one_work called ("xfs-conv/loop0: xfs_end_io",
// "writeback: wb_workfn"), as the recorder names XFS events' buckets.
std::string background_bucket(const std::string& name, const Stack& frames) {
  std::string_view work = work_function(frames);
  return work.empty() ? name : name + ": " + std::string(work);
}

namespace {

double per(double total, double count) { return count > 0 ? total / count : 0; }

OpMetrics op_counters(const OpStats& o, std::uint64_t duration_ns) {
  OpMetrics m;
  m.count = static_cast<double>(o.count);
  m.oncpu = per(static_cast<double>(o.oncpu_ns), m.count);
  m.offcpu = per(static_cast<double>(o.offcpu_ns), m.count);
  m.latency = per(static_cast<double>(o.wall_ns), m.count);
  m.rate = duration_ns > 0 ? m.count / (static_cast<double>(duration_ns) / 1e9) : 0;
  for (auto wc : kWaitClasses) m.offcpu_class[std::string(wc)] = 0;
  for (const auto& [name, n] : o.fs_events)
    m.fs_events[name] = per(static_cast<double>(n), m.count);
  return m;
}

// Off-CPU stacks by wait class; an unknown class counts as "sleep", as the
// report counts it.
void add_offcpu(const Profile& p, std::map<std::string, OpMetrics>& ops) {
  std::map<std::string, double> stacks_ns;
  for (const auto& s : p.offcpu) {
    if (s.kind != SampleKind::Op) continue;
    auto it = ops.find(s.name);
    if (it == ops.end()) continue;
    std::string wc(kWaitClasses[wait_class_index(s.wait_class)]);
    it->second.offcpu_class[wc] += per(static_cast<double>(s.total_ns), it->second.count);
    stacks_ns[s.name] += per(static_cast<double>(s.total_ns), it->second.count);
  }
  // offcpu_ns is optional in format v1: fall back on the stacks' sum.
  for (auto& [name, m] : ops)
    if (m.offcpu == 0) m.offcpu = stacks_ns[name];
}

void add_locks(const Profile& p, std::map<std::string, OpMetrics>& ops) {
  for (const auto& row : lock_rows(p, std::nullopt)) {
    if (row.kind != SampleKind::Op) continue;
    auto it = ops.find(row.bucket);
    if (it == ops.end()) continue;
    OpMetrics& m = it->second;
    LockMetrics& l = m.locks[{row.name, row.type}];
    l.count += row.count;
    l.contentions += per(static_cast<double>(row.count), m.count);
    l.wait += per(static_cast<double>(row.total_ns), m.count);
    l.spin += per(static_cast<double>(row.spin_ns), m.count);
    l.sleep += per(static_cast<double>(row.sleep_ns), m.count);
    m.spin += per(static_cast<double>(row.spin_ns), m.count);
    m.sleep += per(static_cast<double>(row.sleep_ns), m.count);
  }
  for (auto& [name, m] : ops)
    for (auto& [key, l] : m.locks)
      l.per_contention = l.count > 0 ? l.wait * m.count / static_cast<double>(l.count) : 0;
}

// One op's cpu-clock sums, indexed by the run's frame ids (add_samples).
struct FrameSums {
  std::vector<double> incl, self;
  std::vector<std::uint8_t> has_incl, has_self;  // a map entry, even if it sums to 0
  std::vector<double> family;               // family number → ns/op, union-inclusive
  std::vector<std::uint8_t> has_family;

  void fit(std::size_t n) {
    if (incl.size() >= n) return;
    incl.resize(n);
    self.resize(n);
    has_incl.resize(n);
    has_self.resize(n);
  }
};

// The functions with an entry, in name order.
void flush(const std::vector<std::uint32_t>& by_name, const std::vector<Frame>& names,
           const std::vector<double>& sums, const std::vector<std::uint8_t>& has,
           FunctionValues& out) {
  for (std::uint32_t id : by_name)
    if (id < has.size() && has[id]) out.emplace_back(names[id], sums[id]);
}

// Frames are numbered once per run (through their pool id: no hashing);
// each op sums into vectors by number, and a stamp per frame (the last
// stack that counted it) replaces a per-stack set. Sums are added in sample
// order, as a map would add them.
void add_samples(const Profile& p, std::map<std::string, OpMetrics>& ops) {
  constexpr std::uint32_t kUnseen = UINT32_MAX;
  std::vector<std::uint32_t> local(Frame::pool_size(), kUnseen);  // pool id → run's number
  std::vector<Frame> names;                                        // run's number → frame
  std::vector<std::uint32_t> seen;  // stack number that last counted the frame
  // Function families (function_family): the run's frame number → family
  // number, and a stamp per family as for frames.
  std::vector<std::uint32_t> family_of;
  std::vector<std::string_view> families;  // views into the frame pool, never freed
  std::unordered_map<std::string_view, std::uint32_t> family_ids;
  std::vector<std::uint32_t> family_seen;
  std::vector<std::int8_t> spin_leaf;  // pool id → can the leaf spin; -1 not asked yet
  auto family_number = [&](const Frame& f) {
    std::string_view fam = function_family(f.str());
    if (fam.empty()) return kUnseen;
    auto [it, added] = family_ids.try_emplace(fam, static_cast<std::uint32_t>(families.size()));
    if (added) {
      families.push_back(fam);
      family_seen.push_back(0);
    }
    return it->second;
  };
  std::unordered_map<OpMetrics*, FrameSums> sums;
  std::uint32_t stack = 0;
  // Neighbouring samples mostly share their op: look it up when it changes.
  const std::string* last_name = nullptr;
  OpMetrics* last_op = nullptr;
  FrameSums* last_sums = nullptr;  // sums[last_op]; the map's nodes stay put
  for (const auto& s : p.samples) {
    if (s.kind != SampleKind::Op || s.frames.empty()) continue;
    if (!last_name || *last_name != s.name) {
      auto it = ops.find(s.name);
      last_name = &s.name;
      last_op = it == ops.end() ? nullptr : &it->second;
      last_sums = last_op ? &sums[last_op] : nullptr;
    }
    if (!last_op) continue;
    double ns = per(samples_to_ns(static_cast<double>(s.count), p.meta.freq_hz), last_op->count);
    if (ns == 0) continue;
    FrameSums& fs = *last_sums;
    ++stack;
    std::uint32_t id = 0;
    for (const Frame& f : s.frames) {
      id = local[f.id()];
      if (id == kUnseen) {
        id = local[f.id()] = static_cast<std::uint32_t>(names.size());
        names.push_back(f);
        seen.push_back(0);
        family_of.push_back(family_number(f));
      }
      // A stack counts once for a family, however many of its frames are in it.
      if (std::uint32_t fam = family_of[id]; fam != kUnseen && family_seen[fam] != stack) {
        family_seen[fam] = stack;
        if (fam >= fs.family.size()) {
          fs.family.resize(families.size(), 0.0);
          fs.has_family.resize(families.size(), 0);
        }
        fs.family[fam] += ns;
        fs.has_family[fam] = 1;
      }
      fs.fit(names.size());
      if (seen[id] == stack) continue;  // a recursive function counts once per stack
      seen[id] = stack;
      fs.incl[id] += ns;
      fs.has_incl[id] = 1;
    }
    fs.self[id] += ns;
    fs.has_self[id] = 1;
    // Whether a leaf can spin is asked once per distinct leaf, not per sample.
    const Frame& leaf = s.frames.back();
    if (leaf.id() >= spin_leaf.size()) spin_leaf.resize(Frame::pool_size(), -1);
    if (spin_leaf[leaf.id()] < 0) spin_leaf[leaf.id()] = spinning_lock(Stack{leaf}).has_value();
    if (spin_leaf[leaf.id()])
      if (auto l = spinning_lock(s.frames); l && l->optimistic)
        last_op->locks[{l->name, l->type}].optimistic_spin += ns;
  }
  std::vector<std::uint32_t> by_name(names.size());
  std::iota(by_name.begin(), by_name.end(), 0u);
  std::sort(by_name.begin(), by_name.end(), [&](std::uint32_t x, std::uint32_t y) {
    return names[x].str() < names[y].str();
  });
  for (auto& [m, fs] : sums) {
    flush(by_name, names, fs.incl, fs.has_incl, m->incl);
    flush(by_name, names, fs.self, fs.has_self, m->self);
    for (std::uint32_t fam = 0; fam < fs.family.size(); ++fam)
      if (fs.has_family[fam]) m->families.emplace_back(std::string(families[fam]), fs.family[fam]);
    std::sort(m->families.begin(), m->families.end());
  }
}


void add_background(const Profile& p, RunMetrics& r) {
  double kthread_samples = 0;
  for (const auto& s : p.samples)
    if (s.kind == SampleKind::Kthread) {
      kthread_samples += static_cast<double>(s.count);
      BackgroundMetrics& m = r.background[background_bucket(s.name, s.frames)];
      m.samples += static_cast<double>(s.count);
      m.cpu += samples_to_ns(static_cast<double>(s.count), p.meta.freq_hz);
    }
  r.kthread_ns = samples_to_ns(kthread_samples, p.meta.freq_hz);
  // The recorder names a kworker's off-CPU bucket with its work function.
  for (const auto& o : p.offcpu)
    if (o.kind == SampleKind::Kthread) r.background[o.name].offcpu += static_cast<double>(o.total_ns);
  for (const auto& l : p.locks)
    if (l.kind == SampleKind::Kthread) {
      BackgroundMetrics& m = r.background[background_bucket(l.name, l.frames)];
      m.lock_wait += static_cast<double>(l.total_ns);
      m.lock_by_name[lock_name(l) + " [" + lock_type(l.flags) + "]"] += static_cast<double>(l.total_ns);
    }
  for (const auto& [bucket, events] : p.kthread_fs_events)
    for (const auto& [event, n] : events)
      r.background[bucket].fs_events[event] += static_cast<double>(n);
}

void add_run_totals(const Profile& p, RunMetrics& r) {
  r.rusage_valid = p.rusage.valid;
  r.sys_ns = static_cast<double>(p.rusage.sys_ns);
  r.user_ns = static_cast<double>(p.rusage.user_ns);
  r.wall_ns = static_cast<double>(p.rusage.wall_ns);
  double cpu = r.sys_ns + r.user_ns;
  r.user_share = cpu > 0 ? 100 * r.user_ns / cpu : 0;
  add_background(p, r);
  for (const auto& [name, n] : p.drops)
    if (n > 0) r.drops[name] = n;
  // The test device as device_write_bytes names it ("loop0", "dm-0").
  if (auto it = p.setup.find("device"); it != p.setup.end()) {
    r.device = it->second;
    auto bytes = p.device_write_bytes.find(it->second);
    r.device_bytes = bytes == p.device_write_bytes.end() ? 0.0 : static_cast<double>(bytes->second);
  }
  for (const auto& [kind, bytes] : p.fs_write_bytes)
    r.device_bytes_by_kind[kind] = static_cast<double>(bytes);
  r.tracer_ns_per_op = setup_number(p, "tracer_ns_per_op");
  r.written_after_bytes = setup_number(p, "written_after_bytes");
}

// The command line with its path arguments masked: a fresh filesystem per
// run (fscost compare, any mkfs-per-run script) mounts at a new directory
// each time, and that is not a difference in what the runs did.
std::string masked_command(const std::string& cmd) {
  std::string out;
  std::size_t i = 0;
  bool first = true;
  while (i < cmd.size()) {
    std::size_t end = cmd.find(' ', i);
    if (end == std::string::npos) end = cmd.size();
    std::string tok = cmd.substr(i, end - i);
    std::size_t at = std::string::npos;
    if (tok.starts_with('/'))
      at = 0;
    else if (std::size_t eq = tok.find("=/"); eq != std::string::npos)
      at = eq + 1;  // --dir=/mnt/x
    if (!first && at != std::string::npos) tok = tok.substr(0, at) + "<path>";
    out += (first ? "" : " ") + tok;
    first = false;
    i = end + 1;
  }
  return out;
}

RunIdentity identity(const Metadata& m) {
  RunIdentity id{m.hostname, m.kernel_release, m.cpus, m.freq_hz, m.probes,
                 masked_command(m.command)};
  std::sort(id.probes.begin(), id.probes.end());
  return id;
}

}  // namespace

double samples_to_ns(double samples, std::uint32_t freq_hz) {
  return freq_hz > 0 ? samples * 1e9 / freq_hz : 0;
}

double samples_exposure(double operations, std::uint32_t freq_hz) {
  return operations * freq_hz / 1e9;
}

RunMetrics run_metrics(const Profile& p) {
  RunMetrics r;
  for (const auto& o : p.ops)
    if (o.count > 0) r.ops.emplace(o.name, op_counters(o, p.meta.duration_ns));
  add_offcpu(p, r.ops);
  add_locks(p, r.ops);
  add_samples(p, r.ops);
  add_run_totals(p, r);
  r.identity = identity(p.meta);
  return r;
}

}  // namespace fscost
