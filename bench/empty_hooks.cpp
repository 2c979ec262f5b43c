// empty_hooks [--probes SPEC] [--freq HZ] -- CMD...: runs CMD with an empty
// BPF program (r0 = 0; exit) on every hook `fscost record --probes SPEC`
// attaches here: the same table (collector/hooks.h), the same tp_btf
// flavour, the same rule for absent tracepoints, and a cpu-clock sampler at
// the same frequency. bpf_stats is on; at exit each program's run_cnt and
// run_time_ns go to stderr as "bpf_stats <fscost's program name> <runs> <ns>".
//
// bench/run bpf's floor per probe set: what the kernel's dispatch and
// bpf_stats' own clock reads cost on those hooks with nothing in them, which
// no program of fscost's can go under (docs/PERFORMANCE.md).
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "collector/hooks.h"
#include "collector/sampler.h"
#include "collector/tracefs.h"
#include "system/subprocess.h"  // UniqueFd
#include "run_child.h"

namespace {

using fscost::UniqueFd;

struct Program {
  std::string name;  // as fscost's BPF object names the program this stands in for
  UniqueFd prog;
};

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "empty_hooks: %s\n", msg.c_str());
  std::exit(1);
}

UniqueFd load_empty(bpf_prog_type type, const bpf_prog_load_opts* opts, const std::string& name) {
  bpf_insn insns[2]{};
  insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K;  // r0 = 0
  insns[0].dst_reg = BPF_REG_0;
  insns[1].code = BPF_JMP | BPF_EXIT;
  // The kernel keeps 15 characters of a program's name; stderr has the whole.
  int fd = bpf_prog_load(type, name.substr(0, 15).c_str(), "GPL", insns, 2, opts);
  if (fd < 0) die(fmt::format("loading an empty program for {}: {}", name, std::strerror(errno)));
  return UniqueFd(fd);
}

// An empty tp_btf program for category:event, loaded, not yet attached.
Program load_tracepoint(const fscost::Hook& h, const btf* vmlinux) {
  std::string event(h.event);
  int btf_id = btf__find_by_name_kind(vmlinux, fmt::format("btf_trace_{}", event).c_str(),
                                      BTF_KIND_TYPEDEF);
  if (btf_id < 0) die(fmt::format("no BTF for tracepoint {}: {}", event, std::strerror(-btf_id)));
  LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_RAW_TP,
              .attach_btf_id = static_cast<__u32>(btf_id));
  std::string name = fmt::format("{}_btf", h.program);
  return {name, load_empty(BPF_PROG_TYPE_TRACING, &opts, name)};
}

void attach_tracepoint(const Program& p, std::vector<UniqueFd>& links) {
  int link = bpf_raw_tracepoint_open(nullptr, p.prog.get());
  if (link < 0) die(fmt::format("attaching {}: {}", p.name, std::strerror(errno)));
  links.emplace_back(link);
}

// An empty perf_event program on a cpu-clock event per CPU, as the sampler.
Program attach_sampler(std::uint32_t freq, std::vector<UniqueFd>& links) {
  Program p{"on_sample", load_empty(BPF_PROG_TYPE_PERF_EVENT, nullptr, "on_sample")};
  perf_event_attr attr = fscost::cpu_clock_attr(freq);
  for (int cpu : fscost::online_cpus()) {
    int fd = static_cast<int>(
        ::syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
    if (fd < 0 && errno == ENODEV) continue;  // went offline meanwhile
    if (fd < 0) die(fmt::format("cpu-clock event on CPU {}: {}", cpu, std::strerror(errno)));
    links.emplace_back(fd);
    if (::ioctl(fd, PERF_EVENT_IOC_SET_BPF, p.prog.get()) ||
        ::ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
      die(fmt::format("attaching the sampler on CPU {}: {}", cpu, std::strerror(errno)));
  }
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  std::string spec = "default";
  std::uint32_t freq = 997;  // fscost record's default (collector.h)
  int first = 1;
  for (; first < argc && std::strcmp(argv[first], "--") != 0; ++first) {
    if (!std::strcmp(argv[first], "--probes") && first + 1 < argc)
      spec = argv[++first];
    else if (!std::strcmp(argv[first], "--freq") && first + 1 < argc)
      freq = static_cast<std::uint32_t>(std::strtoul(argv[++first], nullptr, 10));
    else
      break;
  }
  if (first >= argc || std::strcmp(argv[first], "--") != 0 || first + 1 >= argc) {
    std::fprintf(stderr, "usage: empty_hooks [--probes SPEC] [--freq HZ] -- CMD [ARGS...]\n");
    return 2;
  }
  ++first;
  auto groups = fscost::parse_probe_groups(spec);
  if (!groups) die(groups.error().message);
  std::string note;
  auto tracefs = fscost::ensure_tracefs(&note);
  if (!tracefs) die(tracefs.error().message);

  UniqueFd stats(bpf_enable_stats(BPF_STATS_RUN_TIME));
  if (stats.get() < 0) die(fmt::format("bpf_enable_stats: {}", std::strerror(errno)));
  // Everything is loaded before anything is attached: loading's own syscalls
  // (BTF reads, program loads) would otherwise run the programs attached first.
  std::unique_ptr<btf, decltype(&btf__free)> vmlinux(btf__load_vmlinux_btf(), &btf__free);
  if (!vmlinux) die(fmt::format("cannot load the kernel's BTF: {}", std::strerror(errno)));
  std::vector<Program> progs;
  for (const auto& h : fscost::hooks())
    if (groups.value().enabled(h.group) &&
        fscost::tracepoint_exists(tracefs.value(), h.category, h.event))
      progs.push_back(load_tracepoint(h, vmlinux.get()));
  vmlinux.reset();
  std::vector<UniqueFd> links;  // destroyed first: detach before the programs close
  for (const Program& p : progs) attach_tracepoint(p, links);
  progs.push_back(attach_sampler(freq, links));

  int status = fscost::bench::run_child("empty_hooks", argv + first);
  if (status < 0) return 1;
  links.clear();
  for (const Program& p : progs) {
    bpf_prog_info info{};
    __u32 len = sizeof(info);
    if (bpf_obj_get_info_by_fd(p.prog.get(), &info, &len) == 0)
      std::fprintf(stderr, "bpf_stats %s %llu %llu\n", p.name.c_str(),
                   static_cast<unsigned long long>(info.run_cnt),
                   static_cast<unsigned long long>(info.run_time_ns));
  }
  return fscost::bench::exit_code(status);
}
