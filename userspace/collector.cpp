#include "collector.h"

#include <bpf/bpf.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "kernel_features.h"
#include "fscost_bpf.skel.h"
#include "syscall_table.h"

namespace fscost {
namespace {

Error libbpf_error(const char* what, int err) {
  err = err < 0 ? -err : err;
  return Error{fmt::format("{}: {}", what, strerror(err)),
               err == EPERM ? "run as root (needs CAP_BPF and CAP_PERFMON)"
                            : "run `fscost features` to see what this kernel allows"};
}

int set_size(bpf_map* map, std::uint32_t n) { return bpf_map__set_max_entries(map, n); }

}  // namespace

void Collector::SkelDeleter::operator()(::fscost_bpf* s) const { fscost_bpf__destroy(s); }

Collector::~Collector() = default;

Result<std::unique_ptr<Collector>> Collector::load(const CollectorConfig& cfg, const Features& f) {
  std::unique_ptr<Collector> c(new Collector());
  c->cfg_ = cfg;
  c->skel_.reset(fscost_bpf__open());
  if (!c->skel_) return libbpf_error("cannot open the BPF object", errno);
  auto* s = c->skel_.get();

  s->rodata->trace_all = cfg.trace_all;
  s->rodata->self_tgid = static_cast<__u32>(getpid());
  if (set_size(s->maps.stacks, cfg.stack_storage) || set_size(s->maps.samples, cfg.max_stacks) ||
      set_size(s->maps.tasks, cfg.max_threads) || set_size(s->maps.tracked, cfg.max_procs))
    return Error{"cannot size the BPF maps", "check --stack-storage-size/--max-* values"};

  // One flavour per sched hook: tp_btf where the kernel has it, else raw_tp.
  c->btf_flavour_ = f.tp_btf;
  bool btf = c->btf_flavour_;
  bpf_program__set_autoload(s->progs.sys_enter_btf, btf);
  bpf_program__set_autoload(s->progs.sys_exit_btf, btf);
  bpf_program__set_autoload(s->progs.sys_enter_raw, !btf);
  bpf_program__set_autoload(s->progs.sys_exit_raw, !btf);
  bpf_program__set_autoload(s->progs.switch_btf, btf);
  bpf_program__set_autoload(s->progs.fork_btf, btf);
  bpf_program__set_autoload(s->progs.exit_btf, btf);
  bpf_program__set_autoload(s->progs.switch_raw, !btf);
  bpf_program__set_autoload(s->progs.fork_raw, !btf);
  bpf_program__set_autoload(s->progs.exit_raw, !btf);

  if (int err = fscost_bpf__load(s)) return libbpf_error("cannot load the BPF programs", err);
  if (auto r = c->fill_syscall_rules(); !r) return r.error();
  return c;
}

Result<std::monostate> Collector::fill_syscall_rules() {
  auto rules = bpf_syscall_rules();
  int fd = bpf_map__fd(skel_->maps.syscall_rules);
  for (__u32 nr = 0; nr < rules.size(); ++nr) {
    if (bpf_map_update_elem(fd, &nr, &rules[nr], BPF_ANY))
      return libbpf_error("cannot fill the syscall table map", errno);
  }
  return std::monostate{};
}

Result<std::monostate> Collector::track(pid_t tgid) {
  __u32 key = static_cast<__u32>(tgid);
  __u8 one = 1;
  if (bpf_map_update_elem(bpf_map__fd(skel_->maps.tracked), &key, &one, BPF_ANY))
    return libbpf_error("cannot add the target to the tracked map", errno);
  return std::monostate{};
}

Result<std::monostate> Collector::attach() {
  if (int err = fscost_bpf__attach(skel_.get())) return libbpf_error("cannot attach probes", err);
  const char* flavour = btf_flavour_ ? "tp_btf" : "raw_tp";
  probes_ = {fmt::format("raw_syscalls:sys_enter ({})", flavour),
             fmt::format("raw_syscalls:sys_exit ({})", flavour),
             fmt::format("sched:sched_switch ({})", flavour),
             fmt::format("sched:sched_process_fork ({})", flavour),
             fmt::format("sched:sched_process_exit ({})", flavour)};
  auto sampler = CpuSampler::attach(skel_->progs.on_sample, cfg_.freq_hz);
  if (!sampler) return sampler.error();
  probes_.push_back(fmt::format("cpu-clock {} Hz on {} CPUs (perf_event)", cfg_.freq_hz,
                                sampler.value().cpus()));
  sampler_.emplace(std::move(sampler).value());
  return std::monostate{};
}

void Collector::enable(bool on) {
  // Plain store: handlers read it on their next run; ordering is not needed.
  skel_->bss->enabled = on;
}

}  // namespace fscost
