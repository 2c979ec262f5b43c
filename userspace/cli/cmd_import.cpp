// fscost import: perf script text, folded stacks or pprof -> profile file.
#include "cli/cmd_import.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>

#include "model/file_io.h"
#include "io/folded.h"
#include "io/perf_script.h"
#include "io/pprof.h"
#include "io/profile_io.h"
#include "compare/progress.h"  // format_duration
#include "system/status_line.h"

namespace fscost {

namespace {

struct ImportArgs {
  std::string file;
  std::string output = "fscost.profile";
  std::string event;  // perf-script
  int column = 0;     // folded
  std::optional<std::string> sample_type;  // pprof
  bool quiet = false;
};

Result<std::string> read_input(const std::string& path) {
  if (path != "-") return read_whole_file(path, "input");
  const std::size_t limit = max_input_bytes();
  std::string text;
  char buf[1 << 16];
  while (std::cin.read(buf, sizeof buf) || std::cin.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(std::cin.gcount()));
    if (text.size() > limit) return input_too_large("input", "<stdin>", limit);
  }
  if (std::cin.bad()) return Error{"cannot read standard input", ""};
  return text;
}

std::string origin_of(const std::string& path) { return path == "-" ? "<stdin>" : path; }

// What landed where, so an import that attributed nothing is noticed.
void print_summary(const Profile& p, const std::string& output) {
  std::uint64_t in_ops = 0, kept = 0;
  for (const auto& s : p.samples) {
    kept += s.count;
    if (s.kind == SampleKind::Op) in_ops += s.count;
  }
  fmt::print(stderr,
             "fscost: {} samples: {} kept ({} in operations), {} idle or without a stack -> {}\n",
             p.samples_total, kept, in_ops, p.samples_total - kept, output);
}

int save(const Profile& p, const ImportArgs& a, StatusLine& status) {
  status.stage(fmt::format("fscost import: {}: writing {}", format_duration(status.elapsed()), a.output));
  take(write_profile_atomic(p, a.output));
  status.clear();
  if (!a.quiet) print_summary(p, a.output);
  return 0;
}

// The input, with a status line: a large perf script takes a while.
std::string read_with_status(const ImportArgs& a, StatusLine& status) {
  take(check_output_path(a.output));  // before the reading and parsing
  status.stage(fmt::format("fscost import: reading {}", origin_of(a.file)));
  std::string text = take(read_input(a.file));
  status.stage(fmt::format("fscost import: {}: parsing {} MiB", format_duration(status.elapsed()),
                           text.size() >> 20));
  return text;
}

int run_perf_script(const ImportArgs& a) {
  StatusLine status(stderr, a.quiet);
  std::string text = read_with_status(a, status);
  PerfScriptOptions opt;
  opt.event = a.event;
  return save(take(fscost::import_perf_script(text, origin_of(a.file), opt)), a, status);
}

int run_folded(const ImportArgs& a) {
  StatusLine status(stderr, a.quiet);
  std::string text = read_with_status(a, status);
  FoldedStacks stacks = take(parse_folded(text, origin_of(a.file)));
  if (a.column == 1 && !stacks.two_column)
    throw UserError(
        fmt::format("{} has one count per line; --column 1 needs two", origin_of(a.file)),
        "drop --column, or pass a two-column (diff) folded file");
  FoldedImportOptions opt;
  opt.column = a.column;
  opt.origin = origin_of(a.file);
  return save(profile_from_folded(stacks, opt), a, status);
}

int run_pprof(const ImportArgs& a) {
  StatusLine status(stderr, a.quiet);
  std::string data = read_with_status(a, status);
  pprof::ImportOptions opt;
  opt.origin = origin_of(a.file);
  opt.sample_type = a.sample_type;
  return save(take(pprof::import_pprof(data, opt)), a, status);
}

}  // namespace

void add_import(CLI::App& app, std::function<int()>& run) {
  auto a = std::make_shared<ImportArgs>();
  auto* sub = app.add_subcommand("import", "Turn another tool's stacks into an fscost profile");
  sub->require_subcommand(1);

  auto* perf = sub->add_subcommand("perf-script", "Text of `perf script` (after `perf record -g`)");
  perf->add_option("file", a->file, "perf script output, or - for stdin")->required();
  perf->add_option("-o,--output", a->output, "Profile file to write")->capture_default_str();
  perf->add_flag("-q,--quiet", a->quiet, "No progress line, no summary line");
  perf->add_option("--event", a->event, "Import only this event's samples (e.g. cpu-clock)");
  perf->callback([a, &run] { run = [a] { return run_perf_script(*a); }; });

  auto* folded = sub->add_subcommand("folded", "Folded stacks (FlameGraph, inferno, fscost)");
  folded->add_option("file", a->file, "Folded stacks, or - for stdin")->required();
  folded->add_option("-o,--output", a->output, "Profile file to write")->capture_default_str();
  folded->add_flag("-q,--quiet", a->quiet, "No progress line, no summary line");
  folded->add_option("--column", a->column, "Two-column (diff) input: which count, 0 or 1")
      ->capture_default_str()
      ->check(CLI::Range(0, 1));
  folded->callback([a, &run] { run = [a] { return run_folded(*a); }; });

  auto* pprof = sub->add_subcommand("pprof", "pprof profile.proto (gzipped or not): fscost's own "
                                             "exports whole, other profiles' stacks as on-CPU");
  pprof->add_option("file", a->file, "profile.proto file, or - for stdin")->required();
  pprof->add_option("-o,--output", a->output, "Profile file to write")->capture_default_str();
  pprof->add_flag("-q,--quiet", a->quiet, "No progress line, no summary line");
  pprof->add_option("--sample-type", a->sample_type,
                    "Another tool's profile: the sample type to import as on-CPU samples "
                    "(default: samples, else the profile's default)");
  pprof->callback([a, &run] { run = [a] { return run_pprof(*a); }; });
}

}  // namespace fscost
