// cpu-clock sampling on every online CPU, each event running the BPF
// perf_event program. Software clock: this kernel has no hardware PMU.
#pragma once

#include <bpf/libbpf.h>
#include <linux/perf_event.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "model/result.h"

namespace fscost {

class CpuSampler {
 public:
  static Result<CpuSampler> attach(bpf_program* prog, std::uint32_t freq_hz);

  std::size_t cpus() const { return events_.size(); }

 private:
  struct Event {
    struct LinkDeleter {
      void operator()(bpf_link* l) const { bpf_link__destroy(l); }
    };
    int fd = -1;
    std::unique_ptr<bpf_link, LinkDeleter> link;
    Event() = default;
    Event(Event&& o) noexcept : fd(std::exchange(o.fd, -1)), link(std::move(o.link)) {}
    Event& operator=(Event&&) = delete;
    ~Event();
  };
  std::vector<Event> events_;
};

// The sampling event: cpu-clock at freq_hz per CPU (bench/empty_hooks opens
// the same one under an empty program).
perf_event_attr cpu_clock_attr(std::uint32_t freq_hz);

// CPUs listed in /sys/devices/system/cpu/online.
std::vector<int> online_cpus();

}  // namespace fscost
