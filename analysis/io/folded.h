// Reading and writing Brendan Gregg's folded stacks ("a;b;c 123"), the
// interchange format of FlameGraph, inferno, speedscope and most profilers,
// and turning folded stacks into a Profile so fscost can render and diff
// stacks that other tools collected (docs/FORMATS.md).
//
// render_folded() (report/report.h) writes fscost's own folded output from a
// profile; this file is the general reader/writer for any folded text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/profile.h"
#include "model/result.h"

namespace fscost {

struct FoldedStack {
  std::vector<std::string> frames;  // root (outermost) first, leaf last
  double value = 0;                 // samples, ns, ...; >= 0, may be fractional
  // The second column of the two-column (differential) form
  // "a;b;c BEFORE AFTER"; then `value` is BEFORE. Empty in the one-column form.
  std::optional<double> value2;
  // `value` and `value2` exactly, when the count was written as a whole
  // number in digits ("123", up to 2^64 - 1): a double holds integers only
  // up to 2^53. Then `value` is the nearest double to it.
  std::optional<std::uint64_t> count;
  std::optional<std::uint64_t> count2;
};

struct FoldedStacks {
  std::vector<FoldedStack> stacks;  // in input order, not merged
  bool two_column = false;          // every stack has value2
  // Stacks deeper than kMaxStackDepth (model/profile.h), cut as they were
  // read to their outermost frames and a last "[truncated]".
  std::uint64_t depth_truncated = 0;
};

// How many counts end each line.
enum class FoldedColumns {
  Detect,  // two if the first line ends in two numbers, else one
  One,     // one: a frame ending in " 12" stays part of the stack
  Two,
};

// Parses folded text: "frame;frame;... VALUE" per line, or the two-column
// form "frame;... VALUE VALUE2" (difffolded.pl) on every line. Values are
// non-negative decimal numbers, fractions and exponents allowed; a value of
// digits only that fits 64 bits is also kept exactly (`count`). Blank lines
// are skipped, a trailing '\r' is ignored, frames may hold spaces. A stack
// deeper than kMaxStackDepth is cut as it is read (`depth_truncated`), so
// its frames past the cut are never split out. Errors name
// `origin` and the 1-based line: "x.folded:3: no count after the stack".
// Never throws.
Result<FoldedStacks> parse_folded(std::string_view text, const std::string& origin,
                                  FoldedColumns columns = FoldedColumns::Detect);

// parse_folded with each stack's frames interned (model/frame.h) rather
// than copied into strings: what a flame graph reads. The same lines, the
// same values, the same errors; no exact counts.
struct InternedFoldedStack {
  Stack frames;  // root first
  double value = 0;
  std::optional<double> value2;
};
struct InternedFolded {
  std::vector<InternedFoldedStack> stacks;  // in input order, not merged
  bool two_column = false;
  std::uint64_t depth_truncated = 0;  // as FoldedStacks'
};
Result<InternedFolded> parse_folded_interned(std::string_view text, const std::string& origin,
                                             FoldedColumns columns = FoldedColumns::Detect);

// One line per stack in order, "a;b;c VALUE[ VALUE2]\n"; VALUE2 is written
// when `stacks.two_column`. An exact `count` is written as it is; other
// integral values without a fraction, others in the shortest form that reads
// back exactly. Frames are written as
// they are: a frame holding ';' or '\n' does not round-trip.
std::string write_folded(const FoldedStacks& stacks);

// Who a root frame names, as render_folded() writes roots: an fscost
// operation (model/operations.h, "other" included) -> Op; "[user]" / "[kernel]" ->
// User / Kernel with an empty name; "[kthread:NAME]" -> Kthread NAME.
// Anything else -> nullopt.
std::optional<std::pair<SampleKind, std::string>> owner_from_root(std::string_view root);

struct FoldedImportOptions {
  // Which column becomes the sample count in the two-column form: 0 or 1.
  int column = 0;
  std::string origin;  // meta.command: where the stacks came from
};

// Folded stacks as on-CPU samples of a Profile. A root that owner_from_root
// knows gives the sample's kind and name and is dropped from the frames. Any
// other root (folded from another tool) keeps every frame and goes to kind
// Op, name "other": fscost's bucket for "not one of the tracked operations".
// An exact `count` is taken as it is, other values are rounded to the
// nearest count (at most 2^64 - 2048); stacks that round to 0 are left
// out and counted in drops["folded_rounded_to_zero"]. Sums of merged
// stacks and samples_total stop at 2^64 - 1 rather than wrap. Equal stacks are
// merged, sorted by (kind, name, frames). meta.target is "folded",
// meta.command `opt.origin`; samples_total is the sum of the kept counts.
// `stacks.depth_truncated` becomes drops["stack_depth_truncated"] (set
// only when a stack was cut).
Profile profile_from_folded(const FoldedStacks& stacks, const FoldedImportOptions& opt = {});

}  // namespace fscost
