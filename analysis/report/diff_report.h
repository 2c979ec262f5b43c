// The diff's renderers: mail-ready text, JSON for scripts (docs/DIFF.md),
// and one offline HTML page with differential flame graphs.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "diff/diff.h"
#include "model/file_io.h"  // Status

namespace fscost {

// Mail-ready text, no line longer than `width` (72 by default): header with
// run counts and warnings, then per operation a short explanation, e.g.
// "create: on-CPU +1.9 µs/op (+18%, 95% CI +1.2..+2.6): 62% new code under
// xfs_parent_addname, 30% more spin on ...", and the tables behind it.
std::string render_diff_text(const Diff& d, std::size_t width = 72);
// summary.txt: the first screen, then `details` (fscost compare's setup),
// the method, every warning and the tables of the ops the first screen
// names, at most 150 lines; the last names `everything`, the file with
// render_diff_text's full text.
std::string render_diff_summary(const Diff& d, std::size_t width = 72,
                                std::string_view details = {},
                                std::string_view everything = "tables.txt");
// summary.txt above its rule: the first screen alone, what a compare matrix
// quotes per pair.
std::string render_diff_first_screen(const Diff& d, std::size_t width = 72);

class JsonWriter;  // model/json_writer.h

// Rows of the per-function table the HTML shows per operation; summary.json
// keeps at least as many (below).
inline constexpr std::size_t kDiffFunctionRows = 25;
// At most this many functions per operation in summary.json.
inline constexpr std::size_t kDiffSummaryFunctions = 100;

struct DiffJsonOptions {
  // summary.json lists per operation the first max(top, kDiffFunctionRows)
  // functions by |Δ inclusive|, what the text and the HTML show, then the
  // significant ones further down, up to kDiffSummaryFunctions in all; true
  // lists every function compared (functions.json, `diff --format json
  // --all-functions`).
  bool all_functions = false;
};

// Every number behind the text (docs/DIFF.md documents the schema), compact,
// with a final newline: summary.json and `diff --format json`. Streamed,
// with no DOM of the whole diff.
std::string diff_json_text(const Diff& d, const DiffJsonOptions& opt = {});
// The same members into an object the caller has opened (fscost compare
// adds its own "compare" after them).
void write_diff_members(JsonWriter& w, const Diff& d, const DiffJsonOptions& opt = {});
// diff_json_text parsed: for tests and callers that embed a small diff.
nlohmann::json diff_json(const Diff& d, const DiffJsonOptions& opt = {});
// functions.json: every function compared, per operation (docs/DIFF.md).
std::string diff_functions_json_text(const Diff& d);

// Extra sections a caller (fscost compare) adds to the page: id for the
// table of contents, title, and an HTML fragment.
struct HtmlSection {
  std::string id, title, html;
};

struct DiffHtmlOptions {
  std::string title;                  // "" = "fscost diff: <A> vs <B>"
  std::vector<HtmlSection> sections;  // appended after the diff's own sections
  int graph_width = 1200;
  std::size_t max_bytes = 16u << 20;  // graph size budget, as HtmlOptions
};

// Self-contained page: explanation, warnings, per-op tables, differential
// flame graphs per operation and view (insignificant frames grey), lock diff
// table.
std::string render_diff_html(const Diff& d, const RunSet& a, const RunSet& b,
                             const DiffHtmlOptions& opt = {});

// DIR/summary.txt, DIR/tables.txt, DIR/summary.json, DIR/report.html, and
// with json.all_functions DIR/functions.json, each written atomically
// through DIR held open (claim_output_dir: made with its parents if
// missing; an existing DIR only if a real directory of this user's and, as
// root, not writable by others).
Status write_diff_outputs(const Diff& d, const RunSet& a, const RunSet& b, const std::string& dir,
                          const DiffHtmlOptions& opt = {}, const DiffJsonOptions& json = {});

}  // namespace fscost
