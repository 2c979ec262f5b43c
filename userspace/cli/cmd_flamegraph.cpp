// fscost flamegraph: profiles (or folded stacks) → self-contained SVG.
#include "cli/cmd_flamegraph.h"

#include <fmt/format.h>
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <future>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "model/file_io.h"
#include "model/huge_pages.h"
#include "flame/flamegraph.h"
#include "io/folded.h"
#include "io/profile_io.h"
#include "report/report.h"

namespace fscost {

namespace {

struct FlameArgs {
  std::string file;
  std::vector<std::string> diff;  // A, B
  std::string view = "oncpu";
  std::optional<std::string> op;
  bool per_op = false;
  bool icicle = false;
  std::string width = "b";
  std::string color = "inclusive";
  double min_width = 0.1;
  int image_width = 1200;
  std::optional<std::string> title;
  std::string output;  // "" = flamegraph.svg or flamegraph-diff.svg; "-" = stdout
  bool quiet = false;
};

bool is_folded(const std::string& path) { return path.ends_with(".folded"); }

// One input: a profile, or folded stacks (which carry no op counts).
struct Source {
  std::string path;
  std::optional<Profile> profile;
  InternedFolded folded;
};

Source load(const std::string& path) {
  Source s{path, std::nullopt, {}};
  if (is_folded(path))
    s.folded = take(parse_folded_interned(take(read_whole_file(path, "folded stacks")), path));
  else
    s.profile = take(read_profile(path));
  return s;
}

void check_options(const Source& s, const FlameArgs& a, bool per_op) {
  if (s.profile) {
    ReportOptions opt;
    opt.view = take(parse_view(a.view));
    opt.op = a.op;
    take(validate_report_options(*s.profile, opt));
  } else if (per_op) {
    throw UserError(fmt::format("{}: folded stacks carry no operation counts, so no cost per "
                                "operation",
                                s.path),
                    "drop --per-op, or record a profile with `fscost record`");
  }
}

SvgOptions base_options(const Source& s, const FlameArgs& a, bool per_op) {
  SvgOptions o;
  if (s.profile) {
    o = flame_svg_options(*s.profile, take(parse_view(a.view)), a.op, per_op);
  } else {
    o.title = fmt::format("Flame graph{}", a.op ? ": " + *a.op : "");
    o.subtitle = s.path;
    o.unit = "samples";
  }
  o.icicle = a.icicle;
  o.min_width_px = a.min_width;
  o.width = a.image_width;
  if (a.title) o.title = *a.title;
  return o;
}

// What a graph was drawn from is left to the process's exit, as clang
// leaves its AST (-disable-free): freeing a 100k-stack profile and its
// million-node tree one allocation at a time was ~18% of the command
// (perf: malloc_consolidate, _int_free, ~vector). Sanitizer builds free
// it, so their leak checks keep their meaning.
#if defined(__SANITIZE_ADDRESS__)
#define FSCOST_FREE_AT_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FSCOST_FREE_AT_EXIT 1
#endif
#endif
template <typename T>
void leave_to_exit(T& value) {
#ifdef FSCOST_FREE_AT_EXIT
  (void)value;
#else
  static_cast<void>(new T(std::move(value)));
#endif
}

std::string draw(DiffGraph graph, double min_width_px) {
  std::string svg = graph.render(min_width_px);
  leave_to_exit(graph);
  return svg;
}

std::string single_of(const Source& s, const FlameArgs& a);

// A graph's memory is mostly its input's, read into many small heap
// blocks (a profile's stacks: about 9× the file, a folded file's 2×): the
// heap is grown for it in huge pages first (model/huge_pages.h; on a guest
// whose page faults trap to the host they were a third of the command).
// The size only sizes a hint; the file is checked as it is read.
void grow_heap_for(std::initializer_list<std::string> paths) {
  constexpr std::uintmax_t kPerInputByte = 8, kMost = std::uintmax_t{1} << 30;
  std::uintmax_t size = 0;
  for (const auto& path : paths) {
    std::error_code ec;
    const std::uintmax_t n = std::filesystem::file_size(path, ec);
    if (!ec) size += n;
  }
  grow_heap_in_huge_pages(std::min(size * kPerInputByte, kMost));
}

std::string single(const FlameArgs& a) {
  grow_heap_for({a.file});
  Source s = load(a.file);
  std::string svg = single_of(s, a);
  leave_to_exit(s);
  return svg;
}

std::string single_of(const Source& s, const FlameArgs& a) {
  check_options(s, a, a.per_op);
  SvgOptions o = base_options(s, a, a.per_op);
  if (!s.profile && s.folded.two_column) {
    // difffolded.pl output: draw the difference it holds.
    DiffOptions d;
    d.svg = o;
    d.svg.title = a.title.value_or("Differential flame graph");
    return draw(DiffGraph(s.folded, 0, s.folded, 1, a.op, d), d.svg.min_width_px);
  }
  // Straight from the interned stacks, only the drawn frames made.
  if (s.profile) return render_profile_svg(*s.profile, take(parse_view(a.view)), a.op, a.per_op, o);
  return render_folded_svg(s.folded, a.op, o);
}

std::string describe(const Source& s) {
  if (!s.profile) return s.path;
  const Metadata& m = s.profile->meta;
  return fmt::format("{} ({}, {}, kernel {})", s.path, m.command, m.hostname, m.kernel_release);
}

std::string differential_of(const Source& sa, const Source& sb, const FlameArgs& a);

std::string differential(const FlameArgs& a) {
  // The two inputs are independent, and reading them is most of the time.
  // Both threads allocate from the one heap grown in huge pages: a second
  // thread's own arena would take its pages 4 KiB at a time.
  grow_heap_for({a.diff[0], a.diff[1]});
  mallopt(M_ARENA_MAX, 1);
  auto second = std::async(std::launch::async, load, a.diff[1]);
  Source sa = load(a.diff[0]);
  Source sb = second.get();
  std::string svg = differential_of(sa, sb, a);
  leave_to_exit(sa);
  leave_to_exit(sb);
  return svg;
}

std::string differential_of(const Source& sa, const Source& sb, const FlameArgs& a) {
  if (sa.profile.has_value() != sb.profile.has_value())
    throw UserError("--diff needs two profiles or two folded files, not one of each",
                    "a profile diff is per operation, folded stacks have no op counts; "
                    "`fscost convert --to folded` turns a profile into folded stacks");
  // Profiles are compared per operation: a run that did more operations
  // is not "slower" for it.
  bool per_op = sa.profile.has_value();
  check_options(sa, a, false);
  check_options(sb, a, false);
  DiffOptions d;
  d.svg = base_options(sb, a, per_op);
  // "On-CPU flame graph: create, ..." → "Differential on-CPU flame graph: ..."
  if (per_op) d.svg.title[0] = static_cast<char>(std::tolower(d.svg.title[0]));
  d.svg.title = a.title.value_or(
      fmt::format("Differential {}", per_op ? d.svg.title : std::string("flame graph")));
  d.svg.subtitle = fmt::format("A: {} | B: {}{}", describe(sa), describe(sb),
                               per_op ? "" : " | raw values (folded stacks have no op counts)");
  d.width = a.width == "a" ? DiffWidth::A : a.width == "max" ? DiffWidth::Max : DiffWidth::B;
  d.color = a.color == "self" ? DiffColor::Self : DiffColor::Inclusive;
  if (per_op) {
    // Time per operation, as the diff page (µs/op, not samples/op), else
    // samples per operation.
    View view = take(parse_view(a.view));
    DiffOptions ns = d;
    ns.svg.unit = "ns/op";
    if (auto graph = diff_graph_ns_per_op(*sa.profile, *sb.profile, view, a.op, ns))
      return draw(std::move(*graph), d.svg.min_width_px);
    return draw(diff_graph(*sa.profile, *sb.profile, view, a.op, true, d), d.svg.min_width_px);
  }
  return draw(DiffGraph(sa.folded, 0, sb.folded, 0, a.op, d), d.svg.min_width_px);
}

int run_flamegraph(const FlameArgs& a) {
  if (a.diff.empty() == a.file.empty())
    throw UserError("give one FILE, or --diff A B", "fscost flamegraph --help");
  std::string out =
      a.output.empty() ? (a.diff.empty() ? "flamegraph.svg" : "flamegraph-diff.svg") : a.output;
  if (out != "-") take(check_output_path(out));
  std::string svg = a.diff.empty() ? single(a) : differential(a);
  if (out == "-") {
    fmt::print("{}", svg);
    return 0;
  }
  take(write_file_atomic(svg, out));
  if (!a.quiet) fmt::print(stderr, "fscost: wrote {} ({} KiB)\n", out, (svg.size() + 1023) / 1024);
  return 0;
}

}  // namespace

void add_flamegraph(CLI::App& app, std::function<int()>& run) {
  auto a = std::make_shared<FlameArgs>();
  auto* sub = app.add_subcommand("flamegraph", "Draw a profile as an interactive SVG flame graph");
  auto* file = sub->add_option("file", a->file, "Profile (or .folded stacks)");
  auto* diff = sub->add_option("--diff", a->diff, "Differential graph of B against A (per op)")
                   ->expected(2)
                   ->type_name("A B");
  file->excludes(diff);
  sub->add_option("--view", a->view, "oncpu, offcpu or locks")
      ->capture_default_str()
      ->check(CLI::IsMember({"oncpu", "offcpu", "locks"}));
  sub->add_option("--op", a->op, "Only this operation's stacks");
  auto* per_op = sub->add_flag("--per-op", a->per_op, "Cost per operation (divide by op count)");
  per_op->excludes(diff);
  sub->add_flag("--icicle", a->icicle, "Root at the top, stacks growing down");
  sub->add_option("--width", a->width, "Diff: frame widths from b, a or max")
      ->capture_default_str()
      ->check(CLI::IsMember({"b", "a", "max"}))
      ->needs(diff);
  sub->add_option("--color", a->color, "Diff: colour by inclusive or self delta")
      ->capture_default_str()
      ->check(CLI::IsMember({"inclusive", "self"}))
      ->needs(diff);
  sub->add_option("--min-width", a->min_width, "Prune frames narrower than this (px)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--image-width", a->image_width, "SVG width (px)")
      ->capture_default_str()
      ->check(CLI::Range(200, 100000));
  sub->add_option("--title", a->title, "Title instead of the default");
  sub->add_flag("-q,--quiet", a->quiet, "No 'wrote' line");
  sub->add_option("-o,--output", a->output,
                  "SVG file (default flamegraph.svg, or flamegraph-diff.svg; - for stdout)");
  sub->callback([a, &run] { run = [a] { return run_flamegraph(*a); }; });
}

}  // namespace fscost
