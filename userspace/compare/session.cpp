// A compare's session (compare/session.h): root and the output directory
// claimed, the workload checked, storage, one BPF load, the warm-up, the
// interleaved runs (a stolen run again, --until-resolved's added ones),
// then what the caller does with them.
#include "compare/session.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "collector/hooks.h"
#include "collector/kernel_features.h"
#include "collector/recording.h"
#include "compare/fs_pipeline.h"
#include "compare/plan.h"
#include "compare/progress.h"
#include "compare/report.h"
#include "compare/run.h"
#include "compare/storage.h"
#include "compare/warmup.h"
#include "diff/diff.h"  // kStealShare
#include "io/profile_io.h"
#include "model/escape.h"
#include "system/filesystems.h"
#include "system/leftovers.h"
#include "system/owned_dir.h"
#include "system/ramdisk.h"

namespace fscost {

namespace {

namespace fs = std::filesystem;

std::string self_exe() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw UserError("cannot find this program's path (/proc/self/exe): " + ec.message());
  return p.string();
}

bool executable(const fs::path& p) {
  return ::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p);
}

// The built-in workload lives next to fscost (both in the build tree's
// userspace/, or both installed in one bin/).
std::string workload_exe(const std::string& self) {
  fs::path p = fs::path(self).parent_path() / "fscost-workload";
  if (!executable(p))
    throw UserError("the built-in workload " + p.string() + " is missing",
                    "build it (cmake --build build), or give your own with --workload-cmd");
  return p.string();
}

// A command that cannot start would otherwise fail only after the first mkfs.
void check_command_exists(const std::string& cmd) {
  if (cmd.find('/') != std::string::npos) {
    if (!executable(cmd)) throw UserError("--workload-cmd: " + cmd + " is not an executable file");
    return;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (std::size_t start = 0; start <= dirs.size();) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    if (executable(fs::path(dirs.substr(start, end - start)) / cmd)) return;
    start = end + 1;
  }
  throw UserError("--workload-cmd: " + cmd + " not found in PATH",
                  "install it, or give its full path");
}

void report_leftovers() {
  auto found = find_leftovers();
  if (found.empty()) return;
  fmt::print(stderr, "fscost compare: a killed fscost left these behind (not touched):\n");
  for (const auto& f : found) fmt::print(stderr, "  {}\n", terminal_safe(f.line));
  fmt::print(stderr, "fscost compare: `fscost cleanup` removes them\n");
}

const std::string& label_of(const CompareOptions& o, const PlannedRun& run) {
  return o.configs[static_cast<std::size_t>(run.config)].label;
}

// A stop signal before the first run: nothing to write.
struct Interrupted {};

struct Session {
  const CompareOptions& o;
  RunContext ctx;
  CompareOutcome outcome;
  OwnedDir& out;  // -o, held open: every file is written through it
};

// The first run failing means the setup is wrong, not that B is slower:
// stop with what the run printed, and leave nothing behind.
[[noreturn]] void first_run_failed(Session& s, const RunResult& r) {
  std::string tail;
  for (std::size_t at = 0; at < r.stderr_tail.size();) {
    std::size_t nl = std::min(r.stderr_tail.find('\n', at), r.stderr_tail.size());
    tail += "\n  | " + r.stderr_tail.substr(at, nl - at);
    at = nl + 1;
  }
  if (!tail.empty()) tail = "\nthe workload's stderr (last lines):" + tail;
  std::string what = describe_run(r.plan, label_of(s.o, r.plan), s.o.runs);
  if (s.out.created()) {
    s.out.remove_all();
  } else {
    std::error_code ec;
    fs::remove_all(fs::path(s.o.output) / "runs", ec);
  }
  throw UserError(fmt::format("the first run ({}) failed: {}{}", what, r.error, tail),
                  r.mkfs_cmd.empty() ? "" : "run the workload by hand on a fresh filesystem to see why");
}

// The warm-up runs, discarded, before the measured ones: the first run
// after the image is made pays for cold caches and for memory the host took
// back (a 9.2 s first run against 0.5 s ones, issue 15), a one-off the
// counterbalanced order cannot cancel. They record with bpf_stats, which
// tells what the probes cost per op. --warmup N: N full runs of each
// configuration; auto: one short run of each (compare/warmup.h), and
// settle_first_runs after the measured ones. A failure here is the first
// run failing.
void warm_up(Session& s, Progress& progress) {
  if (s.outcome.plan.empty()) return;
  const int count = s.o.warmup.value_or(1);
  if (!s.o.warmup) s.ctx.warmup_workload = short_warmup_workload(s.o.workload);
  for (int config = 0; config < static_cast<int>(s.o.configs.size()); ++config)
    for (int i = 0; i < count; ++i) {
      if (compare_stop_signal()) return;
      PlannedRun run{.index = 0, .threads = s.outcome.plan.front().threads, .config = config,
                     .rep = 0};
      progress.note(fmt::format("{}warm-up run of {} (discarded)",
                                s.ctx.warmup_workload ? "short " : "", label_of(s.o, run)));
      // The run after this one: the next warm-up, else the first planned run.
      const int next = i + 1 < count ? config : config + 1;
      s.ctx.next_config = next < static_cast<int>(s.o.configs.size())
                              ? next
                              : s.outcome.plan.front().config;
      RunResult r = execute_run(s.ctx, run, [&] { progress.tick(); });
      if (r.ok())
        if (auto p = read_profile(s.o.output + "/" + r.profile); p)
          if (auto ns = tracer_ns_per_op(p.value()))
            s.ctx.tracer_ns_per_op[static_cast<std::size_t>(config)] = fmt::format("{:.0f}", *ns);
      discard_run(s.o, run);
      if (r.interrupted || compare_stop_signal()) return;
      if (!r.ok()) first_run_failed(s, r);
    }
}

// The next free run number of a configuration at a thread count: runs
// added after the plan (a replaced warm-up, --until-resolved) never reuse
// a file.
int next_rep(const CompareOutcome& out, int threads, int config) {
  int rep = 0;
  for (const PlannedRun& p : out.plan)
    if (p.threads == threads && p.config == config) rep = std::max(rep, p.rep);
  return rep + 1;
}

// A run the host took the vCPUs from (steal above kStealShare of their
// time: this kind of shared VM's neighbours) timed the host as much as the
// filesystem. It is discarded and run again in its place, at most
// --steal-reruns times per compare; each one is listed in the summary.
RunResult run_unstolen(Session& s, Progress& progress, const PlannedRun& run) {
  RunResult r = execute_run(s.ctx, run, [&] { progress.tick(); });
  while (r.ok() && r.steal_share() > kStealShare &&
         s.outcome.reruns.size() < static_cast<std::size_t>(s.o.steal_reruns) &&
         !compare_stop_signal()) {
    s.outcome.reruns.push_back({run, r.steal_share()});
    progress.note(fmt::format(
        "{}: the host took {:.0f}% of the vCPUs' time; running it again",
        describe_run(run, label_of(s.o, run), s.o.runs), 100 * r.steal_share()));
    discard_run(s.o, run);
    progress.start(run.index);
    r = execute_run(s.ctx, run, [&] { progress.tick(); });
  }
  return r;
}

// One more run of a configuration at a thread count, appended to the plan;
// false (the compare incomplete) when it fails.
bool add_run(Session& s, Progress& progress, int threads, int config, const char* why) {
  PlannedRun run{.index = s.outcome.plan.size(), .threads = threads, .config = config,
                 .rep = next_rep(s.outcome, threads, config)};
  s.outcome.plan.push_back(run);
  progress.extend(run);
  progress.start(run.index);
  RunResult res = run_unstolen(s, progress, run);
  s.outcome.results.push_back(res);
  if (!res.ok()) {
    s.outcome.incomplete = true;
    s.outcome.reason = fmt::format("{} (run {}) failed: {}", why, run.index + 1,
                                   res.interrupted ? "interrupted" : res.error);
    return false;
  }
  progress.finish(run.index, res.seconds, res.ops_per_s);
  return true;
}

// --until-resolved=MAX: while the headline op's on-CPU time is not resolved
// and the runs a side that would resolve it at this noise are at most MAX,
// one more run of each configuration per thread count (in alternating
// order, so the added runs stay counterbalanced), then the diff again.
void run_until_resolved(Session& s, Progress& progress) {
  if (s.o.until_resolved == 0 || is_matrix(s.o)) return;
  for (int runs = s.o.runs; !compare_stop_signal() && !s.outcome.incomplete; ++runs) {
    auto points = load_points(s.o, s.outcome);
    auto h = headline_point(points);
    const OpDiff* op = h ? headline_op(*points[*h].diff) : nullptr;
    if (!op) return;
    const Comparison& c = op->oncpu;
    if (c.significant()) {
      progress.note(fmt::format("{} on-CPU resolved at {} runs a side", op->op, runs));
      return;
    }
    auto r = stats::resolution(c.a, c.b, c.delta());
    std::string need = r.runs_needed > stats::kMaxRunsNeeded ? fmt::format("over {}", stats::kMaxRunsNeeded)
                                                             : std::to_string(r.runs_needed);
    if (runs >= s.o.until_resolved || r.runs_needed == 0 ||
        r.runs_needed > static_cast<std::size_t>(s.o.until_resolved)) {
      progress.note(fmt::format("{} on-CPU not resolved at {} runs a side; at this noise it would "
                                "take {} (--until-resolved={}): stopping",
                                op->op, runs, need, s.o.until_resolved));
      return;
    }
    progress.note(fmt::format("{} on-CPU not resolved at {} runs a side (about {} would): one "
                              "more of each",
                              op->op, runs, need));
    for (int t : s.o.threads)
      for (int k = 0; k < 2; ++k) {
        int config = runs % 2 == 0 ? k : 1 - k;
        if (!add_run(s, progress, t, config, "an added run")) return;
      }
  }
}

// --warmup auto, after the planned runs: a configuration's first counted
// run that stands above its later ones (first_run_was_warmup) was still
// warming up. It is discarded (its files removed, its result kept with the
// reason) and one more run of the configuration is made, at most
// kMaxLateWarmups times per configuration and thread count.
void settle_first_runs(Session& s, Progress& progress) {
  if (s.o.warmup) return;
  for (int t : s.o.threads)
    for (int config = 0; config < static_cast<int>(s.o.configs.size()); ++config)
      for (int k = 0; k < kMaxLateWarmups; ++k) {
        if (compare_stop_signal() || s.outcome.incomplete) return;
        std::vector<RunResult*> runs;
        for (RunResult& r : s.outcome.results)
          if (r.ok() && r.plan.threads == t && r.plan.config == config) runs.push_back(&r);
        if (runs.size() < 3) break;
        std::vector<double> later;
        for (std::size_t i = 1; i < runs.size(); ++i) later.push_back(runs[i]->seconds);
        if (!first_run_was_warmup(runs[0]->seconds, later)) break;
        RunResult& first = *runs[0];
        first.late_warmup = late_warmup_reason(first.seconds, later);
        progress.note(fmt::format("{} was a warm-up after all ({}): discarded, one more run",
                                  describe_run(first.plan, label_of(s.o, first.plan), s.o.runs),
                                  first.late_warmup));
        discard_run(s.o, first.plan);
        if (!add_run(s, progress, t, config, "a warm-up's replacement")) return;
      }
}

// Every planned run until the end, a stop signal or a failure.
void run_all(Session& s, Progress& progress) {
  warm_up(s, progress);
  std::size_t ok = 0;
  for (const PlannedRun& run : s.outcome.plan) {
    if (compare_stop_signal()) break;
    const std::size_t next = run.index + 1;
    s.ctx.next_config = next < s.outcome.plan.size()
                            ? std::optional<int>(s.outcome.plan[next].config)
                            : std::nullopt;
    progress.start(run.index);
    RunResult r = run_unstolen(s, progress, run);
    s.outcome.results.push_back(r);
    if (r.interrupted) break;
    if (!r.ok()) {
      progress.clear();
      if (ok == 0) first_run_failed(s, r);
      s.outcome.incomplete = true;
      s.outcome.reason = fmt::format(
          "run {} ({}) failed: {}", run.index + 1,
          describe_run(run, label_of(s.o, run), s.o.runs), r.error);
      progress.note(s.outcome.reason);
      return;
    }
    ok++;
    progress.finish(run.index, r.seconds, r.ops_per_s);
  }
  s.ctx.next_config.reset();  // runs added from here are decided one at a time
  if (!s.outcome.incomplete) settle_first_runs(s, progress);
  if (!s.outcome.incomplete) run_until_resolved(s, progress);
  if (int sig = compare_stop_signal()) {
    s.outcome.incomplete = true;
    s.outcome.reason = fmt::format("interrupted by SIG{}", sigabbrev_np(sig));
  }
}

// Checks, storage, runs. Storage (loop device, image) is released when this
// returns, before the outputs are computed.
void measure(Session& s) {
  const CompareOptions& o = s.o;
  // Each mkfs must run before anything is made; its version goes in every profile.
  std::set<std::string> passed_over;
  for (const ConfigSpec& cfg : o.configs) {
    const Filesystem& fs = *find_filesystem(cfg.fs);
    s.ctx.mkfs_version.push_back(take(mkfs_version(fs, mkfs_program(o, cfg))));
    std::string note = xfs_info_beside_mkfs(fs, mkfs_program(o, cfg)).note;
    if (!note.empty() && passed_over.insert(note).second)
      fmt::print(stderr, "fscost compare: {}\n", terminal_safe(note));
  }
  s.ctx.tracer_ns_per_op.assign(o.configs.size(), "");
  CompareStorage storage = take(o.device.empty() ? CompareStorage::ram_disk(o.size)
                                                 : CompareStorage::device(o.device, o.force));
  for (std::size_t i = 0; i < o.configs.size(); ++i) {
    const ConfigSpec& cfg = o.configs[i];
    auto ok = storage.check_mkfs(cfg, std::string(1, config_letter(static_cast<int>(i))),
                                 mkfs_program(o, cfg));
    // A terminal's ^C also kills the dry-run mkfs: that is no bad option.
    if (compare_stop_signal()) throw Interrupted{};
    take(std::move(ok));
  }
  // One load for every run: BPF verified and attached once, its maps
  // emptied between runs (docs/COMPARE.md, "What one run is").
  const Features& f = Features::for_record();
  take(check_can_record(f));
  if (!f.tracefs_note.empty() && !o.quiet) fmt::print(stderr, "fscost compare: {}\n", f.tracefs_note);
  CollectorConfig cc;
  cc.groups = take(parse_probe_groups(o.probes));
  Recorder recorder = take(Recorder::open(cc, f));
  recorder.keep_addresses(o.keep_addresses);
  s.ctx.recorder = &recorder;
  take(storage.attach());
  FsPipeline filesystems(o, storage);  // before storage goes: its last mount unmounted
  s.ctx.filesystems = &filesystems;
  s.outcome.storage = storage.description();
  if (!storage.one_image_reason().empty() && !o.quiet)
    fmt::print(stderr, "fscost compare: {}\n", storage.one_image_reason());

  bool tty = !o.quiet && is_terminal(stderr);
  unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::string> labels;
  for (const ConfigSpec& c : o.configs) labels.push_back(c.label);
  Progress progress(stderr, tty, s.outcome.plan, labels, o.runs, cpus);
  if (!tty)
    progress.note(fmt::format("{} runs on {}; output in {}", s.outcome.plan.size(),
                              s.outcome.storage, s.out.shown()));
  run_all(s, progress);
  s.ctx.recorder = nullptr;  // detached when this returns
  s.ctx.filesystems = nullptr;
}

// The workload's program must exist before the first mkfs.
void check_workload(const CompareOptions& o, RunContext& ctx) {
  if (o.workload.builtin())
    ctx.workload_exe = workload_exe(self_exe());
  else if (o.workload.cmd_at.empty())
    check_command_exists(o.workload.cmd[0]);
  else
    for (const auto& [t, cmd] : o.workload.cmd_at) check_command_exists(cmd[0]);
}

}  // namespace

int run_compare_with(CompareOptions o, const std::string& command, const AfterRuns& then) {
  if (::geteuid() != 0)
    throw UserError(fmt::format("fscost {} formats and mounts filesystems and loads BPF: it needs "
                                "root",
                                command),
                    fmt::format("run it as root (sudo fscost {} …)", command));
  // First: a signal in the first milliseconds must stop it as one later
  // does, not end it by the default action (CI, 2026-12-06: SIGPIPE after
  // 11 ms exited 141 with no word said).
  install_compare_signal_handlers();
  report_leftovers();
  // Made (or checked empty and private) now, before anything else, and
  // held: a directory another user prepared cannot redirect root's writes.
  OwnedDir out = take(OwnedDir::claim(o.output, "output directory"));
  out.remove_if_empty_at_exit();
  o.output = out.path();
  Session s{o, {}, {}, out};
  s.ctx.opts = &o;
  s.ctx.out = &out;
  check_workload(o, s.ctx);
  s.outcome.plan = make_plan(o.threads, o.runs, o.order, o.order_seed,
                             static_cast<int>(o.configs.size()));
  // An error naming a file under -o names it as the user gave it.
  try {
    try {
      measure(s);
    } catch (const Interrupted&) {
      fmt::print(stderr, "fscost {}: interrupted before the first run; nothing recorded\n", command);
      return 128 + compare_stop_signal();
    }
    // Storage is gone; an impatient second ^C may now end us at once.
    for (int sig : kCompareStopSignals) ::signal(sig, SIG_DFL);
    ::signal(SIGPIPE, SIG_IGN);  // a closed stdout: EPIPE, the files are written already
    return then(o, s.outcome, out);
  } catch (const UserError& e) {
    throw UserError(out.shown(e.what()), out.shown(e.hint()));
  }
}

}  // namespace fscost
