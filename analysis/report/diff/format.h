// Internal to the diff renderers (diff_text*.cpp, diff_html*.cpp): numbers
// in a diff's units, auto-scaled, and plain-text layout measured in display
// columns (the text goes into mail, where "µ" is one column, not two bytes).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "report/diff_report.h"

namespace fscost::diff_fmt {

// Display columns of UTF-8 text: one per code point. Every character the
// renderers emit (µ, ×, …, Δ, →) is one column wide.
std::size_t columns(std::string_view s);

// `s` cut to `cols` columns, ending in "…" if anything was cut.
std::string truncate(std::string_view s, std::size_t cols);

// `s` padded with spaces to `cols` columns, on the right (left-aligned) or
// on the left (right-aligned). Never cut.
std::string pad_right(std::string_view s, std::size_t cols);
std::string pad_left(std::string_view s, std::size_t cols);

// Words of `text` filled into lines of at most `width` columns; the first
// line starts with `first`, the others with `rest`. A word too long for a
// line on its own is truncated with "…", so no line is ever wider.
// `placed`, if given, receives where each word went.
struct Placed {
  std::size_t src = 0, len = 0;   // the word in `text`
  std::size_t line = 0, col = 0;  // its line, and its byte offset there
  bool cut = false;               // truncated to fit
};
std::vector<std::string> wrap(std::string_view text, std::size_t width, std::string_view first,
                              std::string_view rest, std::vector<Placed>* placed = nullptr);

// A value in a comparison's unit, scaled: "ns/op" and "ns" as ns, µs, ms or
// s ("12.5 µs"), "/op" and "%" as numbers, "ops/s" as "1234/s". `sign` adds
// "+" to positive values. The scale follows `magnitude` (defaults to |v|),
// so a delta and its interval can share one unit.
std::string value(double v, const std::string& unit, bool sign = false, double magnitude = -1);

// Just the scaled number, and the suffix that goes with it, for `magnitude`
// in `unit`: number(1900, "ns/op", 1900) = "1.9", suffix = " µs/op".
std::string number(double v, const std::string& unit, double magnitude, bool sign);
std::string suffix(const std::string& unit, double magnitude);

// (mean b − mean a) / mean a as "+18%" (sentences) or "+18.0%" (tables),
// "87.0×" when B is over 11 times A; "new" when A is 0 and B is not, "-"
// when undefined; rel_cell says "gone" when B is 0 and A is not.
std::string rel_short(const Comparison& c);
// A call path's last `keep` frames, "… → a → b → c": where its delta
// leaves the op's common path (text and HTML).
std::string chain_text(const DeltaPath& p, std::size_t keep = 4);
std::string rel_cell(const Comparison& c);

// A BH q-value: "0.002", "<0.001", "-" if undefined.
std::string q_text(double q);

// '*' significant after FDR control, '~' not (including too few runs).
char mark(const Comparison& c);

// "1 vs 1": the run counts of a comparison.
std::string run_counts(const Comparison& c);

}  // namespace fscost::diff_fmt
