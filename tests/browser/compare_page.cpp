// Test-only: the pages of a `fscost compare` without running one. Writes
// synthetic runs (tests/unit/analysis/diff_fixture.h) where `fscost compare
// --threads 1,2 --runs 3` would have put them, then the compare's outputs
// from them with write_compare_outputs, as the compare itself does after
// its last run. The browser test (compare.test.mjs) opens DIR/report.html
// and runs `fscost diff` / `fscost flamegraph --diff` on the runs.
//
//   compare_page DIR
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "compare/plan.h"
#include "compare/matrix.h"
#include "compare/report.h"
#include "diff_fixture.h"
#include "io/profile_io.h"
#include "model/file_io.h"

namespace fscost {
namespace {

// At 1 thread B adds new code under create; at 2 both spin more on lock X
// and B also sleeps on lock Y, so the scaling charts have a lock to draw.
// A third configuration (the matrix) both adds code and sleeps.
test::ConfigSpec spec(int threads, int config) {
  test::ConfigSpec s = test::base_spec();
  if (config >= 1) test::inject_new_code(s);
  if (threads > 1) test::inject_more_spin(s);
  if (threads > 1 && config >= 1) test::inject_sleep_lock(s);
  return s;
}

double ops_per_s(const Profile& p) {
  std::uint64_t ops = 0;
  for (const OpStats& op : p.ops) ops += op.count;
  return p.meta.duration_ns ? static_cast<double>(ops) * 1e9 / p.meta.duration_ns : 0;
}

// `matrix`: three configurations (--config), written as the matrix.
int write_pages(const std::string& dir, bool matrix) {
  CompareArgs args;
  args.a = "mkfs: -m rmapbt=0";
  args.b = "mkfs: -m rmapbt=1";
  if (matrix) {
    args.ab_given = false;
    args.a = args.b = "";
    args.configs = {"plain=mkfs: -m rmapbt=0", "rmapbt=mkfs: -m rmapbt=1",
                    "reflink=mkfs: -m rmapbt=1,reflink=1"};
  }
  args.threads = "1,2";
  args.runs = 3;
  args.output = dir;
  CompareOptions o = take(check_compare_args(args));
  CompareOutcome out;
  out.plan = make_plan(o.threads, o.runs, o.order, o.order_seed,
                       static_cast<int>(o.configs.size()));
  out.storage = "synthetic runs (tests/browser/compare_page.cpp)";
  for (const PlannedRun& p : out.plan) {
    RunResult r;
    r.plan = p;
    r.profile = config_dir(p.threads, p.config) + "/" + run_stem(p.rep) + ".profile";
    Profile prof =
        test::make_run(spec(p.threads, p.config), p.rep - 1,
                       static_cast<std::uint32_t>(100 * (p.config + 1) + 10 * p.threads + p.rep));
    std::filesystem::create_directories(dir + "/" + config_dir(p.threads, p.config));
    take(write_profile_atomic(prof, dir + "/" + r.profile));
    // The workload's output, which the page links next to each profile.
    std::string stem = dir + "/" + config_dir(p.threads, p.config) + "/" + run_stem(p.rep);
    for (const char* ext : {".out", ".err"})
      take(write_file_atomic("(synthetic run: no workload output)\n", stem + ext));
    r.start_unix_ms = 1700000000000 + static_cast<std::int64_t>(p.index) * 1000;
    r.seconds = static_cast<double>(prof.meta.duration_ns) / 1e9;
    r.ops_per_s = ops_per_s(prof);
    r.ops_source = "profile";
    out.results.push_back(std::move(r));
  }
  CompareOutputs w = take(matrix ? write_matrix_outputs(o, out) : write_compare_outputs(o, out));
  std::fprintf(stderr, "compare_page: wrote %s\n", w.report_html.c_str());
  return 0;
}

}  // namespace
}  // namespace fscost

int main(int argc, char** argv) {
  bool matrix = argc == 3 && std::string(argv[2]) == "--matrix";
  if (argc != 2 && !matrix) {
    std::fprintf(stderr, "usage: compare_page DIR [--matrix]\n");
    return 2;
  }
  try {
    return fscost::write_pages(argv[1], matrix);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "compare_page: %s\n", e.what());
    return 1;
  }
}
