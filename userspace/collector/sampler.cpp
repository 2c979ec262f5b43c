#include "collector/sampler.h"

#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace fscost {
namespace {

int perf_event_open(perf_event_attr* attr, int cpu) {
  return static_cast<int>(syscall(SYS_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

}  // namespace

CpuSampler::Event::~Event() {
  // A perf link owns its event: bpf_link__destroy disables and closes it.
  // Closing fd again would close whatever another thread opened since.
  if (link) {
    link.reset();
    return;
  }
  if (fd >= 0) close(fd);
}

std::vector<int> online_cpus() {
  std::ifstream in("/sys/devices/system/cpu/online");
  std::string line;
  std::vector<int> cpus;
  if (!std::getline(in, line)) return cpus;
  std::stringstream ss(line);
  std::string range;
  while (std::getline(ss, range, ',')) {
    int lo = 0, hi = 0;
    if (std::sscanf(range.c_str(), "%d-%d", &lo, &hi) == 2) {
      for (int c = lo; c <= hi; ++c) cpus.push_back(c);
    } else if (std::sscanf(range.c_str(), "%d", &lo) == 1) {
      cpus.push_back(lo);
    }
  }
  return cpus;
}

perf_event_attr cpu_clock_attr(std::uint32_t freq_hz) {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.freq = 1;
  attr.sample_freq = freq_hz;
  return attr;
}

Result<CpuSampler> CpuSampler::attach(bpf_program* prog, std::uint32_t freq_hz) {
  CpuSampler s;
  perf_event_attr attr = cpu_clock_attr(freq_hz);
  for (int cpu : online_cpus()) {
    Event ev;
    ev.fd = perf_event_open(&attr, cpu);
    if (ev.fd < 0) {
      int err = errno;
      if (err == ENODEV) continue;  // went offline meanwhile
      return Error{fmt::format("cannot open cpu-clock event on CPU {}: {}", cpu, strerror(err)),
                   err == EACCES || err == EPERM
                       ? "run as root, or grant CAP_PERFMON (kernel.perf_event_paranoid)"
                       : (err == EINVAL ? "lower --freq (kernel.perf_event_max_sample_rate)" : "")};
    }
    ev.link.reset(bpf_program__attach_perf_event(prog, ev.fd));
    if (!ev.link) {
      int err = errno;
      return Error{fmt::format("cannot attach the sampling program on CPU {}: {}", cpu,
                               strerror(err)),
                   "see `fscost features`"};
    }
    s.events_.push_back(std::move(ev));
  }
  if (s.events_.empty()) return Error{"no online CPU to sample on", ""};
  return s;
}

}  // namespace fscost
