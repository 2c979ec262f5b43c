// fscost record: attach, run the target, drain, symbolize, write the profile.
#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fcntl.h>
#include <sys/wait.h>

#include <chrono>
#include <thread>

#include "collector/collector.h"
#include "collector/hooks.h"
#include "cli/commands.h"
#include "collector/kernel_features.h"
#include "symbols/kallsyms.h"
#include "collector/profile_builder.h"
#include "io/profile_io.h"
#include "model/file_io.h"
#include "compare/progress.h"  // format_duration
#include "system/fs_device.h"
#include "system/subprocess.h"
#include "system/sys_util.h"
#include "system/status_line.h"
#include "system/target.h"
#include "symbols/user_symbols.h"

namespace fscost {
namespace {

Target make_target(const RecordArgs& a) {
  if (a.all) return Target::system();
  if (a.pid) return take(Target::process(a.pid));
  if (a.command.empty())
    throw UserError("nothing to record",
                    "give a command after --, a process with -p PID, or -a for the whole system");
  return take(Target::command(a.command));
}

void check_args(const RecordArgs& a) {
  if (a.duration_s && !a.command.empty())
    throw UserError("--duration applies to -a and -p; a command is recorded until it exits");
  // Before the workload runs: a recording that cannot be saved is in vain.
  take(check_output_path(a.output));
}

Metadata base_metadata(const RecordArgs& a, const Target& t) {
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
  m.freq_hz = a.collector.freq_hz;
  m.start_unix_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
  return m;
}

// With --user-stacks: snapshots the maps of the target's processes every
// 20 ms while it runs, since they are gone once a process exits.
class MapsWatcher {
 public:
  MapsWatcher(const Collector* c, UserSymbolizer& usyms) {
    if (!c) return;
    thread_ = std::jthread([c, &usyms](std::stop_token stop) {
      while (!stop.stop_requested()) {
        usyms.snapshot(c->tracked_pids());
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      usyms.snapshot(c->tracked_pids());
    });
  }

 private:
  std::jthread thread_;
};

std::vector<pid_t> user_sample_pids(const RawData& raw) {
  std::vector<pid_t> pids;
  for (const auto& [k, count] : raw.samples)
    if (k.kind == FSCOST_SK_USER && k.tgid) pids.push_back(static_cast<pid_t>(k.tgid));
  return pids;
}

std::uint64_t dropped(const Profile& p) {
  std::uint64_t n = 0;
  for (const auto& [name, count] : p.drops) n += count;
  return n;
}

std::string plural_of(std::size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

void print_summary(const Profile& p, const std::string& path) {
  std::uint64_t ops = 0, samples = 0;
  for (const auto& o : p.ops) ops += o.count;
  for (const auto& s : p.samples) samples += s.count;
  fmt::print(stderr, "fscost: {} operations, {} samples kept of {}, {} dropped, {:.2f} s -> {}\n",
             ops, samples, p.samples_total, dropped(p), p.meta.duration_ns / 1e9, path);
  if (dropped(p)) fmt::print(stderr, "fscost: see the drops in `fscost report {}`\n", path);
  // cpu-clock fires on every CPU whether busy or idle: far fewer samples
  // than rate × CPUs × time means the kernel throttled the event
  // (kernel.perf_event_max_sample_rate, perf_cpu_time_max_percent).
  double expected = static_cast<double>(p.meta.freq_hz) * p.meta.cpus * (p.meta.duration_ns / 1e9);
  if (expected >= 1000 && static_cast<double>(p.samples_total) < 0.5 * expected)
    fmt::print(stderr,
               "fscost: warning: {} cpu-clock samples of the {:.0f} that -F {} on {} CPUs for "
               "{:.2f} s asks for: the kernel throttled sampling (see "
               "/proc/sys/kernel/perf_event_max_sample_rate); lower -F\n",
               p.samples_total, expected, p.meta.freq_hz, p.meta.cpus, p.meta.duration_ns / 1e9);
}

// --fs: events of that filesystem only, and where its log is.
void aim_at_fs(RecordArgs& a) {
  if (a.fs_dir.empty()) return;
  FsDevice d = take(fs_device(a.fs_dir));
  a.collector.target_dev = d.kernel_dev;
  a.collector.log_first_sector = d.log_first_sector;
  a.collector.log_end_sector = d.log_end_sector;
}

// --sync: a child of ours, tracked before it calls syncfs(2), so the
// writeback the command left is traced as its own op ("sync") in this
// recording. The fd is opened before the fork and the child only reads a
// pipe, syncs and exits: nothing else of it is an op.
void traced_syncfs(Collector& c, const std::string& dir) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  int go[2];
  if (!fd || ::pipe2(go, O_CLOEXEC) != 0)
    throw UserError(fmt::format("--sync: cannot open {}: {}", dir, errno_text()));
  UniqueFd rd(go[0]), wr(go[1]);
  pid_t pid = ::fork();
  if (pid < 0) throw UserError(fmt::format("--sync: fork: {}", errno_text()));
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
    throw UserError(fmt::format("--sync: syncfs of {} failed", dir),
                    tracked ? "" : tracked.error().message);
}

}  // namespace

int cmd_record(const RecordArgs& args) {
  RecordArgs a = args;
  check_args(a);
  a.collector.groups = take(parse_probe_groups(a.probes));
  aim_at_fs(a);
  const Features& f = Features::for_record();
  take(check_can_record(f));
  if (!f.tracefs_note.empty()) fmt::print(stderr, "fscost: {}\n", f.tracefs_note);

  Target target = make_target(a);
  auto collector = take(Collector::load(a.collector, f));
  // Attached first, so that a thread the target creates while it is being
  // tracked gets its state at fork (Collector::track); nothing counts
  // before enable().
  take(collector->attach());
  if (target.tgid()) take(collector->track(target.tgid()));
  install_stop_handlers();

  Metadata meta = base_metadata(a, target);
  meta.probes = collector->probes();
  for (const auto& s : collector->skipped()) {
    fmt::print(stderr, "fscost: not probing {}\n", s);
    meta.probes.push_back(s);
  }
  UserSymbolizer usyms;
  collector->enable(true);
  take(target.start());
  std::optional<std::chrono::milliseconds> duration;
  if (a.duration_s) duration = std::chrono::milliseconds(static_cast<long>(*a.duration_s * 1000));
  Rusage rusage;
  StatusLine status(stderr, a.quiet);
  {
    MapsWatcher watcher(a.collector.user_stacks ? collector.get() : nullptr, usyms);
    const Collector* c = collector.get();
    StatusTicker ticker(status, [&status, c, &a] {
      std::string of = a.duration_s ? fmt::format(" of {}", format_duration(*a.duration_s)) : "";
      std::string who = a.all ? "every process"
                              : plural_of(c->tracked_pids().size(), "process", "processes") + " tracked";
      return fmt::format("fscost record: {}{} recording, {}", format_duration(status.elapsed()), of, who);
    });
    rusage = target.wait(duration);
  }
  if (a.sync_fs && !stop_requested()) traced_syncfs(*collector, a.fs_dir);
  collector->enable(false);
  meta.duration_ns = rusage.wall_ns;

  status.stage(fmt::format("fscost record: {}: reading the maps", format_duration(status.elapsed())));
  RawData raw = collector->read();
  if (a.collector.user_stacks) usyms.snapshot(user_sample_pids(raw));  // -a: still alive ones
  Kallsyms ksyms = take(Kallsyms::load());
  Profile profile = build_profile(raw, ksyms, a.collector.user_stacks ? &usyms : nullptr,
                                  std::move(meta), rusage, a.collector.target_dev);
  // With the CPU count (meta.cpus): what a figure from a 2-vCPU VM must not
  // be mistaken for on a 64-CPU host.
  if (std::string model = cpu_model(); !model.empty()) profile.setup.emplace("cpu_model", model);
  status.stage(fmt::format("fscost record: {}: writing {}", format_duration(status.elapsed()), a.output));
  take(write_profile_atomic(profile, a.output));
  status.clear();
  if (!a.quiet || dropped(profile)) print_summary(profile, a.output);
  if (target.exit_code())
    fmt::print(stderr, "fscost: command exited with status {}\n", target.exit_code());
  return target.exit_code();
}

}  // namespace fscost
