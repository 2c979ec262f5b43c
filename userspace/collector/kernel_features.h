// What the running kernel lets fscost do, found by trying it (load a tiny
// program of each flavour, open a perf event, look for tracepoints), never by
// comparing kernel versions. Model: bpftrace src/bpffeature.h.
//
// Plain data: code that decides on features takes a const Features&, so tests
// can hand-build one for any kernel.
//
// Not named features.h: userspace/ is an -I directory, where that name would
// shadow glibc's <features.h> for every system header.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/result.h"

namespace fscost {

enum class FeatureScope { All, Record };

struct Features {
  bool root = false;          // euid 0
  bool can_load_bpf = false;  // a plain tracepoint program loads
  bool btf = false;           // /sys/kernel/btf/vmlinux: CO-RE and tp_btf
  bool tracefs = false;
  std::string tracefs_root;  // where tracefs is mounted, when tracefs
  std::string tracefs_note;  // set when fscost had to mount it

  // Program flavours: loaded and attached.
  bool tracepoint_prog = false;
  bool raw_tp = false;
  bool tp_btf = false;
  bool fentry = false;
  bool kprobes = false;
  bool perf_event_prog = false;

  bool perf_event_cpu_clock = false;  // perf_event_open(cpu-clock) on CPU 0

  // Map types.
  bool stack_trace_map = false;
  bool ringbuf = false;
  bool task_storage = false;
  // Task storage allocates from BPF's own allocator (bpf_mem_alloc, Linux
  // 6.4), not kmalloc: a tp_btf program may create a thread's state inside a
  // lock's slow path or a context switch. Before, that kmalloc can wait on
  // the very allocator lock being contended (a deadlock), so record uses the
  // raw_tp flavour and its preallocated hash there.
  bool task_storage_in_locks = false;

  bool kallsyms = false;       // real addresses in /proc/kallsyms
  bool kallsyms_data = false;  // vmlinux data objects listed (static lock names)

  // "category:event" → present in tracefs, for every probed_tracepoints() entry.
  std::map<std::string, bool> tracepoints;
  // Feature key (see describe()) or "category:event" → why it is false.
  std::map<std::string, std::string> why;

  // Probes this kernel now (mounts tracefs if needed; silences libbpf).
  // FeatureScope::Record leaves out what record does not use (fentry,
  // kprobes, attaching a plain tracepoint program, kallsyms data objects):
  // they cost ~200 ms, every record and every compare run.
  static Features probe(FeatureScope scope = FeatureScope::All);
  // probe() once per process; later calls return the same object.
  static const Features& get();
  // probe(FeatureScope::Record), once per process.
  static const Features& for_record();

  bool has_tracepoint(std::string_view category_event) const;
  // why.at(key), or "" when there is no reason recorded.
  std::string reason(const std::string& key) const;
};

// The tracepoints probe() looks for, as "category:event".
const std::vector<std::string>& probed_tracepoints();

// The `fscost features` table: every feature, yes/no and, for a no, why; then
// whether `fscost record` can run.
std::string describe(const Features& f);

// What `fscost record` cannot do without: the first missing capability as
// one message with a hint (not root, no BPF, no BTF, no tracefs, a missing
// syscall/sched tracepoint, no perf events, hidden kallsyms).
Result<std::monostate> check_can_record(const Features& f);

}  // namespace fscost
