#include "synth_profile.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string_view>
#include <unordered_set>

#include "model/drops.h"

namespace fscost::bench {
namespace {

// How each operation enters the kernel and reaches XFS, and its share of
// the stacks (roughly a create-heavy metadata workload).
struct OpPath {
  std::string_view op;
  double share;
  std::vector<std::string_view> head;
};

const std::vector<OpPath>& op_paths() {
  static const std::vector<OpPath> paths = {
      {"create",
       0.40,
       {"__x64_sys_openat", "do_sys_openat2", "do_filp_open", "path_openat", "open_last_lookups",
        "lookup_open", "xfs_generic_create", "xfs_create"}},
      {"unlink",
       0.15,
       {"__x64_sys_unlinkat", "do_unlinkat", "vfs_unlink", "xfs_vn_unlink", "xfs_remove"}},
      {"mkdir",
       0.10,
       {"__x64_sys_mkdirat", "do_mkdirat", "vfs_mkdir", "xfs_vn_mkdir", "xfs_generic_create",
        "xfs_create"}},
      {"rename",
       0.10,
       {"__x64_sys_renameat2", "do_renameat2", "vfs_rename", "xfs_vn_rename", "xfs_rename"}},
      {"close", 0.10, {"__x64_sys_close", "__fput", "xfs_file_release", "xfs_release"}},
      {"open",
       0.08,
       {"__x64_sys_openat", "do_sys_openat2", "do_filp_open", "path_openat", "link_path_walk",
        "walk_component", "xfs_vn_lookup", "xfs_lookup"}},
      {"stat",
       0.07,
       {"__x64_sys_newfstatat", "vfs_statx", "filename_lookup", "path_lookupat", "xfs_vn_getattr"}},
  };
  return paths;
}

// The synthetic kernel below XFS's entry points: prefixes × stems ×
// suffixes gives ~3000 XFS-like names; `extra` (B's new code) adds rmap
// and refcount btree functions.
std::vector<Frame> function_pool(bool extra) {
  static constexpr std::array prefixes = {"xfs_",       "xfs_btree_", "xfs_dir2_",  "xfs_da3_",
                                          "xfs_buf_",   "xfs_iext_",  "xfs_alloc_", "xfs_bmap_",
                                          "xfs_trans_", "xlog_",      "xfs_inobt_", "xfs_ialloc_",
                                          "xfs_log_",   "xfs_defer_", "xfs_inode_", "xfs_ag_"};
  static constexpr std::array stems = {
      "lookup", "insert", "delete", "get_rec", "update",  "read",  "write",   "log",
      "join",   "check",  "verify", "find",    "alloc",   "free",  "split",   "search",
      "init",   "commit", "cancel", "grant",   "reserve", "space", "leaf",    "node",
      "block",  "extent", "cursor", "path",    "entry",   "hash",  "compare", "item",
      "format", "size",   "iget",   "ilock",   "dirty",   "trim",  "shift",   "map"};
  static constexpr std::array suffixes = {"", "_int", "_rec", "_buf", "_one"};
  std::vector<Frame> pool;
  auto add = [&](std::string_view prefix) {
    for (auto s : stems)
      for (auto x : suffixes) pool.push_back(std::string(prefix) + s + x);
  };
  for (auto p : prefixes) add(p);
  if (extra) {
    add("xfs_rmap_");
    add("xfs_refcount_");
  }
  return pool;
}

// Leaves outside XFS that real stacks end in.
constexpr std::array kLeaves = {"_raw_spin_lock",   "memcpy_orig",
                                "memset_orig",      "kmem_cache_alloc_noprof",
                                "__kmalloc_noprof", "up_write",
                                "down_write",       "crc32c_x86_3way",
                                "mutex_lock",       "_raw_spin_unlock_irqrestore",
                                "xas_load",         "percpu_counter_add_batch"};

std::size_t pick_op(std::mt19937& rng) {
  double u = std::uniform_real_distribution<double>(0, 1)(rng), acc = 0;
  const auto& paths = op_paths();
  for (std::size_t i = 0; i < paths.size(); ++i)
    if (u < (acc += paths[i].share)) return i;
  return paths.size() - 1;
}

// One stack: entry frames, the op's path, then a walk where each function
// calls one of four callees, so paths merge as in a real call graph.
Stack walk(std::mt19937& rng, const OpPath& path, const std::vector<Frame>& pool,
           std::size_t depth) {
  Stack frames = {"entry_SYSCALL_64_after_hwframe", "do_syscall_64"};
  for (auto f : path.head) frames.emplace_back(f);
  std::uniform_int_distribution<std::size_t> pick(0, 3);
  std::size_t f = std::hash<std::string_view>{}(path.op) % pool.size();
  while (frames.size() + 1 < depth) {
    f = (f * 31 + pick(rng) * 7919 + 1) % pool.size();
    frames.push_back(pool[f]);
  }
  if (frames.size() < depth)
    frames.emplace_back(
        kLeaves[std::uniform_int_distribution<std::size_t>(0, kLeaves.size() - 1)(rng)]);
  return frames;
}

// The random-walk shape's call graph: kWalkFunctions of the pool's
// names, each calling kWalkFanout of them drawn once from the set's seed
// (so A and B walk one graph); B's new functions, after them, call into it
// the same way.
constexpr std::size_t kWalkFunctions = 3000, kWalkFanout = 8;

struct CallGraph {
  std::vector<Frame> names;  // [0, kWalkFunctions) the graph, then B's new code
  std::vector<std::array<std::uint32_t, kWalkFanout>> callees;
};

CallGraph call_graph(unsigned seed) {
  CallGraph g;
  const auto plain = function_pool(false), extended = function_pool(true);
  g.names.assign(plain.begin(), plain.begin() + kWalkFunctions);
  g.names.insert(g.names.end(), extended.begin() + static_cast<std::ptrdiff_t>(plain.size()),
                 extended.end());
  std::mt19937 rng(seed * 2654435761u + 41u);
  std::uniform_int_distribution<std::uint32_t> callee(0, kWalkFunctions - 1);
  g.callees.resize(g.names.size());
  for (auto& c : g.callees)
    for (auto& f : c) f = callee(rng);
  return g;
}

// One stack of `depth` frames: from the op's entry function, each frame a
// random callee of the one before; `changed` steps into B's new code a
// quarter of the time.
Stack random_walk(std::mt19937& rng, const OpPath& path, const CallGraph& g, std::size_t depth,
                  bool changed) {
  std::uniform_int_distribution<std::size_t> pick(0, kWalkFanout - 1);
  std::uniform_int_distribution<std::size_t> extra(kWalkFunctions, g.names.size() - 1);
  std::uniform_int_distribution<int> quarter(0, 3);
  std::size_t f = std::hash<std::string_view>{}(path.op) % kWalkFunctions;
  Stack frames{g.names[f]};
  frames.reserve(depth);
  while (frames.size() < depth) {
    f = changed && quarter(rng) == 0 ? extra(rng) : g.callees[f][pick(rng)];
    frames.push_back(g.names[f]);
  }
  return frames;
}

std::string key_of(std::string_view op, const Stack& frames) {
  std::string key(op);
  for (const auto& f : frames) (key += ';') += f;
  return key;
}

// A stable weight per stack (a few hot stacks, a long exponential tail), so
// runs of one configuration agree up to jitter. splitmix64 of the index: a
// seeded mt19937 per stack would cost more than the rest of the generator.
double base_weight(std::size_t i) {
  std::uint64_t z = (i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  double u = (static_cast<double>(z >> 11) + 0.5) / 9007199254740992.0;  // (0, 1)
  return 1 + std::floor(-5 * std::log(u));
}

}  // namespace

StackSet synth_stacks(const SynthConfig& cfg) {
  const auto plain = function_pool(false), extended = function_pool(true);
  const CallGraph graph = cfg.shape == Shape::RandomWalk ? call_graph(cfg.seed) : CallGraph{};
  std::mt19937 rng(cfg.seed);
  std::uniform_int_distribution<std::size_t> depth(cfg.min_depth, cfg.max_depth);
  std::uniform_real_distribution<double> unit(0, 1);
  std::unordered_set<std::string> seen;
  StackSet set;
  // The common part comes from `seed`'s stream, so configurations with the
  // same seed share those stacks; the changed part has its own stream.
  std::mt19937 changed_rng(cfg.seed * 7919u + 17u);
  while (set.stacks.size() < cfg.stacks) {
    bool changed = unit(changed_rng) < cfg.changed_share;
    auto& r = changed ? changed_rng : rng;
    const auto& op = op_paths()[pick_op(r)];
    auto frames = cfg.shape == Shape::RandomWalk
                      ? random_walk(r, op, graph, depth(r), changed)
                      : walk(r, op, changed ? extended : plain, depth(r));
    if (!seen.insert(key_of(op.op, frames)).second) continue;
    set.ops.emplace_back(op.op);
    set.stacks.push_back(std::move(frames));
  }
  return set;
}

namespace {

constexpr std::uint32_t kFreqHz = 997;
constexpr double kNsPerSample = 1e9 / kFreqHz;
constexpr std::array kWaitClassNames = {"lock",      "io",       "log-reserve",
                                        "log-force", "runqueue", "sleep"};

void add_ops(Profile& p, const std::map<std::string, std::uint64_t>& op_samples,
             std::mt19937& rng) {
  std::uniform_real_distribution<double> jitter(0.97, 1.03);
  for (const auto& [name, samples] : op_samples) {
    OpStats o;
    o.name = name;
    o.count = static_cast<std::uint64_t>(200'000 * jitter(rng));
    o.oncpu_ns = static_cast<std::uint64_t>(samples * kNsPerSample * jitter(rng));
    o.offcpu_ns = o.oncpu_ns / 8;
    o.wall_ns = o.oncpu_ns + o.offcpu_ns;
    o.latency_log2.assign(kLatencyBuckets, 0);
    auto bucket = static_cast<std::size_t>(std::log2(std::max<double>(2, o.wall_ns / o.count)));
    o.latency_log2[bucket] = o.count * 3 / 4;
    o.latency_log2[bucket + 1] = o.count - o.count * 3 / 4;
    o.fs_events = {{"xfs_trans_alloc", o.count * 2}, {"xfs_log_reserve", o.count * 2}};
    o.trans_min = 1;
    o.trans_max = 3;
    p.ops.push_back(std::move(o));
  }
}

// Off-CPU intervals on every 50th stack, lock contention on every 500th.
void add_waits(Profile& p, const StackSet& set, std::mt19937& rng) {
  std::uniform_int_distribution<std::uint64_t> ns(1'000, 2'000'000);
  for (std::size_t i = 0; i < set.stacks.size(); i += 50) {
    OffCpuStack s;
    s.name = set.ops[i];
    s.wait_class = kWaitClassNames[(i / 50) % kWaitClassNames.size()];
    Stack blocked = set.stacks[i];
    blocked.emplace_back("schedule");
    s.frames = std::move(blocked);
    s.waker = "kworker/u8:1";
    s.waker_frames = set.stacks[(i + 25) % set.stacks.size()];
    s.count = 1 + i % 7;
    s.total_ns = ns(rng) * s.count;
    p.offcpu.push_back(std::move(s));
  }
  for (std::size_t i = 0; i < set.stacks.size(); i += 500) {
    LockStat l;
    l.name = set.ops[i];
    l.address = 0xffff888000000000ull + (i % 20) * 64;
    l.flags = (i % 1000 == 0) ? 1 : 4 | 32;  // spinlock, or rwsem write
    l.frames = set.stacks[i];
    l.count = 1 + i % 11;
    l.total_ns = ns(rng) * l.count / 10;
    l.max_ns = l.total_ns / l.count;
    l.spin_ns = l.flags == 1 ? l.total_ns : l.total_ns / 10;
    l.sleep_ns = l.total_ns - l.spin_ns;
    p.locks.push_back(std::move(l));
  }
}

void add_background(Profile& p) {
  p.samples.push_back({SampleKind::User, "", {}, 120});
  p.samples.push_back(
      {SampleKind::Kernel,
       "",
       {"asm_exc_page_fault", "exc_page_fault", "do_user_addr_fault", "handle_mm_fault"},
       40});
  p.samples.push_back({SampleKind::Kthread,
                       "xfs-cil/loop0",
                       {"ret_from_fork_asm", "ret_from_fork", "kthread", "worker_thread",
                        "process_one_work", "xlog_cil_push_work"},
                       200});
  p.background_fs_events = {{"xfs_log_force", 12}};
  p.device_write_bytes = {{"loop0", 64u << 20}};
}

Metadata synth_meta(const Profile& p) {
  Metadata m;
  m.fscost_version = FSCOST_VERSION;
  m.kernel_release = "6.18.0-synthetic";
  m.hostname = "bench";
  m.cpus = 2;
  m.target = "command";
  m.command = "fscost-workload /mnt --workload mixed (synthetic profile)";
  m.start_unix_ns = 1'790'000'000'000'000'000;
  m.duration_ns = p.rusage.wall_ns;
  m.freq_hz = kFreqHz;
  m.probes = {"raw_syscalls:sys_enter (tp_btf)", "raw_syscalls:sys_exit (tp_btf)",
              "sched:sched_switch (tp_btf)", "lock:contention_begin (tp_btf)",
              "lock:contention_end (tp_btf)"};
  return m;
}

}  // namespace

Profile synth_run(const StackSet& set, unsigned run_seed) {
  std::mt19937 rng(run_seed);
  std::uniform_real_distribution<double> jitter(0.8, 1.2);
  Profile p;
  std::map<std::string, std::uint64_t> op_samples;
  p.samples.reserve(set.stacks.size() + 3);
  for (std::size_t i = 0; i < set.stacks.size(); ++i) {
    auto count =
        static_cast<std::uint64_t>(std::max(1.0, std::round(base_weight(i) * jitter(rng))));
    p.samples.push_back({SampleKind::Op, set.ops[i], set.stacks[i], count});
    op_samples[set.ops[i]] += count;
  }
  add_ops(p, op_samples, rng);
  add_waits(p, set, rng);
  add_background(p);
  std::uint64_t oncpu = 0, total = 0;
  for (const auto& o : p.ops) oncpu += o.oncpu_ns;
  for (const auto& s : p.samples) total += s.count;
  p.samples_total = total + total / 10;  // idle and untracked CPUs
  p.rusage = {true, oncpu / 20, oncpu + oncpu / 30, oncpu / 2};
  p.meta = synth_meta(p);
  for (const auto& d : drop_counters()) p.drops[std::string(d.name)] = 0;
  return p;
}

}  // namespace fscost::bench
