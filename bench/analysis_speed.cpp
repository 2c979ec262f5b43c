// analysis_speed: time and peak memory of the analysis stages on synthetic
// profile sets at stress scale (docs/PERFORMANCE.md, "Analysis speed").
//
//   analysis_speed [--stacks N] [--runs R] [--repeat K] [--diff-repeat K] [--smoke]
//                  [--keep DIR [--write-only]] [--flamegraph-dir DIR] [--fscost PATH]
//                  [--baseline-fscost PATH] [--small-stacks N] [--small-runs R]
//
// Writes R runs of configuration A and R of B (N unique on-CPU stacks each,
// depth 10–40, XFS-like frames; B has 20% new code) to a temporary
// directory, then measures, each pipeline in its own child process: loading
// the 2 × R profiles, the diff, its HTML report; `fscost diff -o` end to
// end (its JSON included); and one flame graph of N stacks. Prints a markdown table with the
// targets. Not a timed test.
// --keep DIR writes the profiles to DIR instead and keeps them, with the
// diff's report.html and the graph's flame.svg, to compare outputs across
// builds; with --write-only it stops there, to profile a stage by hand.
// --flamegraph-dir (default $FLAMEGRAPH_DIR) adds fscost flamegraph
// beside FlameGraph's flamegraph.pl and difffolded.pl (flame_peers.h), with
// the fscost binary --fscost (default ../userspace/fscost from this one).
// Then the binaries end to end (binaries.h): `fscost diff -o` on these runs
// and on a small set (--small-stacks, --small-runs: 5000 × 5), the flame
// graphs, beside --baseline-fscost (another build's) when given.
// The flame graphs, beside FlameGraph and end to end, and `fscost diff -o`
// also run on a second shape of the same size (synth_profile.h,
// Shape::RandomWalk): random walks down a call graph, whose stacks share
// few frames (issue 41: the synthetic shape hid a per-node cost).
#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include "report/diff_report.h"
#include "flame/flamegraph.h"
#include "io/profile_io.h"
#include "stages.h"
#include "binaries.h"
#include "flame_peers.h"
#include "synth_profile.h"

namespace fs = std::filesystem;
using namespace fscost;
using namespace fscost::bench;

namespace {

struct Options {
  std::size_t stacks = 100'000;
  std::size_t runs = 10;
  int repeat = 3;       // flame graph pipeline (seconds each)
  int diff_repeat = 1;  // diff pipeline (minutes at full scale on a 2-CPU VM)
  std::string keep;     // directory to keep profiles and outputs in; "" = temporary
  PeerOptions peers;    // flame graphs against FlameGraph's scripts
  std::string baseline_fscost;  // another build's fscost, run beside this one's
  std::size_t small_stacks = 5'000;
  std::size_t small_runs = 5;
  bool write_only = false;  // --keep's sets written, nothing measured
};

[[noreturn]] void usage() {
  std::cerr << "usage: analysis_speed [--stacks N] [--runs R] [--repeat K] [--diff-repeat K]"
               " [--smoke] [--keep DIR [--write-only]] [--flamegraph-dir DIR]\n"
               "                      [--fscost PATH]\n"
               "                      [--baseline-fscost PATH] [--small-stacks N] [--small-runs R]\n";
  std::exit(2);
}

Options parse_options(int argc, char** argv) {
  Options o;
  if (const char* d = std::getenv("FLAMEGRAPH_DIR")) o.peers.flamegraph_dir = d;
  o.peers.fscost = (fs::read_symlink("/proc/self/exe").parent_path().parent_path() / "userspace" /
                    "fscost")
                       .string();
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto number = [&]() -> unsigned long {
      if (i + 1 >= argc) usage();
      char* end = nullptr;
      unsigned long v = std::strtoul(argv[++i], &end, 10);
      if (*end || v == 0) usage();
      return v;
    };
    if (a == "--stacks")
      o.stacks = number();
    else if (a == "--runs")
      o.runs = number();
    else if (a == "--repeat")
      o.repeat = static_cast<int>(number());
    else if (a == "--diff-repeat")
      o.diff_repeat = static_cast<int>(number());
    else if (a == "--smoke")
      o = {1'000, 2, 1, 1, o.keep, o.peers, o.baseline_fscost, 200, 2};
    else if (a == "--small-stacks")
      o.small_stacks = number();
    else if (a == "--small-runs")
      o.small_runs = number();
    else if (a == "--baseline-fscost" && i + 1 < argc)
      o.baseline_fscost = argv[++i];
    else if (a == "--write-only")
      o.write_only = true;
    else if (a == "--keep" && i + 1 < argc)
      o.keep = argv[++i];
    else if (a == "--flamegraph-dir" && i + 1 < argc)
      o.peers.flamegraph_dir = argv[++i];
    else if (a == "--fscost" && i + 1 < argc)
      o.peers.fscost = argv[++i];
    else
      usage();
  }
  return o;
}

// A private directory for the profiles, removed on every exit path.
class TempDir {
 public:
  // `keep`: use that directory (created) and leave it in place.
  explicit TempDir(const std::string& keep) : keep_(!keep.empty()) {
    if (keep_) {
      // Profiles left from an earlier run would be loaded with the new ones.
      if (fs::exists(keep) && !fs::is_empty(keep))
        throw std::runtime_error("--keep " + keep + ": the directory is not empty");
      fs::create_directories(keep);
      path_ = keep;
      return;
    }
    std::string templ = (fs::temp_directory_path() / "fscost-analysis-speed-XXXXXX").string();
    if (!mkdtemp(templ.data()))
      throw std::runtime_error("mkdtemp: " + std::string(strerror(errno)));
    path_ = templ;
  }
  ~TempDir() {
    if (keep_) return;
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  bool keep_ = false;
};

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + path.string());
}

std::string run_path(const fs::path& dir, const std::string& side, std::size_t i) {
  return (dir / side / fmt::format("run-{:02}.profile", i)).string();
}

void write_side(const fs::path& dir, const std::string& side, const StackSet& set, std::size_t runs,
                unsigned seed) {
  fs::create_directories(dir / side);
  for (std::size_t i = 0; i < runs; ++i)
    take(write_profile_atomic(synth_run(set, seed + static_cast<unsigned>(i)),
                              run_path(dir, side, i)));
}

void generate_set(const fs::path& dir, std::size_t stacks, std::size_t runs,
                  Shape shape = Shape::Synthetic) {
  auto a = synth_stacks({.stacks = stacks, .seed = 1, .shape = shape});
  write_side(dir, "A", a, runs, 100);
  a = {};
  auto b = synth_stacks({.stacks = stacks, .seed = 1, .changed_share = 0.2, .shape = shape});
  write_side(dir, "B", b, runs, 200);
}

// The profiles under `dir` again under `to`, in format version 2: what a
// baseline build from before format 3 reads.
void write_version2(const fs::path& dir, const fs::path& to) {
  std::vector<fs::path> profiles;  // listed first: `to` may be under `dir`
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".profile") profiles.push_back(e.path());
  for (const auto& p : profiles) {
    fs::path out = to / fs::relative(p, dir);
    fs::create_directories(out.parent_path());
    write_file(out, serialize_profile(take(read_profile(p.string())), 2));
  }
}

// The random-walk shape's set, beside the synthetic one.
fs::path walk_dir(const fs::path& dir) { return dir / "walk"; }

void generate(StageRecorder& rec, const Options& o, const fs::path& dir) {
  rec.time("generate and write", [&] {
    generate_set(dir, o.stacks, o.runs);
    generate_set(dir / "small", o.small_stacks, o.small_runs);
    generate_set(walk_dir(dir), o.stacks, o.runs, Shape::RandomWalk);
  });
  std::uintmax_t bytes = 0;
  for (const auto& side : {"A", "B"})
    for (const auto& e : fs::directory_iterator(dir / side))
      if (e.is_regular_file()) bytes += e.file_size();
  rec.note(fmt::format("2 × {} profiles, {:.0f} MB; as many of random walks", o.runs, bytes / 1e6));
}

// What `fscost diff A B` does, stage by stage: load both run sets, diff,
// render the HTML report.
void diff_pipeline(StageRecorder& rec, const fs::path& dir, bool keep) {
  auto [a, b] = rec.time("load", [&] {
    return std::pair{take(load_runs((dir / "A").string(), "A")),
                     take(load_runs((dir / "B").string(), "B"))};
  });
  rec.note(fmt::format("load_runs × 2: {} profiles", a.runs.size() + b.runs.size()));
  auto d = rec.time("diff_runs", [&] { return diff_runs(a, b); });
  std::size_t functions = 0;
  for (const auto& op : d.ops) functions += op.functions.size();
  rec.note(fmt::format("{} ops, {} functions compared, {} comparisons under FDR", d.ops.size(),
                       functions, d.family));
  auto html = rec.time("render_diff_html", [&] { return render_diff_html(d, a, b); });
  rec.note(fmt::format("{:.1f} MB HTML", html.size() / 1e6));
  if (keep) write_file(dir / "report.html", html);
  double diff = rec.seconds_of("diff_runs") + rec.seconds_of("render_diff_html");
  rec.add("diff + HTML", diff, "diff_runs + render_diff_html");
  rec.add("load + diff + HTML", rec.seconds_of("load") + diff, "fscost diff A B, end to end");
}

// What `fscost diff -o OUT A B` does: load, diff, then write_diff_outputs
// (summary.txt, summary.json, report.html), the JSON included. The HTML is
// rendered again here rather than reused, as the command does it.
void diff_o_pipeline(StageRecorder& rec, const fs::path& dir) {
  auto [a, b] = rec.time("load (diff -o)", [&] {
    return std::pair{take(load_runs((dir / "A").string(), "A")),
                     take(load_runs((dir / "B").string(), "B"))};
  });
  auto d = rec.time("diff_runs (diff -o)", [&] { return diff_runs(a, b); });
  fs::path out = dir / "diff-o";
  rec.time("write_diff_outputs", [&] { take(write_diff_outputs(d, a, b, out.string())); });
  auto mb = [&](const char* name) { return fs::file_size(out / name) / 1e6; };
  rec.note(fmt::format("summary.json {:.1f} MB, report.html {:.1f} MB", mb("summary.json"),
                       mb("report.html")));
  rec.add("fscost diff -o, end to end",
          rec.seconds_of("load (diff -o)") + rec.seconds_of("diff_runs (diff -o)") +
              rec.seconds_of("write_diff_outputs"),
          "load + diff_runs + write_diff_outputs");
}

// What `fscost flamegraph PROFILE` does, stage by stage: read the profile,
// merge its stacks into the tree, lay it out and write the SVG. `shape`
// ("" for the synthetic one) follows each stage's name.
void svg_pipeline(StageRecorder& rec, const fs::path& dir, bool keep, const std::string& shape) {
  auto name = [&](const char* stage) {
    return shape.empty() ? std::string(stage) : fmt::format("{} ({})", stage, shape);
  };
  auto p =
      rec.time(name("read_profile"), [&] { return take(read_profile(run_path(dir, "A", 0))); });
  rec.note(fmt::format("{} stacks", p.samples.size()));
  auto tree =
      rec.time(name("flame_tree"), [&] { return flame_tree(p, View::OnCpu, std::nullopt, false); });
  rec.note("straight from the interned stacks");
  auto opt = flame_svg_options(p, View::OnCpu, std::nullopt, false);
  auto svg = rec.time(name("render_svg"), [&] { return render_tree_svg(tree, opt); });
  rec.note(fmt::format("{:.1f} MB SVG", svg.size() / 1e6));
  rec.add(name("flame_tree + render_svg"),
          rec.seconds_of(name("flame_tree")) + rec.seconds_of(name("render_svg")),
          "one flame graph of a loaded profile");
  if (keep) write_file(dir / "flame.svg", svg);
}

// Median seconds, max peak RSS and the first note of each stage over the
// repeats, in first-seen order.
struct Row {
  std::string name, note;
  std::vector<double> seconds;
  long peak_rss_kb = 0;
};

void collect(std::vector<Row>& rows, const std::vector<StageResult>& stages) {
  for (const auto& s : stages) {
    auto it =
        std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.name == s.name; });
    if (it == rows.end()) it = rows.insert(rows.end(), Row{s.name, s.note, {}, 0});
    it->seconds.push_back(s.seconds);
    it->peak_rss_kb = std::max(it->peak_rss_kb, s.peak_rss_kb);
  }
}

// Targets from the issue: diff + HTML for 2 × 10 runs ≤ 2 s, one graph ≤ 1 s.
std::string target_of(const std::string& stage) {
  static const std::map<std::string, std::string> targets = {
      {"diff + HTML", "≤ 2 s"},
      {"flame_tree + render_svg", "≤ 1 s"},
      {"fscost diff -o, end to end", "≤ 1.2 s"}};
  auto it = targets.find(stage);
  return it == targets.end() ? "–" : it->second;
}

std::string verdict(const Row& r) {
  auto t = target_of(r.name);
  if (t == "–") return "";
  double limit = std::stod(t.substr(t.find(' ') + 1));  // "≤ 1.2 s"
  return median(r.seconds) <= limit ? " met" : " **missed**";
}

void print_table(const std::vector<Row>& rows, const Options& o) {
  fmt::print(
      "{} unique stacks per profile, {} runs per configuration; diff pipeline run {}×,"
      " flame graph {}× (median)\n\n",
      o.stacks, o.runs, o.diff_repeat, o.repeat);
  fmt::print("| stage | input / output | wall s (median) | runs (s) | peak RSS MB | target |\n");
  fmt::print("|---|---|---|---|---|---|\n");
  for (const auto& r : rows) {
    std::string runs;
    for (double s : r.seconds) runs += fmt::format("{:.3f} ", s);
    fmt::print("| {} | {} | {:.3f} | {}| {:.0f} | {}{} |\n", r.name, r.note, median(r.seconds),
               runs, r.peak_rss_kb / 1024.0, target_of(r.name), verdict(r));
  }
}

// The commands a user runs on these profiles, with issue 43's targets.
std::vector<BinaryCommand> binary_commands(const Options& o, const fs::path& dir) {
  auto side = [](const fs::path& d, const char* s) { return (d / s).string(); };
  fs::path small = dir / "small", walk = walk_dir(dir);
  return {
      {"fscost diff -o", fmt::format("2 × {} runs × {} stacks", o.runs, o.stacks),
       {"diff", "-q", "-o", "{out}", side(dir, "A"), side(dir, "B")}, 1.2, 300},
      {"fscost diff -o", fmt::format("2 × {} runs × {} stacks", o.small_runs, o.small_stacks),
       {"diff", "-q", "-o", "{out}", side(small, "A"), side(small, "B")}, 0.2, 0},
      {"fscost flamegraph", "one profile of A",
       {"flamegraph", "-q", run_path(dir, "A", 0), "-o", "{out}"}, 0, 0},
      {"fscost flamegraph --diff", "one profile of A and one of B",
       {"flamegraph", "-q", "--diff", run_path(dir, "A", 0), run_path(dir, "B", 0), "-o", "{out}"},
       0, 0},
      {"fscost diff -o", fmt::format("random walks: 2 × {} runs × {} stacks", o.runs, o.stacks),
       {"diff", "-q", "-o", "{out}", side(walk, "A"), side(walk, "B")}, 0, 0},
      {"fscost flamegraph", "random walks: one profile of A",
       {"flamegraph", "-q", run_path(walk, "A", 0), "-o", "{out}"}, 0, 0},
      {"fscost flamegraph --diff", "random walks: one profile of A and one of B",
       {"flamegraph", "-q", "--diff", run_path(walk, "A", 0), run_path(walk, "B", 0), "-o",
        "{out}"},
       0, 0},
  };
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse_options(argc, argv);
  try {
    TempDir dir(o.keep);
    bool keep = !o.keep.empty();
    std::vector<Row> rows;
    collect(rows, run_isolated([&](StageRecorder& rec) { generate(rec, o, dir.path()); }));
    if (o.write_only) return 0;
    for (int k = 0; k < o.diff_repeat; ++k)
      collect(rows,
              run_isolated([&](StageRecorder& rec) { diff_pipeline(rec, dir.path(), keep); }));
    for (int k = 0; k < o.diff_repeat; ++k)
      collect(rows, run_isolated([&](StageRecorder& rec) { diff_o_pipeline(rec, dir.path()); }));
    for (int k = 0; k < o.repeat; ++k)
      collect(rows,
              run_isolated([&](StageRecorder& rec) { svg_pipeline(rec, dir.path(), keep, ""); }));
    for (int k = 0; k < o.repeat; ++k)
      collect(rows, run_isolated([&](StageRecorder& rec) {
                svg_pipeline(rec, walk_dir(dir.path()), keep, "random walks");
              }));
    print_table(rows, o);
    fmt::print("\n");
    o.peers.rounds = o.repeat;
    flame_peer_rows(o.peers, {"synthetic", 40, 30}, run_path(dir.path(), "A", 0),
                    run_path(dir.path(), "B", 0), dir.path().string());
    const fs::path walk = walk_dir(dir.path());
    flame_peer_rows(o.peers, {"random walks", 40, 30}, run_path(walk, "A", 0),
                    run_path(walk, "B", 0), walk.string());
    std::string v2;
    if (!o.baseline_fscost.empty()) {
      v2 = (dir.path() / "version-2").string();
      write_version2(dir.path(), v2);
    }
    binary_rows({o.peers.fscost, o.baseline_fscost, (dir.path() / "out").string(),
                 dir.path().string(), v2, o.repeat},
                binary_commands(o, dir.path()));
  } catch (const std::exception& e) {
    std::cerr << "analysis_speed: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
