// Internal to diff_text*.cpp: the pieces of render_diff_text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "diff/findings.h"
#include "report/diff_report.h"

namespace fscost::diff_text {

// Text being laid out at `width` columns.
struct Page {
  std::string out;
  std::size_t width = 72;

  // One line as it is; the caller keeps it within width.
  void line(std::string_view s);
  // `text` wrapped: the first line starts with `first`, the rest with `rest`.
  void para(std::string_view text, std::string_view first = {}, std::string_view rest = "  ");
  void blank() { out += '\n'; }
};

// The explanation of one side of an operation's delta, unwrapped:
// "create: on-CPU +1.9 µs/op (+18%, 95% CI +1.2..+2.6, q 0.002): 62% new
// code under f, ...". `oncpu` false: the off-CPU side.
// `significant_only` leaves out the parts whose comparison is not
// significant (the first screen gives no n.s. part as a reason).
std::string sentence(const Diff& d, const OpDiff& op, bool oncpu, bool significant_only = false);
// The significant call paths of the op's on-CPU delta (OpDiff::paths), one item each.
void paths(Page& page, const OpDiff& op);
// One path's item, unwrapped: "+2.6 µs/op (2.1× A, 61% of the increase)
// same path, more work: … → xfs_create → xfs_trans_commit; there ...".
std::string path_line(const DeltaPath& p, const OpDiff& op);
// The function families `told` (told_families), unwrapped; "" if none.
std::string families_line(const OpDiff& op, const std::vector<std::size_t>& told);
// The path that ends where `m`'s work went (… → via → from), a significant
// one: the move's line tells it, with its split. Null if none.
const DeltaPath* path_where_moved(const MovedWork& m, const OpDiff& op);
// "xlog_cil_commit +2.4 µs, list_sort +356 ns": the children of a path's
// last frame that carry its delta; "" if none.
std::string split_items(const DeltaPath& p);

// "naming.parent 0 -> 1 (asked)", one item per difference between the
// filesystems (SetupDiff), incidental ones first; at most `max` items, then
// "and N more". Empty if none differ.
std::vector<std::string> setup_items(const SetupDiff& s, std::size_t max);
// How B was compared with A (the tests, the FDR, what is not tested), the
// probes' own cost and the calibration; the runs if too few.
void method(Page& page, const Diff& d);
// Every warning in full, under "warnings:".
void warnings(Page& page, const Diff& d);

// The filesystems section of the full text: mkfs versions and every
// difference, or that none was recorded.
void setup_section(Page& page, const Diff& d);

// "intervals floored by this host's between-compare noise (fscost
// calibrate 2026-12-04, 4 compares of 5+5 runs): create on-CPU ±4.1%.",
// unwrapped, for the text below the first screen; "" without a
// calibration (report/diff/calibration_text.cpp).
std::string calibration_line(const Diff& d);
// The same for the first screen: which figure it widened most, and how many
// more ("intervals floored by … (calibrate): create on-CPU ±4.1%, and 2 more.").
std::string calibration_brief(const Diff& d);

// What summary.txt opens with, at most kFirstScreenLines lines: per tested
// op whose cost changed significantly, the delta, its call paths and
// families, and a contention verdict; then the warnings that change the
// reading (report/diff/first_screen.cpp).
inline constexpr std::size_t kFirstScreenLines = 40;
// summary.txt's length at most (render_diff_summary).
inline constexpr std::size_t kSummaryLines = 150;
std::string first_screen(const Diff& d, std::size_t width);

// Where a word of the first screen leads: the row or graph that holds its
// figures (the HTML verdict makes it a link).
struct Target {
  enum Kind { OpRow, OpGraph, Lock, Bucket } kind = OpRow;
  std::size_t op = 0;     // OpRow, OpGraph, Lock: index in Diff::ops
  std::size_t index = 0;  // Lock: in OpDiff::locks; Bucket: in Diff::background
  bool oncpu = true;      // OpRow, OpGraph: the on-CPU figure, else off-CPU
};
struct Link {
  std::size_t at = 0, len = 0;  // bytes of the line
  Target to;
};
// One line of the first screen ("" between paragraphs), with its links.
struct ScreenLine {
  std::string text;
  std::vector<Link> links;
};
// The first screen as laid out from the findings (select_findings): the
// text first_screen() joins, and the lines the HTML verdict shows.
std::vector<ScreenLine> first_screen_lines(const Diff& d, std::size_t width);

// A finding in words, unwrapped (one paragraph each; a warning's brief is
// one line as it is): what JSON's `findings[].text` holds.
std::string finding_text(const Diff& d, const Finding& f, std::size_t width = 72);

// Header, warnings and the sentences of every operation, without the
// tables: what the HTML page shows in its summary.
std::string explanation(const Diff& d, std::size_t width);

// The tables behind the explanations: whole workload, then per operation
// its metrics, top functions and locks.
void tables(Page& page, const Diff& d);
// Its parts: the whole workload's rows (rusage, kernel threads' sum, the
// test device), and one op's tables.
void whole_workload(Page& page, const Diff& d);
void op_tables(Page& page, const Diff& d, const OpDiff& op);


}  // namespace fscost::diff_text
