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
// explained from the demoted ones. diff_runs does not redo the diff per
// run: it makes each leave-one-out from the full diff's per-run values and
// trees (left_out_diffs, then mark_fragile's overload with them), and
// stability_test checks that against the definition on every recorded case.
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

// The diffs leaving out each run of A, then each of B (d.jackknife's
// order), as far as d's findings need them: each op's operations per run,
// whether it is tested, its exact changes and new code (decided from d's
// per-run values without the run). descend_call_trees then adds their
// shares and moved work. jackknife.cpp.
std::vector<Diff> left_out_diffs(const Diff& d);

// Whether `family` of `op` is still one without `run` (A's runs first,
// `runs_a` of them): two of its functions sampled in a kept run.
bool family_without(const OpDiff& op, const FamilyDiff& family, std::size_t run,
                    std::size_t runs_a);

// The key of code new in kernel-thread bucket `bucket` (BackgroundDiff::
// new_in_b), as findings_of writes it.
std::string bucket_new_key(const std::string& bucket, const std::string& code);

// Each finding of `d` that one of `left_out` (left_out_diffs') lacks or
// turns around is marked fragile with the first such index. A comparison
// is tested again on its own per-run values without the run
// (without_run), floored as d's when a calibration floored it there; a
// path or a chain's hop is found again by left_out's search. The shares
// and moved work are marked already (descend_call_trees, on the trees it
// built); `held`: per left-out run, which of the buckets' new code it
// found again.
void mark_fragile(Diff& d, const std::vector<Diff>& left_out, const std::vector<Findings>& held);

// The jackknife by definition, what the above must mark the same: each
// finding of `d` that one of `left_out`, the findings of the whole diff
// redone without each run, lacks or turns around (stability_test checks
// the two against each other on every recorded case).
void mark_fragile(Diff& d, const std::vector<Findings>& left_out);

}  // namespace fscost
