#include "collector/kernel_features.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include <string_view>

#include "symbols/kallsyms.h"
#include "collector/libbpf_log.h"
#include "probe.skel.h"
#include "collector/tracefs.h"

namespace fscost {
namespace {

constexpr const char* kNoBpfWhy =
    "not permitted to load BPF programs: need root, or CAP_BPF + CAP_PERFMON";
constexpr const char* kKprobePmu = "/sys/bus/event_source/devices/kprobe/type";

// The `fscost features` rows, in print order. Keys double as `why` keys.
struct Row {
  const char* key;
  bool Features::*member;
};
constexpr Row kRows[] = {
    {"root", &Features::root},
    {"bpf", &Features::can_load_bpf},
    {"btf", &Features::btf},
    {"tracefs", &Features::tracefs},
    {"tracepoint", &Features::tracepoint_prog},
    {"raw_tp", &Features::raw_tp},
    {"tp_btf", &Features::tp_btf},
    {"fentry", &Features::fentry},
    {"kprobes", &Features::kprobes},
    {"perf_event", &Features::perf_event_prog},
    {"cpu-clock", &Features::perf_event_cpu_clock},
    {"stack_trace map", &Features::stack_trace_map},
    {"ringbuf", &Features::ringbuf},
    {"task_storage", &Features::task_storage},
    {"task_storage in locks", &Features::task_storage_in_locks},
    {"kallsyms", &Features::kallsyms},
    {"kallsyms data", &Features::kallsyms_data},
};

// One program of bpf/probe.bpf.c per flavour.
struct ProgProbe {
  const char* key;
  const char* prog;
  bool Features::*member;
  bool for_record;  // fscost record attaches this flavour
};
constexpr ProgProbe kProgProbes[] = {
    {"raw_tp", "probe_raw_tp", &Features::raw_tp, true},
    {"tp_btf", "probe_tp_btf", &Features::tp_btf, true},
    {"fentry", "probe_fentry", &Features::fentry, false},
    {"kprobes", "probe_kprobe", &Features::kprobes, false},
};

// What a record-scoped probe leaves out: `fscost features` probes it.
constexpr const char* kNotForRecord = "not probed by fscost record (see `fscost features`)";

struct SkelDeleter {
  void operator()(probe* p) const { probe__destroy(p); }
};
struct LinkDeleter {
  void operator()(bpf_link* l) const { bpf_link__destroy(l); }
};
struct FdCloser {
  int fd = -1;
  ~FdCloser() {
    if (fd >= 0) close(fd);
  }
};

struct Outcome {
  bool loaded = false;
  bool attached = false;
  int err = 0;  // positive errno of the failing step
  std::string why;
};

// Loads `progs` of the probe object together, then attaches each but
// `load_only` (probe_perf_event to `perf_fd`); the object is gone again on
// return. One load is one parse of the kernel's BTF (~25 ms). When the load
// fails, every program gets that failure.
std::map<std::string, Outcome> try_programs(const std::vector<std::string>& progs, int perf_fd,
                                            const std::string& load_only = {}) {
  std::map<std::string, Outcome> out;
  auto all = [&](Outcome o) {
    for (const auto& name : progs) out[name] = o;
    return out;
  };
  std::unique_ptr<probe, SkelDeleter> skel(probe__open());
  if (!skel)
    return all({false, false, errno, fmt::format("cannot open the probe object: {}", strerror(errno))});
  std::map<std::string, bpf_program*> target;
  bpf_program* p;
  bpf_object__for_each_program(p, skel->obj) {
    bool wanted = std::find(progs.begin(), progs.end(), bpf_program__name(p)) != progs.end();
    bpf_program__set_autoload(p, wanted);
    if (wanted) target[bpf_program__name(p)] = p;
  }
  if (target.size() != progs.size())
    return all({false, false, ENOENT, "a program is missing from probe.bpf.c"});
  if (int err = probe__load(skel.get()))
    return all({false, false, -err, fmt::format("program load: {}", strerror(-err))});
  for (const auto& [name, prog] : target) {
    if (name == load_only) {
      out[name] = {true, false, 0, kNotForRecord};
      continue;
    }
    bool perf = name == "probe_perf_event";
    // A perf link owns (and closes) the event it is given: give it its own
    // descriptor, so the caller's is closed once, by the caller.
    FdCloser own{perf ? fcntl(perf_fd, F_DUPFD_CLOEXEC, 0) : -1};
    std::unique_ptr<bpf_link, LinkDeleter> link(perf ? bpf_program__attach_perf_event(prog, own.fd)
                                                     : bpf_program__attach(prog));
    if (link && perf) own.fd = -1;
    out[name] = link ? Outcome{true, true, 0, {}}
                     : Outcome{true, false, errno, fmt::format("attach: {}", strerror(errno))};
  }
  return out;
}

// One program alone, so that a refusal names exactly its flavour.
Outcome try_program(const char* prog, int perf_fd = -1, bool attach = true) {
  return try_programs({prog}, perf_fd, attach ? "" : prog).at(prog);
}

int open_cpu_clock(std::string* why) {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.sample_period = 1000000;
  attr.disabled = 1;
  int fd = static_cast<int>(
      syscall(SYS_perf_event_open, &attr, -1 /* pid */, 0 /* cpu */, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd >= 0) return fd;
  int err = errno;
  *why = fmt::format("perf_event_open(cpu-clock): {}", strerror(err));
  if (err == EACCES || err == EPERM) {
    std::ifstream f("/proc/sys/kernel/perf_event_paranoid");
    std::string level;
    f >> level;
    *why += fmt::format(" (kernel.perf_event_paranoid={}; need root or CAP_PERFMON)", level);
  } else if (err == ENOSYS) {
    *why += " (CONFIG_PERF_EVENTS off?)";
  }
  return -1;
}

// Why category:event is absent. tracefs is root-only (0700), so without root
// "missing" would often be a lie.
std::string tracepoint_why(const Features& f, const std::string& cat, const std::string& event) {
  if (!f.tracefs) return "tracefs unavailable";
  std::string dir = f.tracefs_root + "/events/" + cat;
  if (access(dir.c_str(), F_OK) == 0) return fmt::format("no {}/{}", dir, event);
  if (errno != ENOENT) return fmt::format("cannot read {}: {}", dir, strerror(errno));
  return fmt::format("no {}{}", dir, cat == "xfs" ? " (xfs module not loaded?)" : "");
}

void probe_tracepoints(Features& f) {
  for (const auto& tp : probed_tracepoints()) {
    size_t colon = tp.find(':');
    std::string cat = tp.substr(0, colon), event = tp.substr(colon + 1);
    bool ok = f.tracefs && tracepoint_exists(f.tracefs_root, cat, event);
    f.tracepoints[tp] = ok;
    if (!ok) f.why[tp] = tracepoint_why(f, cat, event);
  }
}

// The plain tracepoint program decides whether BPF loads at all. For
// record it is only loaded: detaching a "tracepoint/" program waits ~90 ms
// for an RCU grace period, and record attaches none.
void probe_programs(Features& f, int perf_fd, FeatureScope scope) {
  ScopedLibbpfQuiet quiet;
  bool record = scope == FeatureScope::Record;
  // Record loads the programs it uses in one object (one BTF parse); each
  // is tried alone when that fails, and for `fscost features`, so that a
  // refusal names its flavour.
  std::map<std::string, Outcome> together;
  if (record) {
    std::vector<std::string> progs = {"probe_tracepoint"};
    if (perf_fd >= 0) progs.push_back("probe_perf_event");
    for (const auto& p : kProgProbes)
      if (p.for_record) progs.push_back(p.prog);
    together = try_programs(progs, perf_fd, "probe_tracepoint");
    if (!together.at(progs[0]).loaded) together.clear();
  }
  auto outcome = [&](const char* prog, int fd, bool attach) {
    auto it = together.find(prog);
    return it != together.end() ? it->second : try_program(prog, fd, attach);
  };
  Outcome tp = outcome("probe_tracepoint", -1, !record);
  f.can_load_bpf = tp.loaded;
  f.tracepoint_prog = tp.attached;
  if (!tp.loaded) f.why["bpf"] = tp.err == EPERM ? kNoBpfWhy : tp.why;
  if (!tp.attached) f.why["tracepoint"] = tp.why;
  for (const auto& p : kProgProbes) {
    if (!f.can_load_bpf) {
      f.why[p.key] = "BPF unavailable";
      continue;
    }
    if (record && !p.for_record) {
      f.why[p.key] = kNotForRecord;
      continue;
    }
    Outcome o = outcome(p.prog, -1, true);
    f.*p.member = o.attached;
    if (!o.attached) f.why[p.key] = o.why;
  }
  // Without the PMU (CONFIG_KPROBES off) the attach error is a bare ENOENT.
  if (!record && !f.kprobes && access(kKprobePmu, F_OK) != 0)
    f.why["kprobes"] =
        "no kprobe PMU: /sys/bus/event_source/devices/kprobe missing; CONFIG_KPROBES off?";

  if (!f.can_load_bpf || perf_fd < 0) {
    f.why["perf_event"] = !f.can_load_bpf ? "BPF unavailable" : "no cpu-clock perf event";
  } else {
    Outcome o = outcome("probe_perf_event", perf_fd, true);
    f.perf_event_prog = o.attached;
    if (!o.attached) f.why["perf_event"] = o.why;
  }
}

void probe_map(Features& f, const char* key, bool Features::*member, bpf_map_type type) {
  int ret = libbpf_probe_bpf_map_type(type, nullptr);
  f.*member = ret == 1;
  if (ret == 0) f.why[key] = "map type not supported by this kernel";
  if (ret < 0) f.why[key] = fmt::format("map probe failed: {}", strerror(-ret));
}

// Whether task storage's elements come from bpf_mem_alloc: its map then
// has the allocator's members (bpf_ma, selem_ma; 6.18 has both, 6.1
// neither). Read from the kernel's BTF, not its version, so that a
// backport counts; a layout this does not know reads as "no", the safe
// side (the raw_tp flavour).
void probe_storage_allocator(Features& f) {
  const char* key = "task_storage in locks";
  if (!f.task_storage) {
    f.why[key] = "no task storage";
    return;
  }
  std::unique_ptr<btf, void (*)(btf*)> vmlinux(btf__load_vmlinux_btf(), btf__free);
  if (!vmlinux) {
    f.why[key] = "cannot read the kernel's BTF";
    return;
  }
  const btf* b = vmlinux.get();
  int id = btf__find_by_name_kind(b, "bpf_local_storage_map", BTF_KIND_STRUCT);
  const btf_type* t = id > 0 ? btf__type_by_id(b, id) : nullptr;
  if (t) {
    const btf_member* m = btf_members(t);
    for (int i = 0; i < btf_vlen(t); ++i, ++m) {
      std::string_view name = btf__name_by_offset(b, m->name_off);
      if (name == "bpf_ma" || name == "selem_ma") {
        f.task_storage_in_locks = true;
        return;
      }
    }
  }
  f.why[key] =
      "task storage allocates with kmalloc (as before Linux 6.4): a thread's state created in a "
      "lock's slow path could deadlock, so record keeps it in the raw_tp flavour's hash";
}

void probe_maps(Features& f) {
  if (!f.can_load_bpf) {  // map creation would fail with EPERM, not "unsupported"
    for (const char* key : {"stack_trace map", "ringbuf", "task_storage", "task_storage in locks"})
      f.why[key] = "BPF unavailable";
    return;
  }
  ScopedLibbpfQuiet quiet;
  probe_map(f, "stack_trace map", &Features::stack_trace_map, BPF_MAP_TYPE_STACK_TRACE);
  probe_map(f, "ringbuf", &Features::ringbuf, BPF_MAP_TYPE_RINGBUF);
  probe_map(f, "task_storage", &Features::task_storage, BPF_MAP_TYPE_TASK_STORAGE);
  probe_storage_allocator(f);
}

// Record needs only to know that addresses are visible (it reads the
// table after the run): the first lines say it, where parsing all of
// /proc/kallsyms costs ~50 ms of the kernel formatting it.
void probe_kallsyms_visible(Features& f) {
  std::ifstream in("/proc/kallsyms");
  std::string addr, rest;
  int lines = 0;
  while (lines < 16 && in >> addr && std::getline(in, rest)) {
    ++lines;
    if (addr.find_first_not_of('0') != std::string::npos) {
      f.kallsyms = true;
      break;
    }
  }
  if (!f.kallsyms)
    f.why["kallsyms"] = lines ? "every address in /proc/kallsyms is 0 (kptr_restrict, or not root)"
                              : "cannot read /proc/kallsyms";
  f.why["kallsyms data"] = kNotForRecord;
}

void probe_kallsyms(Features& f) {
  auto k = Kallsyms::load();
  f.kallsyms = static_cast<bool>(k);
  if (!k) {
    f.why["kallsyms"] = k.error().message;
    f.why["kallsyms data"] = "no kallsyms";
    return;
  }
  f.kallsyms_data = k.value().has_data_symbols();
  if (!f.kallsyms_data)
    f.why["kallsyms data"] =
        "CONFIG_KALLSYMS_ALL off: vmlinux lists no data objects, so static locks stay unnamed";
}

// FSCOST_DISABLE_FEATURES=key,...: report those features as absent, so the
// fallbacks (raw_tp, the hash of per-thread state) can be tested on a kernel
// that has everything.
void apply_disabled(Features& f) {
  const char* env = std::getenv("FSCOST_DISABLE_FEATURES");
  if (!env) return;
  std::string_view list = env;
  for (const auto& row : kRows) {
    std::string_view key = row.key;
    for (std::size_t pos = 0; pos <= list.size();) {
      std::size_t end = std::min(list.find(',', pos), list.size());
      if (list.substr(pos, end - pos) == key) {
        f.*row.member = false;
        f.why[row.key] = "disabled by FSCOST_DISABLE_FEATURES";
      }
      pos = end + 1;
    }
  }
}

}  // namespace

const std::vector<std::string>& probed_tracepoints() {
  static const std::vector<std::string> kList = {
      "raw_syscalls:sys_enter",   "raw_syscalls:sys_exit",    "sched:sched_switch",
      "sched:sched_process_fork", "sched:sched_process_exit", "sched:sched_waking",
      "sched:sched_wakeup",       "lock:contention_begin",    "lock:contention_end",
      "xfs:xfs_trans_alloc",      "block:block_rq_issue",
  };
  return kList;
}

Features Features::probe(FeatureScope scope) {
  Features f;
  f.root = geteuid() == 0;
  if (!f.root) f.why["root"] = "not running as root";
  f.btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
  if (!f.btf) f.why["btf"] = "no /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF off?)";

  auto tracefs = ensure_tracefs(&f.tracefs_note);
  f.tracefs = static_cast<bool>(tracefs);
  if (f.tracefs)
    f.tracefs_root = tracefs.value();
  else
    f.why["tracefs"] = tracefs.error().message;
  probe_tracepoints(f);

  std::string perf_why;
  FdCloser perf{open_cpu_clock(&perf_why)};
  f.perf_event_cpu_clock = perf.fd >= 0;
  if (!f.perf_event_cpu_clock) f.why["cpu-clock"] = perf_why;

  probe_programs(f, perf.fd, scope);
  probe_maps(f);
  if (scope == FeatureScope::All)
    probe_kallsyms(f);
  else
    probe_kallsyms_visible(f);
  apply_disabled(f);
  return f;
}

const Features& Features::get() {
  static const Features f = probe();  // thread-safe once-only init
  return f;
}

const Features& Features::for_record() {
  static const Features f = probe(FeatureScope::Record);
  return f;
}

bool Features::has_tracepoint(std::string_view category_event) const {
  auto it = tracepoints.find(std::string(category_event));
  return it != tracepoints.end() && it->second;
}

std::string Features::reason(const std::string& key) const {
  auto it = why.find(key);
  return it == why.end() ? std::string() : it->second;
}

std::string describe(const Features& f) {
  auto line = [&](const std::string& key, bool yes, const std::string& extra = {}) {
    std::string r = f.reason(key);
    std::string tail = yes ? extra : r;
    return fmt::format("  {:<28}{}{}\n", key + ":", yes ? "yes" : "no",
                       tail.empty() ? "" : fmt::format(" ({})", tail));
  };
  std::string out = "kernel features\n";
  for (const auto& row : kRows) {
    std::string extra;
    if (row.member == &Features::tracefs) {
      extra = f.tracefs_root;
      if (!f.tracefs_note.empty()) extra += "; " + f.tracefs_note;
    }
    out += line(row.key, f.*row.member, extra);
  }
  out += "tracepoints\n";
  for (const auto& [tp, present] : f.tracepoints) out += line(tp, present);
  auto ok = check_can_record(f);
  out += ok ? "fscost record: can run\n"
            : fmt::format("fscost record: cannot run: {}\n  hint: {}\n", ok.error().message,
                          ok.error().hint);
  return out;
}

Result<std::monostate> check_can_record(const Features& f) {
  auto because = [&](const std::string& key) {
    std::string r = f.reason(key);
    return r.empty() ? std::string() : ": " + r;
  };
  if (!f.can_load_bpf) {
    std::string r = f.reason("bpf");
    return Error{
        r.empty() ? kNoBpfWhy : r,
        f.root ? "BPF is refused even to root: check seccomp/container limits and FSCOST_DEBUG=1"
               : "run as root (sudo fscost record ...), or grant CAP_BPF and CAP_PERFMON"};
  }
  if (!f.btf)
    return Error{"no kernel BTF" + because("btf"),
                 "fscost's BPF programs need a kernel built with CONFIG_DEBUG_INFO_BTF=y"};
  if (!f.tracefs)
    return Error{"tracefs unavailable" + because("tracefs"),
                 "mount it: mount -t tracefs nodev /sys/kernel/tracing"};
  for (const char* tp : {"raw_syscalls:sys_enter", "raw_syscalls:sys_exit", "sched:sched_switch",
                         "sched:sched_process_fork", "sched:sched_process_exit"}) {
    if (!f.has_tracepoint(tp))
      // Without root, capabilities load BPF but tracefs (where the
      // tracepoints' ids live) is root's by its mode: that, not the kernel
      // config, is the likely cause.
      return Error{fmt::format("missing tracepoint {}{}", tp, because(tp)),
                   f.root ? "fscost needs syscall and sched tracepoints (CONFIG_FTRACE_SYSCALLS, "
                            "CONFIG_TRACEPOINTS)"
                          : "not root: tracefs (/sys/kernel/tracing) is readable by root only "
                            "unless mounted with gid= and mode=; CAP_BPF and CAP_PERFMON do not "
                            "open it. Run as root, or remount tracefs for your group"};
  }
  if (!f.tp_btf && !f.raw_tp)
    return Error{"cannot attach raw tracepoint programs (tp_btf or raw_tp)" + because("raw_tp"),
                 "run `fscost features`; FSCOST_DEBUG=1 shows libbpf's log"};
  if (!f.perf_event_cpu_clock)
    return Error{"no perf events" + because("cpu-clock"),
                 "run as root (or with CAP_PERFMON); the kernel needs CONFIG_PERF_EVENTS"};
  if (!f.perf_event_prog)
    return Error{"cannot attach perf_event programs" + because("perf_event"),
                 "fscost samples on-CPU stacks with a cpu-clock perf_event program"};
  // Checked now, not when symbolizing after the run: fail before the workload.
  if (!f.kallsyms)
    return Error{"cannot symbolize kernel stacks" + because("kallsyms"),
                 "run as root, or sysctl kernel.kptr_restrict=0"};
  return std::monostate{};
}

}  // namespace fscost
