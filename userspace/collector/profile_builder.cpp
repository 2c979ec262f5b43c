#include "collector/profile_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <tuple>
#include <unordered_map>

#include "collector/hooks.h"
#include "symbols/kallsyms.h"
#include "model/drops.h"
#include "model/operations.h"
#include "symbols/user_symbols.h"
#include "model/wait_class.h"

namespace fscost {
namespace {

std::string op_string(std::uint32_t op) {
  return op < static_cast<std::uint32_t>(Op::Count_) ? std::string(op_name(static_cast<Op>(op)))
                                                     : "other";
}

std::string cstr(const char* s, std::size_t n) { return std::string(s, strnlen(s, n)); }

std::map<std::string, std::uint64_t> fs_event_map(const fscost_fs_event_counts& c) {
  std::map<std::string, std::uint64_t> out;
  auto names = fs_event_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (c.n[i]) out[std::string(names[i])] = c.n[i];
  return out;
}

std::vector<OpStats> convert_ops(const RawData& raw) {
  std::vector<OpStats> ops;
  for (std::size_t i = 1; i < static_cast<std::size_t>(Op::Count_) && i < raw.ops.size(); ++i) {
    const auto& r = raw.ops[i];
    if (!r.count) continue;
    OpStats s;
    s.name = op_string(static_cast<std::uint32_t>(i));
    s.count = r.count;
    s.errors = r.errors;
    s.wall_ns = r.wall_ns;
    s.oncpu_ns = r.oncpu_ns;
    s.offcpu_ns = r.offcpu_ns;
    s.latency_log2.assign(std::begin(r.lat), std::end(r.lat));
    s.trans_min = r.trans_min;
    s.trans_max = r.trans_max;
    if (i < raw.fs_events.size()) s.fs_events = fs_event_map(raw.fs_events[i]);
    ops.push_back(std::move(s));
  }
  return ops;
}

SampleKind kind_of(std::uint32_t k) {
  switch (k) {
    case FSCOST_SK_USER: return SampleKind::User;
    case FSCOST_SK_KERNEL: return SampleKind::Kernel;
    case FSCOST_SK_KTHREAD: return SampleKind::Kthread;
    default: return SampleKind::Op;
  }
}

std::string bucket_name(std::uint32_t kind, std::uint32_t op, const char* name) {
  if (kind == FSCOST_SK_OP) return op_string(op);
  if (kind == FSCOST_SK_KTHREAD) return cstr(name, FSCOST_NAME_LEN);
  return {};
}

// "xfs-cil/loop0: xlog_cil_push_work" (the analysis' background bucket:
// workqueue and work function), or the bare bucket outside a work item.
// A kernel function's name by its address; "" for 0. One outside every
// symbol is "[unknown]", as in stacks (Kallsyms::format): a raw text address
// in a shared report would give away the kernel's KASLR offset.
std::string function_name(std::uint64_t func, const Kallsyms& ksyms) {
  if (!func) return {};
  return ksyms.format(func);
}

std::string work_bucket(const std::string& bucket, std::uint64_t func, const Kallsyms& ksyms) {
  return func ? bucket + ": " + function_name(func, ksyms) : bucket;
}

bool is_bpf_glue(const std::string& f) {
  return f.starts_with("bpf_prog_") || f.starts_with("bpf_trace_run") ||
         f.starts_with("__bpf_trace_") || f.starts_with("bpf_trampoline_") ||
         f.starts_with("__traceiter_");
}

// Symbolized frames, outermost caller first. A stack that was lost keeps its
// count under a visible "[lost stack]" frame instead of vanishing.
class Frames {
 public:
  Frames(const RawData& raw, const Kallsyms& ksyms, const UserSymbolizer* usyms)
      : raw_(raw), ksyms_(ksyms), usyms_(usyms) {}
  // Samples, off-CPU intervals and lock waits share stacks: symbolize each once.
  const Stack& operator()(std::uint64_t hash) const {
    auto [cached, added] = cache_.try_emplace(hash);
    if (added) cached->second = symbolize(hash);
    return cached->second;
  }
  // User-mode samples carry a user stack only with --user-stacks.
  Stack user(const fscost_sample_key& k) const {
    if (!usyms_ || !k.stack) return {};
    auto it = raw_.stacks.find(k.stack);
    if (it == raw_.stacks.end()) return {"[lost stack]"};
    return to_frames(usyms_->frames(static_cast<pid_t>(k.tgid), it->second));
  }

 private:
  Stack symbolize(std::uint64_t hash) const {
    auto it = raw_.stacks.find(hash);
    if (!hash || it == raw_.stacks.end()) return {"[lost stack]"};
    Stack frames;
    for (auto ip = it->second.rbegin(); ip != it->second.rend(); ++ip)
      frames.push_back(ksyms_.format(*ip));
    // A stack taken from a tracepoint program starts with the BPF glue that
    // called it (bpf_prog_<tag>_<name>, bpf_trace_run<N>): not the kernel's.
    while (!frames.empty() && is_bpf_glue(frames.back())) frames.pop_back();
    if (frames.empty()) frames.push_back("[lost stack]");
    return frames;
  }

  const RawData& raw_;
  const Kallsyms& ksyms_;
  const UserSymbolizer* usyms_;
  mutable std::unordered_map<std::uint64_t, Stack> cache_;
};

// Different addresses in one function fold into one stack: merge by key.
std::vector<StackSample> convert_samples(const RawData& raw, const Frames& frames) {
  using Key = std::tuple<std::uint32_t, std::string, Stack>;
  std::map<Key, std::uint64_t> merged;
  for (const auto& [k, count] : raw.samples) {
    auto f = k.kind == FSCOST_SK_USER ? frames.user(k) : frames(k.stack);
    merged[{k.kind, bucket_name(k.kind, k.op, k.name), std::move(f)}] += count;
  }
  std::vector<StackSample> out;
  for (auto& [k, count] : merged)
    out.push_back(StackSample{kind_of(std::get<0>(k)), std::get<1>(k), std::get<2>(k), count});
  return out;
}

// k.reason is an enum fscost_block_reason; both enums are the one table.
#define SAME_REASON(id, name) \
  static_assert(static_cast<std::uint32_t>(BlockReason::name) == FSCOST_BLOCK_##id);
FSCOST_BLOCK_REASON_TABLE(SAME_REASON)
#undef SAME_REASON

std::vector<OffCpuStack> convert_offcpu(const RawData& raw, const Frames& frames,
                                        const Kallsyms& ksyms) {
  std::map<std::tuple<std::string, std::string, Stack, Stack, std::string>, OffCpuStack> merged;
  for (const auto& [k, v] : raw.offcpu) {
    OffCpuStack s;
    // op 0 with a bucket: a kworker inside a work item, named with the work
    // function as kernel threads' XFS events are
    std::string bucket = cstr(k.name, sizeof(k.name));
    s.kind = k.op == FSCOST_OP_NONE && !bucket.empty() ? SampleKind::Kthread : SampleKind::Op;
    s.name = s.kind == SampleKind::Kthread ? work_bucket(bucket, k.func, ksyms) : op_string(k.op);
    // A preempted kworker's stack is not taken (sched.bpf.h): none, not lost.
    bool unwalked = s.kind == SampleKind::Kthread && k.reason == FSCOST_BLOCK_RUNQUEUE && !k.stack;
    s.frames = unwalked ? Stack{} : frames(k.stack);
    s.wait_class = classify_wait(static_cast<BlockReason>(k.reason), s.frames);
    if (k.waker_stack) s.waker_frames = frames(k.waker_stack);
    s.waker = cstr(k.waker, sizeof(k.waker));
    s.waker_work = function_name(k.waker_func, ksyms);
    s.waker_last_work = function_name(k.waker_last_func, ksyms);
    // task_bucket names a worker outside a work item by comm: no workqueue then
    if (k.waker_func) s.waker_workqueue = cstr(k.waker_wq, sizeof(k.waker_wq));
    auto& m = merged[{to_string(s.kind) + s.name, s.wait_class, s.frames, s.waker_frames,
                      s.waker + "|" + s.waker_work + "|" + s.waker_last_work + "|" +
                          s.waker_workqueue}];
    if (!m.count) m = std::move(s);
    m.count += v.count;
    m.total_ns += v.total_ns;
  }
  std::vector<OffCpuStack> out;
  for (auto& [k, s] : merged) out.push_back(std::move(s));
  return out;
}

std::vector<LockStat> convert_locks(const RawData& raw, const Frames& frames,
                                    const Kallsyms& ksyms) {
  std::map<std::tuple<std::uint32_t, std::string, std::uint64_t, Stack>, LockStat> merged;
  for (const auto& [k, v] : raw.locks) {
    LockStat s;
    s.kind = kind_of(k.kind);
    s.name = bucket_name(k.kind, k.op, k.name);
    s.address = k.addr;
    if (auto sym = ksyms.lookup_data(k.addr); sym && sym->offset == 0) s.symbol = sym->name;
    s.frames = frames(k.stack);
    auto& m = merged[{k.kind, s.name, s.address, s.frames}];
    if (!m.count) m = std::move(s);
    m.count += v.count;
    m.total_ns += v.total_ns;
    m.max_ns = std::max<std::uint64_t>(m.max_ns, v.max_ns);
    m.spin_ns += v.spin_ns;
    m.sleep_ns += v.sleep_ns;
    m.flags |= static_cast<std::uint32_t>(v.flags);
  }
  std::vector<LockStat> out;
  for (auto& [k, s] : merged) out.push_back(std::move(s));
  return out;
}

std::map<std::string, std::map<std::string, std::uint64_t>> convert_kthread_fs_events(
    const RawData& raw, const Kallsyms& ksyms) {
  std::map<std::string, std::map<std::string, std::uint64_t>> out;
  for (const auto& [k, c] : raw.bg_fs_events) {
    std::string bucket = work_bucket(cstr(k.name, sizeof(k.name)), k.func, ksyms);
    for (const auto& [event, n] : fs_event_map(c)) out[bucket][event] += n;
  }
  return out;
}

std::string holder_kind(std::uint32_t k) {
  switch (k) {
    case FSCOST_HOLDER_BLOCKED: return "blocked";
    case FSCOST_HOLDER_KTHREAD: return "kthread";
    case FSCOST_HOLDER_READERS: return "readers";
    default: return "task";
  }
}

std::vector<LockHolder> convert_holders(const RawData& raw, const Frames& frames,
                                        const Kallsyms& ksyms) {
  std::map<std::tuple<std::string, std::uint64_t, Stack, std::string, std::string, std::string, Stack>,
           LockHolder>
      merged;
  for (const auto& [k, v] : raw.lock_holders) {
    LockHolder h;
    h.op = op_string(k.waiter_op);
    h.address = k.addr;
    if (auto sym = ksyms.lookup_data(k.addr); sym && sym->offset == 0) h.symbol = sym->name;
    h.flags = k.flags;
    h.frames = frames(k.waiter_stack);
    h.holder_kind = holder_kind(k.holder_kind);
    std::string name = cstr(k.holder_name, sizeof(k.holder_name));
    if (k.holder_kind == FSCOST_HOLDER_BLOCKED) {
      h.holder = op_string(k.holder_op);
      h.holder_frames = frames(k.holder_stack);
      h.holder_class =
          classify_wait(static_cast<BlockReason>(k.holder_reason), h.holder_frames);
    } else if (k.holder_kind == FSCOST_HOLDER_KTHREAD) {
      h.holder = work_bucket(name, k.holder_func, ksyms);
    } else if (k.holder_kind == FSCOST_HOLDER_TASK && k.holder_op != FSCOST_OP_NONE) {
      h.holder_kind = "running";  // a tracked task inside an op, not blocked in it
      h.holder = op_string(k.holder_op);
    } else {
      h.holder = name;
    }
    auto& m = merged[{h.op, h.address, h.frames, h.holder_kind, h.holder, h.holder_class,
                      h.holder_frames}];
    if (!m.count) m = std::move(h);
    m.flags |= k.flags;
    m.count += v.count;
    m.total_ns += v.total_ns;
  }
  std::vector<LockHolder> out;
  for (auto& [k, h] : merged) out.push_back(std::move(h));
  return out;
}

// Kernel dev_t (major << 20 | minor) → "loop0", from sysfs.
std::string device_name(std::uint32_t dev) {
  unsigned major = dev >> 20, minor = dev & 0xfffff;
  std::ifstream in(fmt::format("/sys/dev/block/{}:{}/uevent", major, minor));
  for (std::string line; std::getline(in, line);)
    if (line.rfind("DEVNAME=", 0) == 0) return line.substr(8);
  return fmt::format("{}:{}", major, minor);
}

// Named by the drop table, in enum fscost_drop order; the lost stack
// lookups of read_stacks() count with bpf_get_stack's failures.
static_assert(kBpfDropCount == FSCOST_DROP__COUNT);
std::map<std::string, std::uint64_t> convert_drops(const RawData& raw) {
  std::map<std::string, std::uint64_t> out;
  auto bpf = bpf_drop_counters();
  for (std::size_t i = 0; i < bpf.size(); ++i) out[std::string(bpf[i].name)] = raw.drops[i];
  out[std::string(bpf[FSCOST_DROP_STACK_OTHER].name)] += raw.stack_lookups_failed;
  out["prog_missed"] = raw.prog_missed;
  return out;
}

}  // namespace

Profile build_profile(const RawData& raw, const Kallsyms& ksyms, const UserSymbolizer* usyms,
                      Metadata meta, Rusage rusage, std::uint32_t target_dev) {
  Frames frames(raw, ksyms, usyms);
  Profile p;
  p.meta = std::move(meta);
  p.rusage = rusage;
  p.ops = convert_ops(raw);
  p.samples = convert_samples(raw, frames);
  p.offcpu = convert_offcpu(raw, frames, ksyms);
  p.locks = convert_locks(raw, frames, ksyms);
  p.lock_holders = convert_holders(raw, frames, ksyms);
  if (!raw.fs_events.empty()) p.background_fs_events = fs_event_map(raw.fs_events[FSCOST_OP_NONE]);
  p.kthread_fs_events = convert_kthread_fs_events(raw, ksyms);
  for (const auto& [bucket, events] : p.kthread_fs_events)
    for (const auto& [event, n] : events) p.background_fs_events[event] += n;
  p.fs_events_other_fs = raw.fs_events_other_fs;
  static constexpr std::string_view kIoClass[] = {
#define IO_CLASS(id, name) name,
      FSCOST_IO_CLASS_TABLE(IO_CLASS)
#undef IO_CLASS
  };
  for (const auto& [key, bytes] : raw.dev_write_bytes) {
    auto [dev, io_class] = key;
    p.device_write_bytes[device_name(dev)] += bytes;
    if (dev == target_dev && io_class < FSCOST_IO_CLASSES)
      p.fs_write_bytes[std::string(kIoClass[io_class])] += bytes;
  }
  for (const auto& g : raw.prog_stats) p.bpf_programs.push_back({g.name, g.run_cnt, g.run_time_ns});
  p.samples_total = raw.samples_total;
  p.drops = convert_drops(raw);
  if (usyms) p.drops.merge(usyms->drops());  // after every frame was named
  p.prog_missed_by = raw.prog_missed_by;
  for (const auto& fn : raw.functions)
    for (std::uint32_t op = 0; op < fn.per_op.size(); ++op) {
      const auto& s = fn.per_op[op];
      if (s.count || s.timed)
        p.functions.push_back({fn.name, op == FSCOST_OP_NONE ? "" : op_string(op), s.count,
                               s.timed, s.total_ns, s.max_ns});
    }
  return p;
}

}  // namespace fscost
