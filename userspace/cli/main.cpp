// fscost: where a filesystem operation's kernel cost goes.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <optional>

#include "cli/cmd_calibrate.h"
#include "cli/cmd_compare.h"
#include "cli/cmd_convert.h"
#include "cli/cmd_diff.h"
#include "cli/cmd_flamegraph.h"
#include "cli/cmd_html.h"
#include "cli/cmd_import.h"
#include "cli/commands.h"
#include "cli/help_format.h"
#include "collector/function_timer.h"
#include "collector/libbpf_log.h"
#include "collector/map_sizes.h"
#include "model/escape.h"
#include "model/result.h"

namespace {

using fscost::RecordArgs;

std::optional<mode_t> parse_umask(const std::string& v) {
  if (v.empty() || v.size() > 4 || v.find_first_not_of("01234567") != std::string::npos)
    return std::nullopt;
  return static_cast<mode_t>(std::stoul(v, nullptr, 8));
}
using fscost::ReportArgs;

void add_record(CLI::App& app, RecordArgs& a, std::function<int()>& run) {
  auto* sub = app.add_subcommand("record", "Record per-operation kernel cost of a target");
  sub->add_option("-o,--output", a.output, "Profile file to write")->capture_default_str();
  sub->add_option("-F,--freq", a.collector.freq_hz, "cpu-clock samples per second per CPU")
      ->capture_default_str()
      ->check(CLI::Range(1u, 100000u));
  auto* all = sub->add_flag("-a,--all-cpus", a.all, "Record every process (system-wide)");
  auto* pid = sub->add_option("-p,--pid", a.pid, "Record an existing process (and its new children)")
                  ->check(CLI::PositiveNumber);
  sub->add_option("-d,--duration", a.duration_s, "Stop after SECONDS (with -a or -p)")
      ->check(CLI::PositiveNumber);
  // Map sizes: unset, they grow with the CPU count (collector/map_sizes.h).
  for (const auto& o : fscost::kMapSizeOptions)
    sub->add_option(o.flag, a.collector.sizes.*o.asked,
                    fmt::format("{} (default {}, or {} per CPU above {} CPUs)", o.what, o.floor,
                                o.per_cpu, o.floor / o.per_cpu))
        ->check(CLI::Range(fscost::kMinMapEntries, fscost::kMaxMapEntries));
  sub->add_option("--probes", a.probes,
                  "Probe groups besides ops and samples: default (all but xfsbuf), all, none, or a "
                  "list of offcpu,wakers,locks,xfs,xfsbuf,block")
      ->capture_default_str();
  sub->add_flag("--user-stacks", a.collector.user_stacks,
               "User stacks of the target's user-mode samples (frame pointers)");
  auto* fs = sub->add_option("--fs", a.fs_dir,
                             "The test filesystem (a directory on it): XFS events of its "
                             "superblock only, its device's writes split into data, metadata, log");
  sub->add_flag("--sync", a.sync_fs,
                "After the command exits, syncfs the --fs filesystem inside the recording "
                "(op 'sync'): its writeback lands in this profile")
      ->needs(fs);
  sub->add_option_function<std::string>(
      "--time-functions",
      [&a](const std::string& spec) {
        auto names = fscost::parse_function_list(spec);
        if (!names) throw CLI::ValidationError(names.error().message);
        a.collector.time_functions = std::move(names).value();
      },
      "Time these kernel functions per operation, entry to return (fentry/fexit; comma list, "
      "up to 8: xfs_trans_roll,xfs_attr_set). Where the kernel refuses trampolines the "
      "recording goes on without them, and says why")
      ->type_name("LIST");
  sub->add_flag("--bpf-stats", a.collector.bpf_stats,
                "Time fscost's own BPF programs (bpf_stats; costs two clock reads per event)");
  sub->add_flag("--keep-addresses", a.keep_addresses,
                "Keep lock addresses in the profile (default: per-recording ids; they reveal KASLR)");
  sub->add_flag("-q,--quiet", a.quiet,
                "No progress line; no summary line unless something was dropped");
  auto* cmd = sub->add_option("command", a.command, "Command to run and record (after --)");
  all->excludes(pid)->excludes(cmd);
  pid->excludes(cmd);
  sub->callback([&a, &run] {
    a.collector.trace_all = a.all;
    run = [&a] { return fscost::cmd_record(a); };
  });
}

void add_report(CLI::App& app, ReportArgs& a, std::function<int()>& run) {
  auto* sub = app.add_subcommand("report", "Print a recorded profile");
  sub->add_option("file", a.file, "Profile file")->required();
  sub->add_option("--format", a.format, "text, json or folded")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json", "folded"}));
  sub->add_option("--view", a.view, "oncpu, offcpu or locks")
      ->capture_default_str()
      ->check(CLI::IsMember({"oncpu", "offcpu", "locks"}));
  sub->add_option("--op", a.op, "Only this operation");
  sub->add_option("--top", a.top,
                  "Entries of each ranked list shown per operation: stacks (oncpu, offcpu), "
                  "locks (locks)")
      ->capture_default_str();
  sub->callback([&a, &run] { run = [&a] { return fscost::cmd_report(a); }; });
}

void add_features(CLI::App& app, std::function<int()>& run) {
  auto* sub = app.add_subcommand("features", "What this kernel allows fscost to probe");
  sub->callback([&run] { run = [] { return fscost::cmd_features(); }; });
}

bool is_command(const CLI::App& app, const std::string& word) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->get_name() == word) return true;
  return false;
}

// -1 to go on; else the exit status: 0 after --help or --version, 2 for a
// usage error (an unknown command, a bad option or value), as perf and git.
int parse(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return -1;
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version: printed on stdout
  } catch (const CLI::ParseError& e) {
    if (argc < 2) {
      fmt::print(stderr, "{}", app.help());
      return 2;
    }
    std::string first = argv[1];
    if (first[0] != '-' && !is_command(app, first)) return fscost::unknown_command(app, first);
    fmt::print(stderr, "fscost: error: {}\n", e.what());
    std::string cmd = first[0] == '-' ? "" : first + " ";
    fmt::print(stderr, "hint: see 'fscost {}--help'\n", cmd);
    return 2;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Named, so usage lines say `fscost record` whatever the binary's path.
  CLI::App app{"fscost: per-operation kernel cost of filesystem workloads", "fscost"};
  app.formatter(std::make_shared<fscost::HelpFormatter>());  // subcommands inherit it
  app.require_subcommand(1);
  app.set_version_flag("--version", FSCOST_VERSION);
  // Global, accepted after the command too (fscost compare --umask 022 …).
  app.fallthrough();
  std::string umask_arg;
  app.add_option("--umask", umask_arg,
                 "File mode mask of every output (octal); default as root 077: profiles, "
                 "summaries and run logs 0600, directories 0700 (docs/HARDENING.md)")
      ->check([](const std::string& v) { return parse_umask(v) ? "" : "an octal mask, e.g. 022"; });
  RecordArgs record;
  ReportArgs report;
  std::function<int()> run;
  add_record(app, record, run);
  add_report(app, report, run);
  fscost::add_flamegraph(app, run);
  add_features(app, run);
  fscost::add_import(app, run);
  fscost::add_convert(app, run);
  fscost::add_html(app, run);
  fscost::add_diff(app, run);
  fscost::add_compare(app, run);
  fscost::add_calibrate(app, run);
  fscost::add_cleanup(app, run);
  fscost::add_generate_docs(app, run);
  if (int rc = parse(app, argc, argv); rc >= 0) return rc;
  // Outputs hold the host's name, the command lines, mkfs's UUIDs: as root,
  // private unless asked otherwise. The workloads inherit the mask too.
  if (!umask_arg.empty())
    ::umask(*parse_umask(umask_arg));
  else if (::geteuid() == 0)
    ::umask(077);
  fscost::setup_libbpf_logging();
  try {
    return run();
  } catch (const fscost::UserError& e) {
    // Messages quote input (file names, spec words): no escapes to the terminal.
    fmt::print(stderr, "fscost: error: {}\n", fscost::terminal_safe(e.what()));
    if (!e.hint().empty()) fmt::print(stderr, "hint: {}\n", fscost::terminal_safe(e.hint()));
    return 1;
  } catch (const std::exception& e) {
    // Caught so the stack unwinds and every RAII resource (mounts, loop
    // devices, images) is released; e.g. a write to a closed stderr.
    std::fprintf(stderr, "fscost: error: %s\n", fscost::terminal_safe(e.what()).c_str());
    return 1;
  }
}
