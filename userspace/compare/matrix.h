// More than two configurations (--config three times or more). Each one
// against the baseline is a two-configuration compare of its own, written
// by report.h into DIR/vs-<name>/ (its runs stay in DIR/runs/); DIR holds
// the matrix, as filesystem developers tabulate fs_mark: rows the
// configurations, columns the thread counts, cells ops/s (mean and CI) and
// sys µs per operation, each cell linking to its diff against the baseline.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compare/options.h"
#include "compare/report.h"
#include "diff/diff.h"  // Warning
#include "diff/stats.h"

namespace fscost {

struct MatrixCell {
  int threads = 0;
  stats::Summary ops_per_s;
  // The workload's kernel CPU per operation it counted: rusage sys over
  // ops/s × the recording's seconds.
  stats::Summary sys_us_per_op;
  // ops/s against the baseline's at this count: Welch's t, Benjamini–
  // Hochberg over every cell; NaN for the baseline or under 2 runs a side.
  double q = 0;
  std::string link;  // its diff's page, relative to DIR; "" for the baseline
};

struct MatrixRow {
  std::size_t config = 0;         // index in CompareOptions::configs
  std::string dir;                // "vs-xfs": its diff against the baseline; "" for the baseline
  std::vector<MatrixCell> cells;  // one per thread count, ascending
};

struct Matrix {
  std::vector<int> threads;
  std::vector<MatrixRow> rows;  // configuration order
  std::vector<Warning> warnings;
};

// "vs-<label>": where a configuration's diff against the baseline goes.
std::string pair_dir(const ConfigSpec& c);

// The two-configuration compare of the baseline (A) and `config` (B): its
// options (output DIR/vs-<name>), and the outcome's runs of those two,
// renumbered 0 and 1, their profiles named from the pair's directory.
CompareOptions pair_options(const CompareOptions& o, std::size_t config);
CompareOutcome pair_outcome(const CompareOptions& o, const CompareOutcome& out, std::size_t config);

// The matrix from the runs' results and profiles (rusage); warnings for
// more threads than CPUs (oversubscription).
Result<Matrix> compute_matrix(const CompareOptions& o, const CompareOutcome& out, unsigned cpus);

// summary.txt (≤ 72 columns): configurations, the matrix, warnings, then
// each configuration's first screen against the baseline (`firsts`, by
// row; "" for the baseline).
std::string render_matrix_text(const CompareOptions& o, const CompareOutcome& out, const Matrix& m,
                               const std::vector<std::string>& firsts);
nlohmann::json matrix_json(const CompareOptions& o, const CompareOutcome& out, const Matrix& m);
std::string render_matrix_html(const CompareOptions& o, const CompareOutcome& out, const Matrix& m,
                               const std::vector<std::string>& firsts);

// Every pair's outputs, then DIR/summary.txt, summary.json, report.html.
Result<CompareOutputs> write_matrix_outputs(const CompareOptions& o, const CompareOutcome& out);

}  // namespace fscost
