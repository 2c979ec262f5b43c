// Draining the kernel-side aggregates once the recording has stopped.
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include <algorithm>

#include "collector/collector.h"
#include "collector/hooks.h"
#include "collector/map_read.h"
#include "fscost_bpf.skel.h"

namespace fscost {
namespace {

int possible_cpus() {
  int n = libbpf_num_possible_cpus();
  return n > 0 ? n : 1;
}

// A per-CPU array of `n` entries, each summed over CPUs by `add`.
template <typename V, typename Add>
std::vector<V> read_percpu_array(int fd, std::uint32_t n, Add add) {
  std::vector<V> out(n), percpu(possible_cpus());
  for (__u32 i = 0; i < n; ++i) {
    if (bpf_map_lookup_elem(fd, &i, percpu.data())) continue;
    for (const auto& c : percpu) add(out[i], c);
  }
  return out;
}

void add_op_stats(fscost_op_stats& sum, const fscost_op_stats& c) {
  if (c.count && (!sum.count || c.trans_min < sum.trans_min)) sum.trans_min = c.trans_min;
  sum.trans_max = std::max(sum.trans_max, c.trans_max);
  sum.count += c.count;
  sum.errors += c.errors;
  sum.wall_ns += c.wall_ns;
  sum.oncpu_ns += c.oncpu_ns;
  sum.offcpu_ns += c.offcpu_ns;
  for (int b = 0; b < FSCOST_LAT_BUCKETS; ++b) sum.lat[b] += c.lat[b];
}

void add_fs_events(fscost_fs_event_counts& sum, const fscost_fs_event_counts& c) {
  for (int i = 0; i < FSCOST_FS_EVENTS; ++i) sum.n[i] += c.n[i];
}

// Every stack hash the aggregates refer to, read once.
void read_stacks(int fd, RawData& d) {
  auto want = [&](std::uint64_t h) {
    if (!h || d.stacks.count(h)) return;
    fscost_stack st{};
    if (bpf_map_lookup_elem(fd, &h, &st)) {
      ++d.stack_lookups_failed;
      return;
    }
    d.stacks[h].assign(st.ips, st.ips + std::min<__u32>(st.depth, FSCOST_STACK_DEPTH));
  };
  for (const auto& [k, v] : d.samples) want(k.stack);
  for (const auto& [k, v] : d.offcpu) {
    want(k.stack);
    want(k.waker_stack);
  }
  for (const auto& [k, v] : d.locks) want(k.stack);
  for (const auto& [k, v] : d.lock_holders) {
    want(k.waiter_stack);
    want(k.holder_stack);
  }
}

}  // namespace

std::map<std::string, Collector::ProgCounters> Collector::program_counters() const {
  std::map<std::string, ProgCounters> out;
  std::vector<bpf_object*> objects{skel_->obj};
  if (timer_)
    for (bpf_object* o : timer_->objects()) objects.push_back(o);
  for (bpf_object* obj : objects) {
    bpf_program* prog;
    bpf_object__for_each_program(prog, obj) {
      int fd = bpf_program__fd(prog);
      if (fd < 0) continue;  // not loaded (other flavour, group off, slot unused)
      bpf_prog_info info{};
      __u32 len = sizeof(info);
      if (bpf_obj_get_info_by_fd(fd, &info, &len)) continue;
      out[bpf_program__name(prog)] = {info.run_cnt, info.run_time_ns, info.recursion_misses};
    }
  }
  return out;
}

RawData Collector::read() const {
  const auto& m = skel_->maps;
  RawData d;
  d.ops = read_percpu_array<fscost_op_stats>(bpf_map__fd(m.op_stats), FSCOST_MAX_OPS, add_op_stats);
  d.fs_events = read_percpu_array<fscost_fs_event_counts>(bpf_map__fd(m.fs_event_counts),
                                                          FSCOST_MAX_OPS, add_fs_events);
  d.samples = read_hash<fscost_sample_key, std::uint64_t>(bpf_map__fd(m.samples));
  d.offcpu = read_hash<fscost_offcpu_key, fscost_offcpu_val>(bpf_map__fd(m.offcpu));
  d.locks = read_hash<fscost_lock_key, fscost_lock_val>(bpf_map__fd(m.lock_stats));
  d.lock_holders = read_hash<fscost_holder_key, fscost_offcpu_val>(bpf_map__fd(m.lock_holders));
  d.bg_fs_events = read_hash<fscost_bg_key, fscost_fs_event_counts>(bpf_map__fd(m.bg_fs_events));
  for (auto& [key, bytes] : read_hash<fscost_dev_key, __u64>(bpf_map__fd(m.dev_write_bytes)))
    d.dev_write_bytes[{key.dev, key.io_class}] = bytes;
  read_stacks(bpf_map__fd(m.stacks), d);
  // The skeleton's view of the array: sized by the same enum.
  static_assert(sizeof(skel_->bss->drops) == sizeof(d.drops));
  std::copy(std::begin(skel_->bss->drops), std::end(skel_->bss->drops), d.drops.begin());
  if (timer_) d.functions = timer_->read(d.drops);
  d.samples_total = skel_->bss->samples_total;
  d.fs_events_other_fs = skel_->bss->fs_events_other_fs;
  // Recursion misses of every program, and with bpf_stats their run counts
  // and time: since the last reset().
  for (const auto& [name, now] : program_counters()) {
    auto base = prog_base_.find(name);
    ProgCounters b = base == prog_base_.end() ? ProgCounters{} : base->second;
    d.prog_missed += now.missed - b.missed;
    if (now.missed > b.missed) d.prog_missed_by[probe_of_program(name)] += now.missed - b.missed;
    if (stats_fd_) d.prog_stats.push_back({name, now.run_cnt - b.run_cnt, now.run_time_ns - b.run_time_ns});
  }
  return d;
}

}  // namespace fscost
