#include "collector/collector.h"

#include <bpf/bpf.h>
#include <fmt/format.h>
#include <unistd.h>

#include <fcntl.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "collector/kernel_features.h"
#include "collector/map_read.h"
#include "fscost_bpf.skel.h"
#include "collector/syscall_table.h"
#include "collector/tracefs.h"

namespace fscost {
namespace {

Error libbpf_error(const char* what, int err) {
  err = err < 0 ? -err : err;
  return Error{fmt::format("{}: {}", what, strerror(err)),
               err == EPERM ? "run as root (needs CAP_BPF and CAP_PERFMON)"
                            : "run `fscost features` to see what this kernel allows"};
}

int set_size(bpf_map* map, std::uint32_t n) { return bpf_map__set_max_entries(map, n); }

// What --max-* asked, or the defaults for this machine's CPU count; the
// main object's maps and the function timer's are sized from the same.
MapSizes map_sizes(const MapSizeOptions& asked) {
  return resolve_map_sizes(asked, static_cast<unsigned>(std::max(1, libbpf_num_possible_cpus())));
}

// A kernel without task storage cannot create that map at all, though only
// dead code refers to it there: a one-entry hash stands in.
int without_task_storage(bpf_map* map, const Features& f) {
  if (f.task_storage) return 0;
  return bpf_map__set_type(map, BPF_MAP_TYPE_HASH) || set_size(map, 1);
}

}  // namespace

void Collector::SkelDeleter::operator()(::fscost_bpf* s) const { fscost_bpf__destroy(s); }

Collector::~Collector() = default;

Result<std::unique_ptr<Collector>> Collector::load(const CollectorConfig& cfg, const Features& f) {
  std::unique_ptr<Collector> c(new Collector());
  c->cfg_ = cfg;
  c->skel_.reset(fscost_bpf__open());
  if (!c->skel_) return libbpf_error("cannot open the BPF object", errno);
  if (auto r = c->configure(f); !r) return r.error();
  if (int err = fscost_bpf__load(c->skel_.get()))
    return libbpf_error("cannot load the BPF programs", err);
  if (auto r = c->fill_syscall_rules(); !r) return r.error();
  if (auto r = c->load_function_timer(f); !r) return r.error();
  c->aim(cfg.target_dev, cfg.log_first_sector, cfg.log_end_sector);
  return c;
}

// Rodata, map sizes, and autoload: per hook, the probed flavour, if its
// group is wanted and its tracepoint exists here.
Result<std::monostate> Collector::configure(const Features& f) {
  auto* s = skel_.get();
  const auto& g = cfg_.groups;
  s->rodata->trace_all = cfg_.trace_all;
  s->rodata->self_tgid = static_cast<__u32>(getpid());
  s->rodata->want_offcpu = g.offcpu;
  s->rodata->want_wakers = g.enabled(ProbeGroup::Wakers);
  s->rodata->want_locks = g.locks;
  s->rodata->want_user_stacks = cfg_.user_stacks;
  // tp_btf programs keep per-thread state in task storage, raw_tp ones in
  // the `tasks` hash: the map not in use shrinks to one entry. Task storage
  // only where creating it inside a lock's slow path cannot deadlock
  // (Features::task_storage_in_locks).
  btf_flavour_ = f.tp_btf && f.task_storage && f.task_storage_in_locks;
  s->rodata->use_task_storage = btf_flavour_;
  const MapSizes z = map_sizes(cfg_.sizes);
  if (set_size(s->maps.stacks, z.stack_storage) || set_size(s->maps.samples, z.max_stacks) ||
      set_size(s->maps.tasks, btf_flavour_ ? 1 : z.max_threads) ||
      set_size(s->maps.tracked, z.max_procs) || set_size(s->maps.offcpu, z.max_offcpu) ||
      set_size(s->maps.lock_stats, z.max_locks) ||
      set_size(s->maps.bg_fs_events, z.max_background) ||
      set_size(s->maps.dev_write_bytes, z.max_devices) ||
      set_size(s->maps.lock_holders, z.max_locks) || set_size(s->maps.blocked, z.max_threads) ||
      without_task_storage(s->maps.task_store, f))
    return Error{"cannot size the BPF maps", "check --stack-storage-size/--max-* values"};

  const char* flavour = btf_flavour_ ? "tp_btf" : "raw_tp";
  for (const auto& h : hooks()) {
    std::string event = fmt::format("{}:{}", h.category, h.event);
    bool present = tracepoint_exists(f.tracefs_root, h.category, h.event);
    bool want = cfg_.groups.enabled(h.group) && present;
    if (cfg_.groups.enabled(h.group) && !present) skipped_.push_back(event + " (absent)");
    auto* btf = bpf_object__find_program_by_name(s->obj, fmt::format("{}_btf", h.program).c_str());
    auto* raw = bpf_object__find_program_by_name(s->obj, fmt::format("{}_raw", h.program).c_str());
    if (!btf || !raw) return Error{fmt::format("BPF object lacks the programs for {}", event), ""};
    bpf_program__set_autoload(btf, want && btf_flavour_);
    bpf_program__set_autoload(raw, want && !btf_flavour_);
    if (want) probes_.push_back(fmt::format("{} ({})", event, flavour));
  }
  return std::monostate{};
}

// After the main object: the timer reads its cpu_now map. A refusal is
// said, not fatal: the recording goes on without the functions.
Result<std::monostate> Collector::load_function_timer(const Features& f) {
  const auto& names = cfg_.time_functions;
  if (names.empty()) return std::monostate{};
  const MapSizes z = map_sizes(cfg_.sizes);
  auto loaded = FunctionTimer::load(names, bpf_map__fd(skel_->maps.cpu_now), z.max_threads, f.tracefs_root);
  if (!loaded) return loaded.error();
  for (const auto& [name, why] : loaded.value().refused)
    skipped_.push_back(fmt::format("fentry/fexit {} ({})", name, why));
  timer_ = std::move(loaded.value().timer);
  if (timer_)
    for (const auto& name : timer_->names()) probes_.push_back(fmt::format("fentry/fexit {}", name));
  return std::monostate{};
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

namespace {

// Gives `tid` zeroed per-thread state, as its first syscall would: task
// storage takes a pidfd as its key from userspace (PIDFD_THREAD for a
// thread other than the leader, Linux 6.9), the raw_tp flavour's hash the
// tid. False when that cannot be done.
bool seed_state(int map_fd, bool task_storage, pid_t tgid, pid_t tid, const std::vector<char>& zero) {
  if (!task_storage) {
    __u32 key = static_cast<__u32>(tid);
    return bpf_map_update_elem(map_fd, &key, zero.data(), BPF_NOEXIST) == 0 || errno == EEXIST;
  }
  constexpr unsigned kPidfdThread = O_EXCL;  // PIDFD_THREAD
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, tid, tid == tgid ? 0u : kPidfdThread)));
  if (!pidfd) return false;
  int key = pidfd.get();
  return bpf_map_update_elem(map_fd, &key, zero.data(), BPF_NOEXIST) == 0 || errno == EEXIST;
}

}  // namespace

Result<std::monostate> Collector::track(pid_t tgid) {
  __u32 key = static_cast<__u32>(tgid);
  __u8 one = 1;
  if (bpf_map_update_elem(bpf_map__fd(skel_->maps.tracked), &key, &one, BPF_ANY))
    return libbpf_error("cannot add the target to the tracked map", errno);
  if (cfg_.trace_all) return std::monostate{};
  // Every thread it has now gets its state; the ones it creates get theirs
  // at fork (attached already). Then a thread without state is untracked
  // (states_complete), or, if one could not be seeded, sys_enter asks the
  // tracked map as before.
  bpf_map* m = btf_flavour_ ? skel_->maps.task_store : skel_->maps.tasks;
  std::vector<char> zero(bpf_map__value_size(m), 0);
  const __u32 gen = skel_->bss->run_gen;
  std::memcpy(zero.data() + FSCOST_TASK_GEN_OFFSET, &gen, sizeof(gen));
  bool all = true;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(fmt::format("/proc/{}/task", tgid), ec)) {
    pid_t tid = static_cast<pid_t>(std::strtol(e.path().filename().c_str(), nullptr, 10));
    if (tid > 0) all = seed_state(bpf_map__fd(m), btf_flavour_, tgid, tid, zero) && all;
  }
  if (ec) all = false;
  if (!all)
    skel_->bss->states_complete = false;
  else if (!seeded_once_)
    skel_->bss->states_complete = true;
  seeded_once_ = true;
  skel_->bss->states_gen++;  // per-CPU slots written before may predate these states
  return std::monostate{};
}

Result<std::monostate> Collector::count_run_time(bool on) {
  if (!on) {
    stats_fd_.reset();
    return std::monostate{};
  }
  if (stats_fd_) return std::monostate{};
  // The kernel counts only while some fd holds it on.
  int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
  if (fd < 0) return libbpf_error("cannot enable BPF run-time statistics", errno);
  stats_fd_.reset(fd);
  return std::monostate{};
}

void Collector::aim(std::uint32_t target_dev, std::uint64_t log_first_sector,
                    std::uint64_t log_end_sector) {
  auto* bss = skel_->bss;
  bss->target_dev = target_dev;
  bss->log_first_sector = log_first_sector;
  bss->log_end_sector = log_end_sector;
  bss->target_mp = 0;  // a new mount of the same device has a new xfs_mount
}

Result<std::monostate> Collector::reset() {
  enable(false);
  // By type, so that a map added later is emptied too: every hash is
  // recording state, every per-CPU array a counter or scratch. Plain arrays
  // are configuration (syscall_rules, .rodata) or the .bss handled below;
  // task storage goes stale instead (run_gen).
  bpf_map* map;
  bpf_object__for_each_map(map, skel_->obj) {
    int fd = bpf_map__fd(map);
    bool ok = true;
    if (bpf_map__type(map) == BPF_MAP_TYPE_HASH)
      ok = clear_hash(fd, bpf_map__key_size(map), bpf_map__value_size(map));
    else if (bpf_map__type(map) == BPF_MAP_TYPE_PERCPU_ARRAY)
      ok = zero_percpu_array(fd, bpf_map__max_entries(map), bpf_map__value_size(map));
    if (!ok)
      return libbpf_error(fmt::format("cannot empty the BPF map {}", bpf_map__name(map)).c_str(),
                          errno);
  }
  auto* bss = skel_->bss;
  std::fill(std::begin(bss->drops), std::end(bss->drops), 0);
  bss->samples_total = 0;
  bss->fs_events_other_fs = 0;
  bss->states_complete = false;
  bss->states_gen++;
  if (timer_)
    if (auto r = timer_->reset(); !r) return r;
  bss->run_gen++;  // task storage cannot be emptied from here: it goes stale
  seeded_once_ = false;
  prog_base_ = program_counters();
  return std::monostate{};
}

Result<std::monostate> Collector::attach() {
  if (auto r = count_run_time(cfg_.bpf_stats); !r) return r;
  if (int err = fscost_bpf__attach(skel_.get())) return libbpf_error("cannot attach probes", err);
  auto sampler = CpuSampler::attach(skel_->progs.on_sample, cfg_.freq_hz);
  if (!sampler) return sampler.error();
  probes_.push_back(fmt::format("cpu-clock {} Hz on {} CPUs (perf_event)", cfg_.freq_hz,
                                sampler.value().cpus()));
  sampler_.emplace(std::move(sampler).value());
  return std::monostate{};
}

std::vector<pid_t> Collector::tracked_pids() const {
  std::vector<pid_t> pids;
  for (const auto& [tgid, one] : read_hash<__u32, __u8>(bpf_map__fd(skel_->maps.tracked)))
    pids.push_back(static_cast<pid_t>(tgid));
  return pids;
}

void Collector::enable(bool on) {
  // Plain store: handlers read it on their next run; ordering is not needed.
  skel_->bss->enabled = on;
  if (timer_) timer_->enable(on);
}

}  // namespace fscost
