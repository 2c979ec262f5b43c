#include "collector/recording.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "collector/profile_builder.h"
#include "collector/sampler.h"  // online_cpus
#include "symbols/user_symbols.h"
#include "system/fs_device.h"
#include "system/subprocess.h"
#include "system/sys_util.h"

namespace fscost {
namespace {

std::vector<pid_t> user_sample_pids(const RawData& raw) {
  std::vector<pid_t> pids;
  for (const auto& [k, count] : raw.samples)
    if (k.kind == FSCOST_SK_USER && k.tgid) pids.push_back(static_cast<pid_t>(k.tgid));
  return pids;
}

// --sync: a child of ours, tracked before it calls syncfs(2), so the
// writeback the command left is traced as its own op ("sync") in this
// recording. The fd is opened before the fork and the child only reads a
// pipe, syncs and exits: nothing else of it is an op.
Result<std::monostate> traced_syncfs(Collector& c, const std::string& dir) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  int go[2];
  if (!fd || ::pipe2(go, O_CLOEXEC) != 0)
    return Error{fmt::format("--sync: cannot open {}: {}", dir, errno_text()), ""};
  UniqueFd rd(go[0]), wr(go[1]);
  pid_t pid = ::fork();
  if (pid < 0) return Error{fmt::format("--sync: fork: {}", errno_text()), ""};
  if (pid == 0) {
    char byte;
    wr.reset();
    int ok = ::read(rd.get(), &byte, 1) == 1 && ::syncfs(fd.get()) == 0;
    ::_exit(ok ? 0 : 1);
  }
  rd.reset();
  auto tracked = c.track(pid);
  char byte = 1;
  bool sent = tracked && ::write(wr.get(), &byte, 1) == 1;
  wr.reset();  // without the byte the child reads EOF and exits
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!sent || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return Error{fmt::format("--sync: syncfs of {} failed", dir),
                 tracked ? "" : tracked.error().message};
  return std::monostate{};
}

}  // namespace

void hide_lock_addresses(Profile& p) {
  std::unordered_map<std::uint64_t, std::uint64_t> ids;
  auto id = [&ids](std::uint64_t& address) {
    address = ids.try_emplace(address, ids.size() + 1).first->second;
  };
  for (auto& s : p.locks) id(s.address);
  for (auto& h : p.lock_holders) id(h.address);
}

Result<Recorder> Recorder::open(const CollectorConfig& cfg, const Features& f) {
  auto c = Collector::load(cfg, f);
  if (!c) return c.error();
  // Attached before anything is tracked, so that a thread the target
  // creates while it is being tracked gets its state at fork
  // (Collector::track); nothing counts before enable().
  if (auto r = c.value()->attach(); !r) return r.error();
  return Recorder(std::move(c).value(), cfg.freq_hz);
}

Metadata Recorder::metadata(const Target& t) const {
  Metadata m;
  m.fscost_version = FSCOST_VERSION;
  utsname u{};
  if (uname(&u) == 0) {
    m.kernel_release = u.release;
    m.hostname = u.nodename;
  }
  m.cpus = static_cast<std::uint32_t>(online_cpus().size());
  m.target = t.kind();
  m.command = t.description();
  m.freq_hz = freq_hz_;
  m.start_unix_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
  m.probes = collector_->probes();
  m.probes.insert(m.probes.end(), collector_->skipped().begin(), collector_->skipped().end());
  return m;
}

Result<std::monostate> Recorder::start(Target& target, const RecordingOptions& o) {
  Collector& c = *collector_;
  if (recordings_++ > 0)
    if (auto r = c.reset(); !r) return r;
  FsDevice d;
  if (!o.fs_dir.empty()) {
    auto fs = fs_device(o.fs_dir);
    if (!fs) return fs.error();
    d = fs.value();
  }
  c.aim(d.kernel_dev, d.log_first_sector, d.log_end_sector);
  target_dev_ = d.block_dev;  // the device its writes go to (btrfs: not s_dev)
  if (auto r = c.count_run_time(o.bpf_stats); !r) return r;
  if (target.tgid())
    if (auto r = c.track(target.tgid()); !r) return r;
  target.on_control([&c](bool on) { c.enable(on); });
  c.enable(true);
  return target.start();
}

Result<std::monostate> Recorder::stop(const RecordingOptions& o, bool stopped) {
  Result<std::monostate> synced = std::monostate{};
  if (o.sync && !stopped) synced = traced_syncfs(*collector_, o.fs_dir);
  collector_->enable(false);
  return synced;
}

void set_duration(Metadata& m, const Rusage& r, const Target& t) {
  m.paused_ns = std::min(t.paused_ns(), r.wall_ns);
  m.duration_ns = r.wall_ns - m.paused_ns;
}

Result<Profile> Recorder::profile(Metadata meta, const Rusage& rusage, UserSymbolizer* usyms) {
  auto drain_start = std::chrono::steady_clock::now();
  RawData raw = collector_->read();
  meta.drain_ns = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                 std::chrono::steady_clock::now() - drain_start)
                                                 .count());
  if (usyms) usyms->snapshot(user_sample_pids(raw));  // -a: the ones still alive
  if (!ksyms_) {
    auto k = Kallsyms::load();
    if (!k) return k.error();
    ksyms_.emplace(std::move(k).value());
  }
  Profile p = build_profile(raw, *ksyms_, usyms, std::move(meta), rusage, target_dev_);
  if (!keep_addresses_) hide_lock_addresses(p);
  // With the CPU count (meta.cpus): what a figure from a 2-vCPU VM must not
  // be mistaken for on a 64-CPU host.
  if (std::string model = cpu_model(); !model.empty()) p.setup.emplace("cpu_model", model);
  return p;
}

}  // namespace fscost
