#include "model/json_writer.h"  // dump_json: invalid UTF-8 replaced, never thrown
#include "compare/run.h"
#include "compare/fs_pipeline.h"
#include "compare/storage.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "model/file_io.h"
#include "collector/recording.h"
#include "io/profile_io.h"
#include "system/fs_device.h"
#include "system/owned_dir.h"
#include "system/ramdisk.h"
#include "system/subprocess.h"
#include "system/sys_util.h"  // read_mountinfo

namespace fscost {

// ---- signals ----

namespace {

std::atomic<int> g_signal{0};
std::atomic<pid_t> g_group{0};

void on_stop_signal(int sig) {
  int first = 0;
  bool again = !g_signal.compare_exchange_strong(first, sig);
  pid_t group = g_group.load();
  // The child has its own process group, so a terminal's ^C reaches only us.
  if (group > 0) ::kill(-group, again ? SIGKILL : sig);
}

}  // namespace

void install_compare_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  // A closed terminal, ^\ and a closed pipe (`fscost compare … | head`)
  // stop the compare like ^C: the storage is released, the summary written.
  for (int sig : kCompareStopSignals) sigaction(sig, &sa, nullptr);
}

int compare_stop_signal() { return g_signal.load(); }

// ---- one recording ----

namespace {

std::int64_t now_unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The "cpu" line of /proc/stat, in ns: busy = user + nice + system + irq +
// softirq; total adds idle, iowait and steal (guest time is inside user).
struct CpuTimes {
  bool valid = false;
  std::uint64_t total_ns = 0, busy_ns = 0, steal_ns = 0;
};

CpuTimes read_cpu_times() {
  CpuTimes t;
  std::ifstream in("/proc/stat");
  std::string cpu;
  std::uint64_t v[8] = {};
  if (!(in >> cpu) || cpu != "cpu") return t;
  for (auto& x : v)
    if (!(in >> x)) return t;
  const double ns_per_tick = 1e9 / static_cast<double>(::sysconf(_SC_CLK_TCK));
  auto ns = [&](std::uint64_t ticks) {
    return static_cast<std::uint64_t>(static_cast<double>(ticks) * ns_per_tick);
  };
  // user nice system idle iowait irq softirq steal
  t.busy_ns = ns(v[0] + v[1] + v[2] + v[5] + v[6]);
  t.steal_ns = ns(v[7]);
  t.total_ns = ns(v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7]);
  t.valid = true;
  return t;
}

// Ops/s from the profile: every traced operation over the recording.
std::optional<double> profile_ops_per_s(const Profile& p) {
  if (p.meta.duration_ns == 0) return std::nullopt;
  std::uint64_t ops = 0;
  for (const OpStats& op : p.ops) ops += op.count;
  return static_cast<double>(ops) * 1e9 / static_cast<double>(p.meta.duration_ns);
}

std::string block_name(const std::string& device) {
  std::error_code ec;
  std::string dev = std::filesystem::canonical(device, ec).filename().string();
  return ec ? "" : dev;
}

// Bytes a syncfs of `dir` writes to its device after the run: what the run
// left dirty, outside every figure of its recording.
std::optional<std::uint64_t> written_by_syncfs(const std::string& dir, const std::string& dev) {
  auto before = device_written_bytes(dev);
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!before || !fd || ::syncfs(fd.get()) != 0) return std::nullopt;
  auto after = device_written_bytes(dev);
  if (!after || *after < *before) return std::nullopt;
  return *after - *before;
}

// Every run mounts on a new random directory, which would make each run's
// recorded command differ (and the diff warn of a config mismatch): the
// profile keeps the command with "{dir}", as given; <run>.json has the
// real argv.
void canonical_command(Profile& p, const std::string& mount_dir) {
  std::string& cmd = p.meta.command;
  for (auto at = cmd.find(mount_dir); !mount_dir.empty() && at != std::string::npos;
       at = cmd.find(mount_dir, at + 5))
    cmd.replace(at, mount_dir.size(), "{dir}");
}

// The profile keeps the filesystem as built (Profile::setup), so a diff of
// these runs can tell every way A and B differ, asked-for or not.
void keep_setup(Profile& p, const RunResult& r, const RunContext& ctx) {
  canonical_command(p, r.mount_dir);
  const ConfigSpec& cfg = ctx.opts->configs[static_cast<std::size_t>(r.plan.config)];
  // The device as the block layer names it (device_write_bytes' keys):
  // /dev/mapper/x is dm-N there.
  // Added to what record put there (the CPU model).
  std::map<std::string, std::string> setup = {{"fs", cfg.fs},
             {"device", block_name(r.device)},
             {"mkfs_path", mkfs_program(*ctx.opts, cfg)},
             {"mkfs_version", ctx.mkfs_version.at(static_cast<std::size_t>(r.plan.config))},
             {"mkfs_command", r.mkfs_cmd},
             {"mkfs_output", r.mkfs_output},
             {"fs_info", r.fs_info},
             {"mount_options", r.mount_options},
             {"mount_asked", cfg.mount_opts},
             {"fs_size_bytes", r.fs_size_bytes ? std::to_string(r.fs_size_bytes) : ""},
             {"fs_free_bytes_at_end", r.fs_size_bytes ? std::to_string(r.fs_free_bytes) : ""},
             {"machine_total_ns", r.machine_total_ns ? std::to_string(r.machine_total_ns) : ""},
             {"machine_busy_ns", r.machine_total_ns ? std::to_string(r.machine_busy_ns) : ""},
             {"machine_steal_ns", r.machine_total_ns ? std::to_string(r.machine_steal_ns) : ""},
             {"record_cpu_ns", r.machine_total_ns ? std::to_string(r.record_cpu_ns) : ""},
             {"written_after_bytes",
              r.written_after_bytes ? std::to_string(*r.written_after_bytes) : ""},
             {"tracer_ns_per_op", ctx.tracer_ns_per_op.at(static_cast<std::size_t>(r.plan.config))}};
  for (auto& [k, v] : setup)
    if (!v.empty()) p.setup.insert_or_assign(k, std::move(v));
}

void set_workload_figures(RunResult& r, const std::string& out) {
  r.workload = last_json_line(out);
  if (r.workload.is_null()) r.workload = fs_mark_figures(out);
  if (r.workload.is_object() && r.workload.contains("ops_per_s") &&
      r.workload["ops_per_s"].is_number()) {
    r.ops_per_s = r.workload["ops_per_s"].get<double>();
    r.ops_source = r.workload.contains("fs_mark_rows") ? "fs_mark Files/sec" : "workload";
  }
}

struct RunFiles {
  std::string dir, profile, out, err, meta;
};

RunFiles run_files(const CompareOptions& o, const PlannedRun& run) {
  namespace fs = std::filesystem;
  std::string rel = config_dir(run.threads, run.config) + "/" + run_stem(run.rep);
  fs::path base = fs::path(o.output) / rel;
  return {base.parent_path().string(), rel + ".profile", base.string() + ".out",
          base.string() + ".err", base.string() + ".json"};
}

void remove_files(const CompareOptions& o, const RunFiles& f) {
  std::error_code ec;
  for (const std::string& p : {std::string(o.output) + "/" + f.profile, f.out, f.err, f.meta})
    std::filesystem::remove(p, ec);
}

std::uint64_t own_cpu_ns() {
  struct rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  return timeval_ns(ru.ru_utime) + timeval_ns(ru.ru_stime);
}

// The workload, recorded: its output in f.out and f.err, its group signalled
// with the compare's (on_stop_signal), and the profile of the run.
std::optional<Profile> record_workload(const RunContext& ctx, const RunFiles& f, RunResult& r,
                                       const std::function<void()>& tick) {
  const CompareOptions& o = *ctx.opts;
  Recorder& rec = *ctx.recorder;
  // New files only (a re-run removed its old ones), never through a symlink:
  // the directory is fscost's own, and this keeps it so.
  auto create = [](const std::string& path) {
    ::unlink(path.c_str());
    return UniqueFd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666));
  };
  UniqueFd out_fd = create(f.out);
  UniqueFd err_fd = create(f.err);
  if (!out_fd || !err_fd) {
    r.error = "cannot create " + f.out + " / " + f.err + ": " + std::strerror(errno);
    return std::nullopt;
  }
  auto target = Target::command(
      r.argv, {.stdout_fd = out_fd.get(), .stderr_fd = err_fd.get(), .null_stdin = true, .own_group = true});
  if (!target) {
    r.error = target.error().message;
    return std::nullopt;
  }
  Target& t = target.value();
  g_group.store(t.tgid());
  if (int sig = g_signal.load()) ::kill(-t.tgid(), sig);  // arrived before the store
  // The built-in workload ends with its own syncfs; a command's writeback is
  // made to land in its run the same way. The warm-up (rep 0) is discarded:
  // it can afford bpf_stats' clock reads and tells what the probes cost per op.
  const RecordingOptions ro{.fs_dir = r.mount_dir, .sync = !o.workload.builtin(),
                            .bpf_stats = r.plan.rep == 0};
  Metadata meta = rec.metadata(t);
  r.start_unix_ms = now_unix_ms();
  auto t0 = std::chrono::steady_clock::now();
  const CpuTimes before = read_cpu_times();
  const std::uint64_t own_before = own_cpu_ns();
  if (auto ok = rec.start(t, ro); !ok) {
    g_group.store(0);
    (void)rec.stop(ro, true);  // only disables counting: nothing to sync
    r.error = ok.error().message;
    return std::nullopt;
  }
  Rusage rusage = t.wait(std::nullopt, tick);
  g_group.store(0);
  auto synced = rec.stop(ro, compare_stop_signal() != 0);
  const CpuTimes after = read_cpu_times();
  r.record_cpu_ns = rusage.user_ns + rusage.sys_ns + (own_cpu_ns() - own_before);
  if (after.valid && before.valid) {
    r.machine_total_ns = after.total_ns - before.total_ns;
    r.machine_busy_ns = after.busy_ns - before.busy_ns;
    r.machine_steal_ns = after.steal_ns - before.steal_ns;
  }
  r.exit_code = t.exit_code();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!synced) {
    r.error = synced.error().message;
    return std::nullopt;
  }
  set_duration(meta, rusage, t);
  auto p = rec.profile(std::move(meta), rusage, nullptr);
  if (!p) {
    r.error = p.error().message;
    return std::nullopt;
  }
  return std::move(p).value();
}

// mkfs, mount, record. The filesystem is being unmounted when this returns
// (FsPipeline::release) and the next run's made (FsPipeline::make_ahead).
std::optional<Profile> record_one(const RunContext& ctx, const RunFiles& f, RunResult& r,
                                  const std::function<void()>& tick) {
  const CompareOptions& o = *ctx.opts;
  const ConfigSpec& cfg = o.configs[static_cast<std::size_t>(r.plan.config)];
  const Filesystem& fs = *find_filesystem(cfg.fs);
  MadeFs made = ctx.filesystems->take(r.plan.config);
  r.device = made.device;
  r.mkfs_cmd = made.mkfs_cmd;
  r.mkfs_output = made.mkfs_output;
  if (!made.error.empty()) {
    r.error = made.error;
    return std::nullopt;
  }
  if (compare_stop_signal()) return std::nullopt;
  r.mount_dir = made.mount->dir();
  if (&fs != &xfs_filesystem()) {  // dumpe2fs, btrfs: a UUID and times of their own each run
    r.fs_info = run_fs_info(fs, r.mount_dir, r.device, mkfs_program(o, cfg));
  } else if (auto known = ctx.xfs_info_of_mkfs.find(r.mkfs_output);
             known != ctx.xfs_info_of_mkfs.end()) {
    r.fs_info = known->second;
  } else {
    r.fs_info = run_fs_info(fs, r.mount_dir, r.device, mkfs_program(o, cfg));
    if (!r.fs_info.empty() && !r.mkfs_output.empty())
      ctx.xfs_info_of_mkfs.emplace(r.mkfs_output, r.fs_info);
  }
  for (const MountEntry& m : read_mountinfo())
    if (m.mountpoint == r.mount_dir) r.mount_options = m.super_options;
  const WorkloadSpec& w =
      r.plan.rep == 0 && ctx.warmup_workload ? *ctx.warmup_workload : o.workload;
  r.argv = workload_argv(w, ctx.workload_exe, r.mount_dir, r.plan.threads);
  std::optional<Profile> p = record_workload(ctx, f, r, tick);
  // The recording has stopped: nothing made now is in it.
  if (ctx.next_config && !compare_stop_signal())
    ctx.filesystems->make_ahead(*ctx.next_config, made.slot);
  r.written_after_bytes = written_by_syncfs(r.mount_dir, block_name(r.device));
  // How full the workload left it (the diff warns below 20% free).
  struct statvfs st{};
  if (::statvfs(r.mount_dir.c_str(), &st) == 0) {
    r.fs_size_bytes = static_cast<std::uint64_t>(st.f_blocks) * st.f_frsize;
    r.fs_free_bytes = static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
  }
  ctx.filesystems->release(std::move(made));
  return p;
}

void judge(const RunContext& ctx, const RunFiles& f, RunResult& r, std::optional<Profile>& p) {
  const CompareOptions& o = *ctx.opts;
  auto out = read_whole_file(f.out, "workload output");
  auto err = read_whole_file(f.err, "workload errors");
  r.stderr_tail = tail_lines(err ? err.value() : std::string(), 12);
  if (r.error.empty() && r.exit_code != 0)
    r.error = "the workload exited with status " + std::to_string(r.exit_code);
  if (r.error.empty() && p) {
    keep_setup(*p, r, ctx);
    if (auto ok = write_profile_atomic(*p, o.output + "/" + f.profile); !ok)
      r.error = ok.error().message;
  }
  if (!r.error.empty()) return;  // a failed run writes no profile: it must not count in a diff
  r.profile = f.profile;
  if (out) set_workload_figures(r, out.value());
  if (!r.ops_per_s) {
    r.ops_per_s = profile_ops_per_s(*p);
    r.ops_source = "profile";
  }
}

}  // namespace

RunResult execute_run(const RunContext& ctx, const PlannedRun& run,
                      const std::function<void()>& tick) {
  RunResult r;
  r.plan = run;
  RunFiles f = run_files(*ctx.opts, run);
  // Inside the held -o, each component opened without following a link.
  if (auto dir = open_dir(f.dir, true); !dir) {
    r.error = dir.error().message;
    if (ctx.out) r.error = ctx.out->shown(r.error);
    return r;
  }
  std::optional<Profile> p = record_one(ctx, f, r, tick);
  if (compare_stop_signal()) {
    r.interrupted = true;
    remove_files(*ctx.opts, f);
    return r;
  }
  if (r.error.empty() && !p) r.error = "the run recorded no profile";
  judge(ctx, f, r, p);
  if (ctx.out) r.error = ctx.out->shown(r.error);
  auto meta = write_file_atomic(dump_json(run_json(r, *ctx.opts), 2) + "\n", f.meta);
  if (!meta && r.error.empty()) r.error = ctx.out ? ctx.out->shown(meta.error().message) : meta.error().message;
  return r;
}

std::optional<double> tracer_ns_per_op(const Profile& p) {
  if (p.bpf_programs.empty()) return std::nullopt;
  double ns = 0, ops = 0;
  for (const ProgramCost& g : p.bpf_programs) ns += static_cast<double>(g.run_ns);
  for (const OpStats& o : p.ops) ops += static_cast<double>(o.count);
  if (ops == 0) return std::nullopt;
  return ns / ops;
}

void discard_run(const CompareOptions& o, const PlannedRun& run) {
  remove_files(o, run_files(o, run));
}

nlohmann::json run_json(const RunResult& r, const CompareOptions& o) {
  const ConfigSpec& cfg = o.configs[static_cast<std::size_t>(r.plan.config)];
  nlohmann::json j{{"index", r.plan.index},
                   {"config", std::string(1, config_letter(r.plan.config))},
                   {"label", cfg.label},
                   {"rep", r.plan.rep},
                   {"profile", r.profile},
                   {"mkfs", r.mkfs_cmd},
                   {"mount_opts", cfg.mount_opts},
                   {"workload_argv", r.argv},
                   {"start_unix_ms", r.start_unix_ms},
                   {"seconds", r.seconds},
                   {"exit_code", r.exit_code},
                   {"workload", r.workload},
                   {"ops_per_s", r.ops_per_s ? nlohmann::json(*r.ops_per_s) : nlohmann::json()},
                   {"ops_per_s_source", r.ops_source}};
  if (r.plan.threads > 0) j["threads"] = r.plan.threads;
  if (!r.error.empty()) j["error"] = r.error;
  if (!r.late_warmup.empty()) j["warmup"] = r.late_warmup;
  return j;
}

std::string tail_lines(const std::string& text, std::size_t lines) {
  std::vector<std::string> kept;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    kept.push_back(line);
    if (kept.size() > lines) kept.erase(kept.begin());
  }
  std::string s;
  for (const auto& l : kept) s += (s.empty() ? "" : "\n") + l;
  return s;
}

nlohmann::json last_json_line(const std::string& out) {
  std::istringstream in(out);
  std::string line;
  nlohmann::json last;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '{') continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.is_object()) last = std::move(j);
  }
  return last;
}

nlohmann::json fs_mark_figures(const std::string& out) {
  std::istringstream in(out);
  std::string line;
  int column = -1;
  std::vector<double> rates;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<std::string> w{std::istream_iterator<std::string>(words), {}};
    auto header = std::find(w.begin(), w.end(), "Files/sec");
    if (header != w.end()) {
      column = static_cast<int>(header - w.begin());
      continue;
    }
    if (column < 0 || w.size() <= static_cast<std::size_t>(column) || w[0][0] == '#') continue;
    char* end = nullptr;
    double v = std::strtod(w[static_cast<std::size_t>(column)].c_str(), &end);
    if (end && *end == '\0') rates.push_back(v);
  }
  if (rates.empty()) return nullptr;
  double sum = 0;
  for (double v : rates) sum += v;
  return {{"ops_per_s", sum / static_cast<double>(rates.size())},
          {"fs_mark_rows", rates.size()},
          {"files_per_s", rates}};
}

}  // namespace fscost
