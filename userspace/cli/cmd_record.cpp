// fscost record: attach, run the target, drain, symbolize, write the profile.
#include <fmt/format.h>
#include <unistd.h>


#include <chrono>
#include <thread>

#include "collector/collector.h"
#include "collector/hooks.h"
#include "collector/recording.h"
#include "cli/commands.h"
#include "collector/kernel_features.h"
#include "io/profile_io.h"
#include "model/file_io.h"
#include "compare/progress.h"  // format_duration
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

}  // namespace

int cmd_record(const RecordArgs& args) {
  RecordArgs a = args;
  check_args(a);
  a.collector.groups = take(parse_probe_groups(a.probes));
  const Features& f = Features::for_record();
  take(check_can_record(f));
  if (!f.tracefs_note.empty()) fmt::print(stderr, "fscost: {}\n", f.tracefs_note);

  Target target = make_target(a);
  Recorder recorder = take(Recorder::open(a.collector, f));
  recorder.keep_addresses(a.keep_addresses);
  const RecordingOptions ro{.fs_dir = a.fs_dir, .sync = a.sync_fs, .bpf_stats = a.collector.bpf_stats};
  install_stop_handlers();

  Metadata meta = recorder.metadata(target);
  for (const auto& s : recorder.collector().skipped()) fmt::print(stderr, "fscost: not probing {}\n", s);
  UserSymbolizer usyms;
  take(recorder.start(target, ro));
  std::optional<std::chrono::milliseconds> duration;
  if (a.duration_s) duration = std::chrono::milliseconds(static_cast<long>(*a.duration_s * 1000));
  Rusage rusage;
  StatusLine status(stderr, a.quiet);
  {
    const Collector* c = &recorder.collector();
    MapsWatcher watcher(a.collector.user_stacks ? c : nullptr, usyms);
    StatusTicker ticker(status, [&status, c, &a] {
      std::string of = a.duration_s ? fmt::format(" of {}", format_duration(*a.duration_s)) : "";
      std::string who = a.all ? "every process"
                              : plural_of(c->tracked_pids().size(), "process", "processes") + " tracked";
      return fmt::format("fscost record: {}{} recording, {}", format_duration(status.elapsed()), of, who);
    });
    rusage = target.wait(duration);
  }
  take(recorder.stop(ro, stop_requested()));
  set_duration(meta, rusage, target);

  status.stage(fmt::format("fscost record: {}: reading the maps", format_duration(status.elapsed())));
  Profile profile =
      take(recorder.profile(std::move(meta), rusage, a.collector.user_stacks ? &usyms : nullptr));
  status.stage(fmt::format("fscost record: {}: writing {}", format_duration(status.elapsed()), a.output));
  take(write_profile_atomic(profile, a.output));
  status.clear();
  if (!a.quiet || dropped(profile)) print_summary(profile, a.output);
  if (target.exit_code())
    fmt::print(stderr, "fscost: command exited with status {}\n", target.exit_code());
  return target.exit_code();
}

}  // namespace fscost
