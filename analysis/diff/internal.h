// Private to the diff: the stages diff_runs() (diff.cpp) chains, one file
// each. See diff.h for the data they fill.
#pragma once

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "diff/delta_tree.h"
#include "diff/diff.h"
#include "diff/mean_stacks.h"
#include "diff/metrics.h"
#include "model/fs_code.h"
#include "model/units.h"  // ns_text

namespace fscost {

// Every operation seen in either side, with its count, cost, off-CPU class,
// function and lock comparisons; verdicts from raw p until control_fdr.
std::vector<OpDiff> compare_ops(const std::vector<RunMetrics>& a, const std::vector<RunMetrics>& b,
                                const DiffConfig& cfg);

// sys, user, wall, user share and kernel-thread CPU per run.
void compare_totals(Diff& d, const std::vector<RunMetrics>& a, const std::vector<RunMetrics>& b);

// One Benjamini–Hochberg pass over every Comparison of `d` whose Welch test
// is valid: sets q and the verdict, and d.family.
void control_fdr(Diff& d);

// Each op's heaviest wait-for chain per side (OpDiff::chain_a/_b) and each
// hop of it compared run by run (OpDiff::hop_waits).
void compare_chains(Diff& d, const RunSet& a, const RunSet& b);
// The jackknife's (stability.h): for each op with a significant hop, its
// hops as compare_chains finds them without each run, into left_out's op
// of the same index.
void chains_left_out(const Diff& d, const RunSet& a, const RunSet& b, std::vector<Diff>& left_out);

// After control_fdr: each lock's LockChange and detail.
void classify_locks(OpDiff& op);

// How a lock's cost changed, for a DeltaPart: "a new contention point",
// "same lock, worse: 2.1× contentions/op, 1.3× wait per contention", ...
std::string lock_phrase(const LockDiff& l);

// A and B on different filesystems (Diff::fs_a, fs_b): each side's own
// code. Both nullptr when they run the same one, or a side does not say.
struct CrossFs {
  const FsCode* a = nullptr;
  const FsCode* b = nullptr;
  explicit operator bool() const { return a && b; }
  // The side whose code a stack growing `up` runs: B's, or A's.
  const FsCode* grew(bool up) const { return up ? b : a; }
};
CrossFs cross_fs(const Diff& d);

// Before control_fdr: per op, the 1–3 call chains that carry most of its
// on-CPU increase, and of its decrease (OpDiff::paths), each with its
// per-run comparison (in the functions family).
// Returns each op's differential on-CPU tree (by op index, delta_tree.h),
// with new code marked by the presence rule: explain_oncpu reads the same.
std::vector<DeltaTree> find_paths(Diff& d, const RunSet& a, const RunSet& b,
                                  const MeanStacks& sa, const MeanStacks& sb,
                                  const DiffConfig& cfg);

// The jackknife's (stability.h): for each op with a significant path, its
// paths as find_paths finds them without each run, into left_out's op of
// the same index (left_out_diffs' Diffs, d.jackknife's order).
void paths_left_out(const Diff& d, const RunSet& a, const RunSet& b, const MeanStacks& sa,
                    const MeanStacks& sb, std::vector<Diff>& left_out);

// The presence rule, one for every finding of code one side runs and the
// other does not (an op's new code, a kernel thread's): sampled in every run
// of `on`, in none of `off` (at least 2 runs each), where `off`'s runs
// would have shown it: `expected_off`, the samples they would have had at
// `on`'s rate, at least presence_floor(m) for m candidates looked at
// (e^-floor ≤ 0.05 / m, Bonferroni; never below kPresenceSamples).
double presence_floor(std::size_t m);
bool present_only(const std::vector<double>& on, const std::vector<double>& off,
                  double expected_off, double floor);
// An op's function or family by that rule: its count test's rate on the
// side `in_b` names, over the other side's exposure.
bool present_by_counts(const Comparison& c, bool in_b, double floor);

// After control_fdr: each tested op's exact changes (events and
// contentions per op beyond their run-to-run spread) and new code (present
// in every run of one side, in none of the other); the device's bytes by
// kind. OpDiff::exact, new_code; Diff::exact. Every op's functions and
// families get their new_in_b, gone_in_b by the same presence rule.
// `looked_at`, when given: per op (d.ops' order), the functions and
// families its presence rule is Bonferroni'd over, where d's op holds
// only some of them (the jackknife's, stability.h).
void find_exact_changes(Diff& d, std::span<const std::size_t> looked_at = {});

// Whether op `op` with operations per run `count` gets verdicts
// (control_fdr's rule, OpDiff::tested).
bool op_tested(const std::string& op, const Comparison& count, const DiffConfig& cfg);

// `c` as the diff without run `run` (A's runs first, `runs_a` of them)
// would have it: its own test on the other runs' values. No q, no floor.
Comparison without_run(const Comparison& c, std::size_t run, std::size_t runs_a,
                       const DiffConfig& cfg);
// What the jackknife reads of without_run's result, and no more: the
// values, exposures and summaries, the deciding test's validity, rates and
// exposures, and its p where that can be at most cfg.alpha (a larger p
// reads 1: stats::count_screen), with the verdict set_verdict gives that
// p. No interval of a test, no Mann–Whitney, no Hedges' g (NaN). Every
// figure it does have is without_run's to the bit, and whether p ≤ alpha.
Comparison retest_without_run(const Comparison& c, std::size_t run, std::size_t runs_a,
                              const DiffConfig& cfg);

// After control_fdr: per tested op, its call tree tested top-down, each
// node's children on their share of its samples (OpDiff::shares).
// The jackknife's (stability.h), with `left_out` (left_out_diffs') and
// `held` (one per run left out, A's first): each op and bucket that found
// a share, moved work or new code is descended again on the same tree
// without each run (where left_out's op is tested); its shares and moves
// are marked fragile with the first run whose absence lost them (as
// findings_of keys them), and `held` gets which of a bucket's new code
// each found again.
void descend_call_trees(Diff& d, const RunSet& a, const RunSet& b,
                        const std::vector<Diff>* left_out = nullptr,
                        std::vector<std::unordered_map<std::string, int>>* held = nullptr);

// After classify_locks: the op's on-CPU delta split into new code, spin and
// more work (call graph of the mean stacks of a and b).
// `tree`: the op's differential tree, as find_paths made and marked it.
void explain_oncpu(OpDiff& op, const MeanStacks& a, const MeanStacks& b, const DeltaTree& tree,
                   const DiffConfig& cfg, const CrossFs& fs);

// After classify_locks: the op's off-CPU delta per wait class, each placed
// at the narrowest function of its blocked stacks; "lock" split per lock.
void explain_offcpu(OpDiff& op, const MeanStacks& a, const MeanStacks& b, const DiffConfig& cfg);

// Every setting in which A's filesystems differ from B's, asked-for or
// incidental; a "setup-varies" warning per side whose runs differ among
// themselves (another mkfs, geometry, mount options or CPU).
SetupDiff compare_setup(const RunSet& a, const RunSet& b, std::vector<Warning>& warnings);

// A run's file name for messages ("run-02.profile"), or "#N" without one.
inline std::string run_file(const RunSet& s, std::size_t i) {
  if (i < s.sources.size()) return std::filesystem::path(s.sources[i]).filename().string();
  return fmt::format("#{}", i + 1);
}

// A kernel thread's bucket for a sample with these frames: its name and the
// work function process_one_work called ("xfs-conv/loop0: xfs_end_io").
std::string background_bucket(const std::string& name, const Stack& frames);

// A number compare kept in a run's Profile::setup ("fs_size_bytes"), or
// nullopt if it is absent or not a number.
std::optional<double> setup_number(const Profile& p, const char* key);

// "enospc": runs whose ops entered XFS's ENOSPC retry (xfs_flush_inodes,
// xfs_blockgc_free_space in their stacks); "low-space": runs that ended
// with less than 20% free (Profile::setup fs_size_bytes,
// fs_free_bytes_at_end). Appended to `out`.
void full_fs_warnings(const RunSet& s, const std::string& label, std::vector<Warning>& out);

// "outlier": a run far off its side's median on wall, sys or a tested op's
// latency or on-CPU time (3.5 robust sds, and 15% of the figure or of the
// op's latency); "run-order": figures whose
// runs, in start order, rise or fall together on both sides (Spearman's
// ρ ≥ 0.9 each). Appended to `out`.
void run_warnings(const Diff& d, const RunSet& a, const RunSet& b, std::vector<Warning>& out);

// A run that run_warnings calls an outlier, by index into its RunSet: its
// figures, and the host's mark on it (steal or other work above 10% of the
// machine and 10 points above the median run's, extra page zeroing), "" if
// it has none. Only a marked run may be left out: dropping an unmarked one
// biases the difference (fs_mark's shared-directory runs come in two
// modes; leaving out B's fast ones moved create +7.1 -> +11.3 µs/op
// against /usr/bin/time's +7.2, docs/CASES.md case 1b).
struct OutlierRun {
  std::size_t run = 0;
  std::vector<std::string> items;  // "wall clock 1.21 s (median 1.42 s)"
  std::string host;                // "steal 20%"; "" if unmarked
  std::string seen;                // unmarked: what was seen ("steal 2%, other work 1%")
};
// Side A's outliers, then side B's.
std::array<std::vector<OutlierRun>, 2> outlier_runs(const Diff& d, const RunSet& a,
                                                    const RunSet& b);


std::vector<Warning> diff_warnings(const Diff& d, const RunSet& a, const RunSet& b,
                                   const std::vector<RunMetrics>& ma,
                                   const std::vector<RunMetrics>& mb);

// Each part's share of the gross delta in its own direction (the sum of
// the parts that moved that way), signed: no share exceeds 100%, and a
// part pulling against the total is not a share of the total over 100%.
inline void shares_of_gross(std::vector<DeltaPart>& parts) {
  double up = 0, down = 0;
  for (const auto& p : parts) (p.delta_ns >= 0 ? up : down) += p.delta_ns;
  for (auto& p : parts) {
    double gross = p.delta_ns >= 0 ? up : down;
    p.share = gross != 0 ? p.delta_ns / std::fabs(gross) : 0;
  }
}

// "2.1×", or "" if the ratio is undefined (a mean of 0 or NaN).
inline std::string ratio_text(double b, double a) {
  if (!(a > 0) || !std::isfinite(b)) return "";
  return fmt::format("{:.1f}×", b / a);
}

}  // namespace fscost
