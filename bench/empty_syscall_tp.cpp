// empty_syscall_tp -- CMD...: runs CMD with two empty tp_btf programs
// attached to sys_enter and sys_exit (bpf/empty_syscall_tp.bpf.c), so that
// bench/run bpf can time what the syscall tracepoints cost with nothing in
// them: the floor under fscost's own programs there. With --bpf-stats it
// also prints the empty programs' run_cnt and run_time_ns: what bpf_stats'
// own clock reads add to every program's figure.
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "empty_syscall_tp.skel.h"
#include "run_child.h"

namespace {

struct SkelDeleter {
  void operator()(empty_syscall_tp* s) const { empty_syscall_tp__destroy(s); }
};

}  // namespace

int main(int argc, char** argv) {
  int first = 1;
  bool stats = first < argc && std::strcmp(argv[first], "--bpf-stats") == 0;
  if (stats) ++first;
  if (first < argc && std::strcmp(argv[first], "--") == 0) ++first;
  if (first >= argc) {
    std::fprintf(stderr, "usage: empty_syscall_tp [--bpf-stats] -- CMD [ARGS...]\n");
    return 2;
  }
  int stats_fd = stats ? bpf_enable_stats(BPF_STATS_RUN_TIME) : -1;
  if (stats && stats_fd < 0) {
    std::fprintf(stderr, "empty_syscall_tp: bpf_enable_stats: %s\n", std::strerror(errno));
    return 1;
  }
  std::unique_ptr<empty_syscall_tp, SkelDeleter> skel(empty_syscall_tp__open_and_load());
  if (!skel) {
    std::fprintf(stderr, "empty_syscall_tp: load: %s\n", std::strerror(errno));
    return 1;
  }
  if (int err = empty_syscall_tp__attach(skel.get())) {
    std::fprintf(stderr, "empty_syscall_tp: attach: %s\n", std::strerror(-err));
    return 1;
  }
  int status = fscost::bench::run_child("empty_syscall_tp", argv + first);
  if (status < 0) return 1;
  if (stats) {
    for (bpf_program* p : {skel->progs.empty_sys_enter, skel->progs.empty_sys_exit}) {
      bpf_prog_info info{};
      __u32 len = sizeof(info);
      if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) == 0)
        std::fprintf(stderr, "bpf_stats %s %llu %llu\n", bpf_program__name(p),
                     static_cast<unsigned long long>(info.run_cnt),
                     static_cast<unsigned long long>(info.run_time_ns));
    }
    ::close(stats_fd);
  }
  return fscost::bench::exit_code(status);
}
