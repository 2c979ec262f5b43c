// The jackknife over runs (docs/DIFF.md, "Stable by construction"): a
// finding the diff states must still be found when any one run of either
// side is left out. One slow run can carry a q of 0.03 on its own; a
// repeat of the compare, without that run, would then say something else.
//
// Every finding of a diff has a key that names it the same way in any
// diff of the same configurations (an op's figure, a function, a path by
// its frames, a lock by name and type, new code by name): findings_of()
// lists a diff's by key with their direction, and mark_fragile() demotes
// each finding of the full diff that a leave-one-out diff lacks or turns
// around. Demoted comparisons keep their figures, with verdict NoChange
// and Comparison::fragile naming the run whose absence lost them; what is
// explained from verdicts (lock classes, the parts of a delta) is then
// explained from the demoted ones.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "diff/diff.h"

namespace fscost {

// Runs a side needs for its leave-one-out diffs: leaving one out of four
// leaves a test three. With two, Welch's t has a degree of freedom or so
// and drops real effects (the ENOSPC case's off-CPU +118 µs/op at 3+3).
inline constexpr std::size_t kJackknifeRuns = 4;

// A diff's findings: key → direction (+1 B more, −1 B less).
using Findings = std::unordered_map<std::string, int>;

Findings findings_of(const Diff& d);

// Each finding of `d` absent from, or reversed in, one of `left_out`
// (d.jackknife's order) is marked fragile with the first such index.
void mark_fragile(Diff& d, const std::vector<Findings>& left_out);

}  // namespace fscost
