// fscost compare's outputs: DIR/summary.txt (mail-ready, ≤ 72 columns),
// DIR/summary.json (the headline thread count's diff JSON, streamed, plus
// "compare"), DIR/report.html (the diff page plus the compare's sections),
// and with several thread counts each one's diff in DIR/runs/t<T>/.
// The headline is the largest thread count with runs of both sides.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compare/options.h"
#include "compare/plan.h"
#include "compare/run.h"
#include "compare/scaling.h"
#include "report/diff_report.h"

namespace fscost {

// A run the host stole the vCPUs from, discarded and run again in place.
struct StolenRun {
  PlannedRun plan;
  double steal_share = 0;  // of the vCPUs' time while it recorded
};

struct CompareOutcome {
  std::vector<PlannedRun> plan;
  std::vector<RunResult> results;  // the runs executed, in plan order
  std::vector<StolenRun> reruns;   // in the order they were run again
  bool incomplete = false;
  std::string reason;   // why incomplete: "interrupted by SIGINT", "run 3 failed: …"
  std::string storage;  // "1.0 GiB RAM disk /dev/loop3", "/dev/sdb"
};

// One thread count's runs, loaded, and their diff when both sides have runs.
struct ComparePoint {
  int threads = 0;
  RunSet a, b;
  std::optional<Diff> diff;
  std::string dir;  // "runs/t4" (relative), where its own outputs go; "" = top level only
};

struct CompareOutputs {
  std::string summary_txt, summary_json, report_html, tables_txt;  // paths
  std::string text;                                    // summary.txt's contents
  bool has_diff = false;
  // summary.txt above its rule (the confounds and the diff's first screen),
  // from the diff itself: what the matrix quotes per pair.
  std::string first_screen;
};

// One thread count's successful runs, loaded in run order: A's, B's.
std::pair<RunSet, RunSet> load_sides(const CompareOptions& o, const CompareOutcome& out,
                                     int threads);

// Loads the successful runs' profiles per thread count and diffs each.
std::vector<ComparePoint> load_points(const CompareOptions& o, const CompareOutcome& out);

// The index in `points` of the headline; nullopt when no thread count has
// runs of both sides.
std::optional<std::size_t> headline_point(const std::vector<ComparePoint>& points);

// Scaling figures of every successful run.
Scaling compare_scaling(const CompareOutcome& out, const std::vector<ComparePoint>& points);

// tables.txt: the compare's header (configurations, workload, order,
// incomplete), the headline diff in full, the scaling table, where the rest is.
std::string render_compare_text(const CompareOptions& o, const CompareOutcome& out,
                                const std::vector<ComparePoint>& points,
                                std::optional<std::size_t> headline, const Scaling& scaling);
// summary.txt: what a mail holds (render_diff_summary), with the compare's
// header and scaling below the first screen's line; without a complete
// pair, the header and why.
std::string render_compare_summary(const CompareOptions& o, const CompareOutcome& out,
                                   const std::vector<ComparePoint>& points,
                                   std::optional<std::size_t> headline, const Scaling& scaling);

// summary.json's "compare" object (docs/COMPARE.md).
nlohmann::json compare_json(const CompareOptions& o, const CompareOutcome& out,
                            const std::vector<ComparePoint>& points,
                            std::optional<std::size_t> headline, const Scaling& scaling);

// The compare's extra report sections: setup, run order, per-run workload
// figures, scaling charts, other thread counts.
std::vector<HtmlSection> compare_html_sections(const CompareOptions& o, const CompareOutcome& out,
                                               const std::vector<ComparePoint>& points,
                                               std::optional<std::size_t> headline,
                                               const Scaling& scaling);

// A compare's own page (no diff): the title, `lead` (HTML) and the sections.
std::string compare_page(const std::string& title, const std::string& lead,
                         const std::vector<HtmlSection>& sections);

// A page for a compare without any complete pair: the title and the
// sections, no diff.
std::string compare_page_without_diff(const std::string& title,
                                      const std::vector<HtmlSection>& sections);

// "built-in create, 2000 files per thread", or the command(s).
std::string workload_text(const CompareOptions& o);
// The same in a few words for the first screen's header line: "create 40000
// files, 4.0 KiB each, fsync", or the command from its program's name.
std::string workload_brief(const CompareOptions& o);
// "mkfs.ext4 -E lazy_itable_init=0; mount noatime".
std::string config_text(const ConfigSpec& c, const std::string& mkfs_path);

// Writes everything into o.output.
Result<CompareOutputs> write_compare_outputs(const CompareOptions& o, const CompareOutcome& out);

// Folds `text` to `width` columns at spaces, continuation lines indented by
// `indent` spaces; words longer than a line are left whole.
std::string wrap(const std::string& text, std::size_t width, std::size_t indent);

}  // namespace fscost
