// Draining the kernel-side aggregates once the recording has stopped.
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include <algorithm>

#include "collector.h"
#include "fscost_bpf.skel.h"

namespace fscost {
namespace {

std::vector<fscost_op_stats> read_op_stats(int fd) {
  int ncpu = libbpf_num_possible_cpus();
  std::vector<fscost_op_stats> out(FSCOST_MAX_OPS);
  std::vector<fscost_op_stats> percpu(ncpu > 0 ? ncpu : 1);
  for (__u32 op = 0; op < FSCOST_MAX_OPS; ++op) {
    if (bpf_map_lookup_elem(fd, &op, percpu.data())) continue;
    auto& sum = out[op];
    for (const auto& c : percpu) {
      sum.count += c.count;
      sum.errors += c.errors;
      sum.wall_ns += c.wall_ns;
      sum.oncpu_ns += c.oncpu_ns;
      for (int b = 0; b < FSCOST_LAT_BUCKETS; ++b) sum.lat[b] += c.lat[b];
    }
  }
  return out;
}

bool read_stack(int fd, __u64 key, std::vector<std::uint64_t>& out) {
  fscost_stack st{};
  if (bpf_map_lookup_elem(fd, &key, &st)) return false;
  out.assign(st.ips, st.ips + std::min<__u32>(st.depth, FSCOST_STACK_DEPTH));
  return true;
}

std::uint64_t prog_missed(const bpf_object* obj) {
  std::uint64_t missed = 0;
  bpf_program* prog;
  bpf_object__for_each_program(prog, obj) {
    int fd = bpf_program__fd(prog);
    if (fd < 0) continue;  // not loaded (other attach flavour)
    bpf_prog_info info{};
    __u32 len = sizeof(info);
    if (!bpf_obj_get_info_by_fd(fd, &info, &len)) missed += info.recursion_misses;
  }
  return missed;
}

}  // namespace

RawData Collector::read() const {
  RawData d;
  d.ops = read_op_stats(bpf_map__fd(skel_->maps.op_stats));
  for (int i = 0; i < FSCOST_DROP__COUNT; ++i) d.drops[i] = skel_->bss->drops[i];
  d.samples_total = skel_->bss->samples_total;
  d.prog_missed = prog_missed(skel_->obj);

  int samples_fd = bpf_map__fd(skel_->maps.samples);
  int stacks_fd = bpf_map__fd(skel_->maps.stacks);
  fscost_sample_key key{}, next{};
  const fscost_sample_key* prev = nullptr;
  while (bpf_map_get_next_key(samples_fd, prev, &next) == 0) {
    RawSample s;
    s.key = next;
    if (bpf_map_lookup_elem(samples_fd, &next, &s.count) == 0) {
      if (next.kstack && !read_stack(stacks_fd, next.kstack, s.kstack))
        ++d.stack_lookups_failed;
      d.samples.push_back(std::move(s));
    }
    key = next;
    prev = &key;
  }
  return d;
}

}  // namespace fscost
