// Synthetic sets of runs for diff tests: a configuration is a spec of
// per-operation costs (on-CPU stacks, off-CPU waits, lock contention, all
// per operation); each run draws seeded noise around it. Injections change
// a spec the way a filesystem feature would, so a test knows the answer.
// Header-only.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "diff/diff.h"
#include "views/lock_names.h"
#include "model/profile.h"

namespace fscost::test {

struct StackSpec {
  Stack frames;                     // below the op root, outermost first
  double ns = 0;                    // on CPU per op
};

struct WaitSpec {
  std::string wait_class;
  Stack frames;
  double ns = 0;  // off CPU per op
};

struct LockSpec {
  Stack frames;  // at contention_begin
  std::uint32_t flags = 0;
  std::uint64_t address = 0;
  double per_op = 0;   // contentions per op
  double ns_each = 0;  // wait per contention; spun if flags has kLockSpin, else slept
};

struct OpSpec {
  std::string name;
  std::uint64_t count = 0;
  std::vector<StackSpec> oncpu;
  std::vector<WaitSpec> offcpu;
  std::vector<LockSpec> locks;
};

struct ConfigSpec {
  std::string hostname = "testhost";
  std::string kernel_release = "6.8.0-test";
  std::uint32_t cpus = 4;
  std::uint32_t freq_hz = 10000;  // one sample = 100 µs
  std::vector<std::string> probes = {"raw_syscalls:sys_enter (tp_btf)",
                                     "sched:sched_switch (tp_btf)", "cpu-clock (perf_event)",
                                     "lock:contention_begin (tp_btf)"};
  std::string command = "fsops mix 50000";
  std::vector<OpSpec> ops;
  double user_share = 0.05;    // of the target's CPU
  double wall_scale = 1;       // elapsed time / (op latency + user time)
  double kthread_ns = 50e6;    // background kernel-thread CPU per run
  double noise = 0.03;         // relative sd of every per-run figure
  double exact_noise = 0.01;   // extra relative sd of exact on-CPU time vs samples
  std::map<std::size_t, std::map<std::string, std::uint64_t>> drops;  // run index → counters
};

inline Stack frames_of(Stack head, const Stack& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

// `s` without its run `skip` (a leave-one-out, a subset of a recorded case).
inline RunSet without_run(const RunSet& s, std::size_t skip) {
  RunSet out;
  out.label = s.label;
  for (std::size_t i = 0; i < s.runs.size(); ++i)
    if (i != skip) {
      out.runs.push_back(s.runs[i]);
      if (i < s.sources.size()) out.sources.push_back(s.sources[i]);
    }
  return out;
}

inline const Stack kCreatePath = {"entry_SYSCALL_64", "do_syscall_64", "__x64_sys_openat",
                                  "do_sys_openat2",   "path_openat",   "xfs_generic_create",
                                  "xfs_create"};
inline const Stack kUnlinkPath = {"entry_SYSCALL_64", "do_syscall_64", "__x64_sys_unlink",
                                  "do_unlinkat",      "vfs_unlink",    "xfs_vfs_unlink",
                                  "xfs_remove"};
inline const Stack kMkdirPath = {"entry_SYSCALL_64", "do_syscall_64", "__x64_sys_mkdir",
                                 "do_mkdirat"};

// Lock X: a spinlock lock_name() calls "log grant head lock".
inline const Stack kSpinX = frames_of(
    kCreatePath, {"xfs_trans_alloc", "xfs_trans_reserve", "xfs_log_reserve",
                  "xlog_grant_head_check", "_raw_spin_lock", "native_queued_spin_lock_slowpath"});
inline const std::string kLockX = "log grant head lock";
// Lock Y: the AGI buffer lock, a semaphore unlink sleeps on ("xfs_buf lock (AGI)").
inline const Stack kSleepY =
    frames_of(kUnlinkPath, {"xfs_iunlink", "xfs_read_agi", "xfs_buf_read_map", "xfs_buf_get_map",
                            "xfs_buf_find_lock", "xfs_buf_lock", "down", "__down"});
inline const std::string kLockY = "xfs_buf lock (AGI)";
// mkdir's parent-directory i_rwsem: "i_rwsem (parent dir, filename_create)".
inline const Stack kMkdirRwsem =
    frames_of(kMkdirPath, {"filename_create", "down_write", "rwsem_down_write_slowpath"});

inline OpSpec create_spec() {
  auto at = [](Stack tail) { return frames_of(kCreatePath, tail); };
  return {"create",
          50000,
          {{kCreatePath, 2000},
           {at({"xfs_trans_alloc"}), 1500},
           {at({"xfs_dir_createname", "xfs_dir2_node_addname"}), 1500},
           {at({"xfs_dialloc", "xfs_dialloc_ag"}), 1000},
           {{"entry_SYSCALL_64", "do_syscall_64", "__x64_sys_openat", "do_sys_openat2",
             "path_openat", "lookup_open"},
            500},
           {kSpinX, 0.05 * 400}},
          {{"io", at({"xfs_dialloc", "xfs_read_agi", "xfs_buf_submit", "io_schedule"}), 1000},
           {"runqueue", at({"__cond_resched", "__schedule"}), 200}},
          {{kSpinX, kLockSpin, 0xffff888000001000, 0.05, 400}}};
}

inline OpSpec unlink_spec() {
  auto at = [](Stack tail) { return frames_of(kUnlinkPath, tail); };
  return {"unlink",
          50000,
          {{kUnlinkPath, 3000},
           {at({"xfs_dir_removename"}), 1500},
           {at({"xfs_droplink", "xfs_iunlink"}), 1000}},
          {{"io", at({"xfs_read_agi", "xfs_buf_submit", "io_schedule"}), 2000},
           {"runqueue", at({"__cond_resched", "__schedule"}), 300}},
          {}};
}

inline OpSpec mkdir_spec() {
  auto at = [](Stack tail) { return frames_of(kMkdirPath, tail); };
  return {"mkdir",
          10000,
          {{at({"filename_create"}), 1000},
           {at({"vfs_mkdir", "xfs_vn_mkdir", "xfs_create"}), 5000},
           {at({"vfs_mkdir", "xfs_vn_mkdir", "xfs_create", "xfs_trans_alloc"}), 2000}},
          {{"io", at({"vfs_mkdir", "xfs_vn_mkdir", "xfs_create", "io_schedule"}), 3000},
           {"lock", frames_of(kMkdirRwsem, {"schedule"}), 500}},
          {{kMkdirRwsem, kLockWrite, 0xffff888000002000, 0.1, 5000}}};
}

// Configuration A: create, unlink and mkdir as the baseline costs them.
inline ConfigSpec base_spec() {
  ConfigSpec s;
  s.ops = {create_spec(), unlink_spec(), mkdir_spec()};
  return s;
}

inline OpSpec& op_of(ConfigSpec& s, const std::string& name) {
  for (auto& o : s.ops)
    if (o.name == name) return o;
  throw std::logic_error("no op " + name);
}

// (1) Parent pointers: a new subtree under xfs_create, 1 µs/op, no child
// carrying half of it.
inline void inject_new_code(ConfigSpec& s) {
  auto at = [](Stack tail) {
    return frames_of(frames_of(kCreatePath, {"xfs_parent_addname"}), tail);
  };
  auto& ops = op_of(s, "create").oncpu;
  ops.push_back({at({}), 300});
  ops.push_back({at({"xfs_attr_defer_add"}), 400});
  ops.push_back({at({"xfs_parent_hashname"}), 300});
}

// (2) Lock X spun on more: 5× the contentions per op, each 25% longer.
inline void inject_more_spin(ConfigSpec& s) {
  OpSpec& create = op_of(s, "create");
  for (auto& l : create.locks)
    if (l.frames == kSpinX) l = {kSpinX, kLockSpin, l.address, 0.25, 500};
  for (auto& st : create.oncpu)
    if (st.frames == kSpinX) st.ns = 0.25 * 500;
}

// (3) Lock Y: unlink now sleeps on the AGI buffer, 0.1 contentions/op of
// 8 µs.
inline void inject_sleep_lock(ConfigSpec& s) {
  OpSpec& unlink = op_of(s, "unlink");
  unlink.locks.push_back({kSleepY, 0, 0xffff888000003000, 0.1, 8000});
  unlink.offcpu.push_back({"lock", frames_of(kSleepY, {"schedule"}), 800});
}

// Gaussian noise from mt19937's specified output (std::normal_distribution
// differs between standard libraries; these tests must not).
class Noise {
 public:
  explicit Noise(std::uint32_t seed) : g_(seed) {}
  double z() {
    double u1 = (static_cast<double>(g_()) + 0.5) / 4294967296.0;
    double u2 = (static_cast<double>(g_()) + 0.5) / 4294967296.0;
    return std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  double scale(double x, double sd) { return std::max(0.0, x * (1 + sd * z())); }

 private:
  std::mt19937 g_;
};

struct OpTotals {
  double oncpu = 0, offcpu = 0;
};

inline OpTotals add_op(Profile& p, const OpSpec& o, const ConfigSpec& s, Noise& n) {
  OpTotals t;
  double count = static_cast<double>(o.count), ns_per_sample = 1e9 / s.freq_hz;
  for (const auto& st : o.oncpu) {
    auto samples = std::llround(n.scale(st.ns * count, s.noise) / ns_per_sample);
    if (samples > 0)
      p.samples.push_back({SampleKind::Op, o.name, st.frames, static_cast<std::uint64_t>(samples)});
    t.oncpu += static_cast<double>(samples) * ns_per_sample;
  }
  for (const auto& w : o.offcpu) {
    auto ns = static_cast<std::uint64_t>(n.scale(w.ns * count, s.noise));
    p.offcpu.push_back({SampleKind::Op, o.name, w.wait_class, w.frames, {}, "", o.count / 10, ns});
    t.offcpu += static_cast<double>(ns);
  }
  for (const auto& l : o.locks) {
    auto c = static_cast<std::uint64_t>(std::llround(n.scale(l.per_op * count, s.noise)));
    auto ns = static_cast<std::uint64_t>(n.scale(l.ns_each, s.noise) * static_cast<double>(c));
    bool spin = l.flags & kLockSpin;
    p.locks.push_back({SampleKind::Op, o.name, l.address, "", l.flags, l.frames, c, ns,
                       static_cast<std::uint64_t>(l.ns_each * 4), spin ? ns : 0, spin ? 0 : ns});
  }
  t.oncpu = n.scale(t.oncpu, s.exact_noise);
  return t;
}

inline Profile make_run(const ConfigSpec& s, std::size_t index, std::uint32_t seed) {
  Noise n(seed);
  Profile p;
  p.meta = {"0.1.0", s.kernel_release, s.hostname, s.cpus, "command", s.command, 0, 0,
            s.freq_hz, s.probes};
  double sys = 0, latency = 0;
  for (const auto& o : s.ops) {
    OpTotals t = add_op(p, o, s, n);
    auto wall = static_cast<std::uint64_t>(t.oncpu + t.offcpu);
    p.ops.push_back({o.name, o.count, 0, wall, static_cast<std::uint64_t>(t.oncpu),
                     std::vector<std::uint64_t>(kLatencyBuckets, 0),
                     static_cast<std::uint64_t>(t.offcpu)});
    sys += t.oncpu;
    latency += t.oncpu + t.offcpu;
  }
  double user = sys * s.user_share / (1 - s.user_share);
  double wall = (latency + user) * s.wall_scale;
  p.rusage = {true, static_cast<std::uint64_t>(user), static_cast<std::uint64_t>(sys),
              static_cast<std::uint64_t>(wall)};
  p.meta.duration_ns = static_cast<std::uint64_t>(wall);
  auto kthread = std::llround(n.scale(s.kthread_ns, s.noise) * s.freq_hz / 1e9);
  p.samples.push_back({SampleKind::Kthread, "xfsaild/loop0",
                       {"ret_from_fork", "kthread", "xfsaild"},
                       static_cast<std::uint64_t>(kthread)});
  p.drops = {{"stack_map_full", 0}, {"sample_map_full", 0}};
  if (auto it = s.drops.find(index); it != s.drops.end())
    for (const auto& [name, v] : it->second) p.drops[name] = v;
  return p;
}

// `runs` runs of `s`, seeds seed, seed + 1, ...; sources "<label>/runN.profile".
inline RunSet make_runs(const ConfigSpec& s, std::size_t runs, std::uint32_t seed,
                        const std::string& label) {
  RunSet set;
  set.label = label;
  for (std::size_t i = 0; i < runs; ++i) {
    set.runs.push_back(make_run(s, i, seed + static_cast<std::uint32_t>(i)));
    set.sources.push_back(label + "/run" + std::to_string(i + 1) + ".profile");
  }
  return set;
}

}  // namespace fscost::test
