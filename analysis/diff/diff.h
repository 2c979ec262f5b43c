// fscost diff: where configuration B's extra (or saved) kernel cost comes
// from, over repeated runs of A and of B (docs/DIFF.md).
//
// Stages, each a pure function:
//   runs (profiles) → per-run metrics, normalised per operation
//   → comparisons (stats.h: mean, CI, Welch, Mann–Whitney, Hedges' g),
//     Benjamini–Hochberg across every comparison of the diff
//   → per-op explanation: on-CPU delta split into new code / spin
//     contention / same path, more work (call graph + dominator tree,
//     callgraph.h); off-CPU delta per wait class and per lock (a new
//     contention point, or the same lock worse)
//   → validity warnings. The renderers (text ≤ 72 columns, JSON, HTML) are
//   report/diff_report.h.
#pragma once

#include <cstddef>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "views/stacks.h"  // FlameInput
#include "views/wait_graph.h"  // WaitChain
#include "model/profile.h"
#include "model/result.h"
#include "diff/stats.h"

namespace fscost {

// 3: ops[].functions only the significant and the tables' rows, with
// functions_compared; every function in functions.json (docs/DIFF.md).
// 4: ops[].xfs and background[].xfs renamed fs_events.
// 5: `findings`, what the first screen tells as data (diff/findings.h).
inline constexpr int kDiffSchemaVersion = 5;

class MeanStacks;  // mean_stacks.h
struct Calibration;  // calibration.h

// All runs of one configuration.
struct RunSet {
  std::string label;                 // "A", "rmapbt=0", or the path given
  std::vector<Profile> runs;
  std::vector<std::string> sources;  // file of each run, same order
};

// The most runs a side may have (docs/HARDENING.md, "Readers"): each is
// held in memory whole, and past a few dozen runs a test's power grows
// little.
inline constexpr std::size_t kMaxRunsPerSide = 100;

// A profile file, or a directory whose *.profile files (sorted by name,
// not recursive) are the runs. Errors name the file; an empty directory, or
// one of more than kMaxRunsPerSide profiles, is an error, before any is
// read. `label` "" = the path as given.
Result<RunSet> load_runs(const std::string& path, const std::string& label = {});

struct DiffConfig {
  double alpha = 0.05;           // false-discovery rate across the diff's comparisons
  double level = 0.95;           // confidence intervals
  double flow_share = 0.5;       // "under <function>": narrowest function carrying this share
  double user_share_warn = 0.10; // warn when user CPU exceeds this share of the workload's CPU
  std::size_t top = 3;           // items named per class in the text
  // Explanation by descent: follow a child while it carries this share of
  // its caller's delta (else the delta splits there), and report a path
  // only if it carries path_share of the op's delta in its direction.
  double descend_share = 0.8;
  double path_share = 0.1;
  // Ops called fewer times per run (the larger side's mean), and "other",
  // are not tested: out of the FDR families and the first screen.
  double min_ops = 100;
  // Check every finding against the diffs that leave one run out
  // (diff/stability.h); false only inside those diffs themselves.
  bool jackknife = true;
  // Leave out of every figure the outlier runs (the "outlier" rule of
  // docs/DIFF.md) that carry the host's mark (steal, other work, page
  // zeroing), while each side keeps at least 3 runs; they are named in a
  // "dropped" warning and stay on disk. Unmarked outliers always stay.
  bool drop_outliers = true;
  // fscost calibrate's measure of this host's between-compare noise
  // (calibration.h): the intervals of tested ops' on-CPU, off-CPU and
  // latency figures are floored by it before the FDR control. nullptr: none.
  std::shared_ptr<const Calibration> calibration;
};

enum class Verdict {
  More,        // B significantly higher
  Less,        // B significantly lower
  NoChange,    // not significant after FDR control
  TooFewRuns,  // a side has < 2 runs: no test possible
};
const char* to_string(Verdict v);

// Which test decides a Comparison (docs/DIFF.md "Tests").
enum class StatTest {
  Welch,   // exact figures (traced time, counts of events, ops/s): Welch's t
  Counts,  // cpu-clock samples: the quasi-Poisson count test (stats::count_test)
};
const char* to_string(StatTest t);  // "welch", "quasi-poisson"

// One metric, A against B. Values are per run, in `unit`.
struct Comparison {
  std::string unit;                // "ns/op", "/op", "ops/s", "ns", "%", ...
  std::vector<double> a, b;        // per-run values
  // The run of each value, where not every run has one (wait per
  // contention: the runs that contended); empty = a[i] is run i's.
  std::vector<std::uint32_t> run_a, run_b;
  // compare_samples': each run's exposure, kept to test the figure again
  // without a run (the jackknife, stability.h).
  bool sampled = false;
  std::vector<double> exposure_a, exposure_b;
  stats::Summary sa, sb;
  StatTest test = StatTest::Welch;
  stats::Welch welch;              // always computed, decides when test == Welch
  stats::CountTest counts;         // valid only when test == Counts
  stats::MannWhitney mwu;
  double effect = 0;               // Hedges' g (NaN if undefined)
  double rel = 0;                  // (mean b − mean a) / mean a; NaN if mean a == 0
  double q = 1;                    // BH-adjusted p of `test` within its family (Diff::families)
  Verdict verdict = Verdict::NoChange;
  // Valid when a calibration floored this figure (DiffConfig::calibration):
  // the host's between-compare noise was wider than `test`'s own standard
  // error, and decides instead (p and interval; `test` keeps its own).
  stats::Floored floor;
  // Significant over every run, but not once one run is left out (the
  // jackknife, diff/stability.h): its verdict is NoChange, and this is the
  // index in Diff::jackknife of the first leave-one-out that lost it; -1
  // where it held (or was never significant).
  int fragile = -1;

  double delta() const { return sb.mean - sa.mean; }
  bool significant() const { return verdict == Verdict::More || verdict == Verdict::Less; }
  bool floored() const { return floor.valid; }
  // The deciding test's validity, raw p and interval for the delta.
  bool tested() const { return test == StatTest::Counts ? counts.valid : welch.valid; }
  double p() const { return floored() ? floor.p : test == StatTest::Counts ? counts.p : welch.p; }
  double ci_lo() const {
    return floored() ? floor.ci_lo : test == StatTest::Counts ? counts.ci_lo : welch.ci_lo;
  }
  double ci_hi() const {
    return floored() ? floor.ci_hi : test == StatTest::Counts ? counts.ci_hi : welch.ci_hi;
  }
  // The standard error of `test` alone: Welch's, or the count test's
  // interval half-width over its t quantile. NaN when untested.
  double own_se(double level = 0.95) const;
};

// A comparison of `a` and `b` at `level`, verdict from the raw Welch p (the
// diff then replaces q and verdict after BH across the family).
Comparison compare(std::vector<double> a, std::vector<double> b, std::string unit,
                   double level = 0.95, double alpha = 0.05);

// The same for a figure made of cpu-clock samples (in ns/op, or ns per run
// with an exposure of freq_hz / 1e9): run i's value
// is its samples / exposure[i], exposure = the run's operations × freq_hz /
// 1e9 (samples_exposure). Decided by the count test when every exposure is
// known (> 0 where the op ran), else by Welch's t.
Comparison compare_samples(std::vector<double> a, const std::vector<double>& exposure_a,
                           std::vector<double> b, const std::vector<double>& exposure_b,
                           double level = 0.95, double alpha = 0.05,
                           std::string unit = "ns/op");

// One function under one operation, from cpu-clock samples converted to
// ns/op (samples × 1e9 / freq_hz / operations).
struct FunctionDiff {
  std::string name;
  Comparison inclusive, self;
  // By the presence rule (find_exact_changes): sampled in every run of one
  // side, in none of the other, where that one would have shown it.
  bool new_in_b = false;
  bool gone_in_b = false;
};

// A family of functions under one operation (function_family: the first
// two words of their names, "xfs_attr"), from cpu-clock samples as ns/op;
// only families with at least two member functions in A or B.
struct FamilyDiff {
  std::string name;           // "xfs_attr_*"
  std::size_t functions = 0;  // distinct member functions under the op, A or B
  Comparison inclusive;       // a stack counts once, however many members it holds
  bool new_in_b = false;      // by the presence rule, as a function's
  bool gone_in_b = false;
};


enum class LockChange {
  New,       // a new contention point: absent or insignificant in A, significant in B
  Worse,     // the same lock, worse: contentions/op or wait per contention up
  Better,
  Gone,      // significant in A, absent or insignificant in B
  NoChange,
};
const char* to_string(LockChange c);

// One named lock (lock_names.h, merged across addresses) under one operation.
// Each of an op's and a lock's figures, listed once: its key (JSON member,
// jackknife key, calibration name), its row label in text and HTML, and
// when the text table shows it. The FDR families, the jackknife, JSON,
// text, HTML and calibration all walk these tables.
enum class ShownWhen { Always, NonZero, Never };
template <class Owner>
struct Metric {
  std::string_view key;
  std::string_view label;
  Comparison Owner::*field;
  ShownWhen text = ShownWhen::Always;  // HTML shows every row
  bool calibrated = false;             // fscost calibrate floors it (issue 20)
};

struct LockDiff {
  std::string name;             // lock_name(), e.g. "i_rwsem (parent dir, open)"
  std::string type;             // lock_type(), e.g. "rwsem:W"
  Comparison contentions;       // per op
  Comparison wait;              // ns/op, begin → end
  Comparison spin;              // ns/op on CPU
  Comparison sleep;             // ns/op off CPU
  // ns/op sampled spinning optimistically on it (rwsem owner spin),
  // which contention_begin/end never time: a separate column, never added
  // to `spin`.
  Comparison optimistic_spin;
  Comparison per_contention;    // ns per contention (runs with contentions only)
  LockChange change = LockChange::NoChange;
  // Significant, but it does not weigh on the op (weighs_on): no change
  // in the op's contention (the verdict says so, with its size).
  bool slight = false;
  std::string detail;           // "2.1× contentions/op", "1.4× wait per contention", ...
};

// LockDiff's figures, listed once (Metric, above); HTML shows `wait` as
// the row's figure and the others in its cell.
inline constexpr Metric<LockDiff> kLockMetrics[] = {
    {"contentions", "contentions", &LockDiff::contentions},
    {"wait", "wait", &LockDiff::wait},
    {"spin", "spin", &LockDiff::spin, ShownWhen::Never},
    {"sleep", "sleep", &LockDiff::sleep, ShownWhen::Never},
    {"optimistic_spin", "optimistic spin (sampled)", &LockDiff::optimistic_spin, ShownWhen::NonZero},
    {"per_contention", "per contention", &LockDiff::per_contention, ShownWhen::NonZero},
};

// One class of an operation's on- or off-CPU delta.
struct DeltaPart {
  // on-CPU: "new-code", "spin", "more-work", and across filesystems
  // "fs-path" (one part per side: that filesystem's own code, `fs`).
  // off-CPU: "lock" (sleeping contention, one part per lock), "io",
  // "log-reserve", "log-force", "runqueue", "sleep".
  std::string kind;
  double delta_ns = 0;       // per op (mean B − mean A)
  double share = 0;          // of the op's on- (or off-) CPU delta; signed
  std::string where;         // narrowest function (callgraph.h), or the lock's name
  std::string detail;        // "a new contention point", "same lock, 2.1× contentions/op", ...
  bool significant = false;  // the underlying comparison survived FDR control
  std::string fs;            // "fs-path": whose code ("ext4/jbd2", FsCode::label)
};

// A call chain carrying part of an operation's on-CPU delta, found by
// descent on the differential call tree (diff/paths.cpp): from the op down,
// following the child that carries most of the delta, stopping where it
// splits.
struct DeltaPath {
  // "new-code"  the path ends in or below a frame new in B by the
  //             presence rule (delta_tree.h);
  // "more-work" / "less-work"  the same path, costing more (less) in B;
  // "contention"  most of the delta spins on a lock (`lock`);
  // "fs-path"  across filesystems: the path runs through the own code of
  //             the side it grew in (B's, or A's for a decrease), `fs`.
  std::string kind;
  std::vector<std::string> frames;  // below the op, outermost first; the last is where it splits
  Comparison inclusive;  // ns/op at the last frame, inclusive, per run (cpu-clock samples)
  // Of the op's gross sampled delta in this direction (the sum of every
  // stack's increase, or decrease): in [0, 1], the paths' shares add up to
  // at most 1.
  double share = 0;
  // The last frame's children carrying the delta: name, Δ ns/op (mean).
  std::vector<std::pair<std::string, double>> split;
  std::string lock;  // "contention": the lock spun on (spinning_lock)
  std::string fs;    // "fs-path": whose code ("ext4/jbd2", FsCode::label)
  // Earlier paths (indices in OpDiff::paths) that end below this one's
  // last frame: `inclusive` leaves their stacks out (it is what they left
  // of this frame's delta).
  std::vector<std::size_t> besides;
};

// A count that B changed beyond its own run-to-run spread: every run of one
// side above every run of the other, the gap between them wider than
// either side's own range, and at least kExactShare of A's mean. Events per
// op, contentions per op and bytes are exact, deterministic figures: they
// say what B does differently even when the time it costs is noise
// (docs/DIFF.md, "Exact changes").
inline constexpr double kExactShare = 0.10;
struct ExactChange {
  std::string what;  // "xfs_trans_commit", "contentions on AGI buffer [semaphore]", "log"
  Comparison c;
  bool lock = false;  // a lock's contentions per op: part of the op's off-CPU story
};
// Code B runs and A does not, by presence over runs: sampled in every B
// run, in no A run, where A's runs would have shown it at B's rate (at
// least kPresenceSamples expected in them together, a chance of e^-4.6 =
// 1% of missing it by sampling alone, and more with many candidates:
// e^-x ≤ 0.05 / candidates). `gone`: the same, A's and not B's.
inline constexpr double kPresenceSamples = 4.6;
struct NewCode {
  std::string name;        // "xfs_attr_*" (a family) or a function
  bool family = false;
  bool gone = false;       // A's, not B's
  double ns_per_op = 0;    // on the side that runs it
  int fragile = -1;        // as Comparison::fragile: not found once a run is left out
};

// A call-tree node whose share of its caller's samples B changed, found by
// testing down the differential call tree (diff/descent.cpp): the deepest
// node of a branch of discoveries, each a BH family of one node's children.
struct ShareChange {
  std::vector<std::string> frames;  // below the op, outermost first; the last is the node
  double share_a = 0, share_b = 0;  // of its caller's samples, pooled over runs
  double q = 1;                     // in its caller's family
  Comparison ns;  // the node's inclusive ns/op per run: the size of it (its verdict unused)
  int fragile = -1;  // as Comparison::fragile: not found once a run is left out
  // The index in OpDiff::moved of the move this share is part of: the two
  // siblings, the frames on the way down to where the work went, and what
  // changed inside what was left behind (xfs_buf_item_format's share of
  // the direct commit's xlog_cil_commit, gone with the buffers the roll
  // now logs). The move tells them; -1 for a share on its own.
  int within = -1;
  // Its change is carried by the findings right below it (at least half of
  // its ns): the deepest node of a branch is where it changed. Told only
  // when none of those holds with a run left out.
  bool caller = false;
};

// Work that moved (diff/descent.cpp): under node `at`, the child `from`
// lost share while a sibling gained it, and in B `from` also runs below that
// sibling, through `via`: the same cost reached through new frames. The
// seed's case: under xfs_trans_commit, __xfs_trans_commit 98% -> 17% and
// xfs_defer_finish_noroll 2% -> 83%, the commit now under the roll
// (xfs_defer_finish_noroll → xfs_defer_trans_roll → xfs_trans_roll). One
// finding in place of the two shares, so that no line subtracts what
// another adds: `net` is what `at` did in all.
struct MovedWork {
  std::vector<std::string> at;   // below the op, outermost first; the node whose children moved
  std::string from;              // the child that lost share, and the function that moved
  std::vector<std::string> via;  // from the sibling that gained down to `from`'s caller there
  double share_a = 0, share_b = 0;  // `from`'s direct share of `at`'s samples, pooled
  double q = 1;                     // the larger of the two children's q
  Comparison there;  // `from` below `via`: inclusive ns/op per run
  Comparison net;    // `at`'s inclusive ns/op per run
  int fragile = -1;  // as Comparison::fragile
};

struct OpDiff {
  std::string op;
  bool tested = true;  // in the FDR families (DiffConfig::min_ops; not "other")
  Comparison count;    // operations per run (a workload that did different work is suspect)
  Comparison oncpu;    // ns/op, exact (sched_switch accounting)
  Comparison offcpu;   // ns/op
  Comparison spin;     // ns/op, traced lock spin (all locks)
  Comparison sleep;    // ns/op, traced lock sleep (all locks)
  // ns/op, sampled optimistic spin on rwsems (all locks; LockDiff's), which
  // neither spin nor sleep includes.
  Comparison optimistic_spin;
  Comparison latency;  // mean ns/op, entry to exit
  Comparison rate;     // ops/s over the recording
  std::map<std::string, Comparison> offcpu_by_class;  // kWaitClasses → ns/op
  // Filesystem events per op, by tracepoint (docs/PROFILE.md ops[].fs_events), exact:
  // a second transaction commit per create shows as 1.0 → 2.0 /op.
  std::map<std::string, Comparison> fs_events;
  std::vector<FunctionDiff> functions;  // by |Δ inclusive| descending
  std::vector<FamilyDiff> families;     // by |Δ inclusive| descending
  std::vector<LockDiff> locks;          // by |Δ wait| or |Δ optimistic spin|, descending
  std::vector<DeltaPart> oncpu_parts;   // by |delta_ns| descending
  std::vector<DeltaPath> paths;         // increases first, each by share descending
  std::vector<DeltaPart> offcpu_parts;
  // Who the op waited for (views/wait_graph.h), each side's heaviest chain
  // over its runs, per run. `hop_waits` compares each hop of B's chain (A's
  // when B has none) run by run, in the locks family: the first, the wait on
  // the holder, in ns/op; the others, the holder's and its waker's time, in
  // ns per run.
  std::optional<WaitChain> chain_a, chain_b;
  std::vector<Comparison> hop_waits;
  // Exact changes and new code (find_exact_changes), the largest first;
  // for tested ops only.
  std::vector<ExactChange> exact;
  std::vector<NewCode> new_code;
  // Shares that changed down the call tree, by |Δ ns/op| (descend_call_trees).
  std::vector<ShareChange> shares;
  std::vector<MovedWork> moved;  // the shares that made them left out of `shares`
};

// OpDiff's figures, listed once (Metric, above).
inline constexpr Metric<OpDiff> kOpMetrics[] = {
    {"count", "operations per run", &OpDiff::count},
    {"oncpu", "on-CPU", &OpDiff::oncpu, ShownWhen::Always, true},
    {"offcpu", "off-CPU", &OpDiff::offcpu, ShownWhen::Always, true},
    {"latency", "latency", &OpDiff::latency, ShownWhen::Always, true},
    {"spin", "lock spin", &OpDiff::spin, ShownWhen::NonZero},
    {"sleep", "lock sleep", &OpDiff::sleep, ShownWhen::NonZero},
    {"optimistic_spin", "optimistic spin (sampled)", &OpDiff::optimistic_spin, ShownWhen::NonZero},
    {"rate", "rate", &OpDiff::rate},
};

// One kernel-thread bucket (workqueue or thread, and the work function a
// worker ran), per run.
struct BackgroundDiff {
  std::string name;      // "xfs-conv/loop0: xfs_end_io"
  // The test filesystem's own: its device's workqueues and threads
  // ("xfs-cil/loop0", "xfsaild/loop0", the loop device's "loop0"); the rest
  // is other kernel work (the flusher, other disks), which may or may not
  // be for it.
  bool test_fs = false;
  Comparison cpu;        // ns, sampled (count test)
  Comparison offcpu;     // ns off CPU inside work items
  Comparison lock_wait;  // ns in contended locks
  // The lock whose wait moved most (B − A of the side means), and its share
  // of lock_wait's delta: "xfs_buf lock (AGF) [semaphore]", 0.98.
  std::string top_lock;
  double top_lock_share = 0;
  std::vector<std::pair<std::string, Comparison>> fs_events;  // by tracepoint
  // The test filesystem's buckets: shares that changed down the bucket's
  // call tree, as for an op, in ns per run (descend_call_trees), and the
  // code sampled in every B run and in no A run, outermost first: a family
  // ("xfs_attr_*") or a function.
  std::vector<ShareChange> shares;
  std::vector<std::string> new_in_b;
};

// One setting in which A's filesystem differs from B's (model/fs_settings.h).
struct SettingDiff {
  std::string name;    // "naming.parent", "mount.wsync", "mkfs.version"
  std::string a, b;    // "" where that side's tools did not print it
  bool asked = false;  // named in A's or B's mkfs or mount options
};

// The filesystems as built (Profile::setup of each side's first run).
struct SetupDiff {
  bool recorded = false;  // every run of both sides carries it
  std::string mkfs_a, mkfs_b;  // "mkfs.xfs version 6.15.0"
  std::vector<SettingDiff> settings;  // every difference, in printed order
  bool incidental() const {
    for (const auto& s : settings)
      if (!s.asked) return true;
    return false;
  }
};

// A run during which the host took more than this share of the vCPUs'
// time (steal in /proc/stat) measured its neighbours as much as the
// filesystem: the diff warns, and compare runs it again.
inline constexpr double kStealShare = 0.10;

// Every kind of warning, X(enumerator, name): the name is what JSON, HTML
// and the matrix show (data-kind), and the one place it is spelled.
#define FSCOST_WARNING_KINDS(X)                                                    \
  X(FewRuns, "few-runs")                 /* too few runs for statistics */         \
  X(UserShare, "user-share")             /* user CPU dilutes kernel deltas */      \
  X(WallVsSys, "wall-vs-sys")            /* wall and sys time moved apart */       \
  X(Noise, "noise")                      /* an op's noise exceeds its effect */    \
  X(Drops, "drops")                      /* lost events */                         \
  X(DropsMinor, "drops-minor")           /* a handful of missed program runs */    \
  X(ConfigMismatch, "config-mismatch")   /* more differs than was asked */         \
  X(CalibrationMismatch, "calibration-mismatch")                                  \
  X(Background, "background")            /* kernel threads' work moved */          \
  X(OpCount, "op-count")                 /* an op's count per run differs */       \
  X(SetupVaries, "setup-varies")         /* a side's runs were set up apart */     \
  X(Enospc, "enospc")                    /* the filesystem filled */               \
  X(Dirty, "dirty")                      /* dirty data left at the run's end */    \
  X(LowSpace, "low-space")                                                         \
  X(BusyMachine, "busy-machine")         /* other work on the host */              \
  X(Steal, "steal")                      /* the hypervisor took CPU */             \
  X(PageZeroing, "page-zeroing")                                                   \
  X(Outlier, "outlier")                  /* one run far off its side */            \
  X(OutlierCluster, "outlier-cluster")                                             \
  X(Dropped, "dropped")                  /* an outlier left out */                 \
  X(RunOrder, "run-order")               /* figures drift with the run order */    \
  X(WorkloadVaries, "workload-varies")   /* compare: a workload not repeatable */  \
  X(Oversubscribed, "oversubscribed")    /* compare: more threads than CPUs */

enum class WarningKind {
#define FSCOST_X(id, name) id,
  FSCOST_WARNING_KINDS(FSCOST_X)
#undef FSCOST_X
};
std::string_view warning_name(WarningKind k);

struct Warning {
  WarningKind kind;
  std::string message;  // one sentence, numbers included
  // What it is about, where it is about one thing: an op (noise, op-count),
  // or a run of one side (outlier, dropped: side 'A' or 'B', its index).
  std::string op;
  char side = 0;
  std::size_t run = 0;
  // An outlier's run and what was far off in it, without what is done
  // about it: the Dropped warning says it again (never cut from `message`).
  std::string about;
};

struct Diff {
  std::string label_a, label_b;
  std::size_t runs_a = 0, runs_b = 0;
  // Each side's filesystem, from its first run's setup "fs" ("xfs", "ext4");
  // "" for profiles that do not say (fscost record's). When both are known
  // and differ, each side's own frames are a different code path
  // (model/fs_code.h), never new code.
  std::string fs_a, fs_b;
  // What ran, in a few words, for the first screen's one header line: the
  // runs' shared command with its paths left out ("fscost-workload
  // --workload create --files 40000"); "" when the runs ran different
  // commands (a config-mismatch warning says so). compare sets its own.
  std::string workload;
  bool cross_filesystem() const { return !fs_a.empty() && !fs_b.empty() && fs_a != fs_b; }
  DiffConfig config;
  // Comparisons under Benjamini–Hochberg control, by family: whole-run and
  // per-op metrics (incl. wait classes); per-function costs; per-lock figures;
  // kernel-thread work per bucket (its own question, how much background
  // work a configuration causes, which must not dilute the per-op ones).
  // Each family controls its FDR at alpha on its own.
  struct {
    std::size_t metrics = 0, functions = 0, locks = 0, background = 0;
  } families;
  std::size_t family = 0;  // the four summed
  // Whole-workload figures per run (rusage of the target; kernel threads
  // from their cpu-clock samples).
  Comparison sys_ns, user_ns, wall_ns;
  Comparison user_share;   // user / (user + sys), in %
  Comparison kthread_ns;   // background kernel-thread CPU per run
  Comparison fs_kthread_ns;  // of which the test filesystem's (BackgroundDiff::test_fs)
  // Bytes written to the test device per run ("B"), when every run knows
  // its device (compare's profiles); n = 0 otherwise.
  Comparison device_bytes;
  // The same by what the writes carried ("data", "metadata", "log"), when
  // the runs were recorded with --fs.
  std::vector<std::pair<std::string, Comparison>> device_bytes_by_kind;
  std::vector<BackgroundDiff> background;  // per bucket, by |Δ CPU| descending
  // Whole-run exact changes: the test device's bytes by kind.
  std::vector<ExactChange> exact;
  // fscost's own probe time per traced operation, from each side's warm-up
  // run (bpf_stats); NaN where not measured.
  double tracer_a = std::numeric_limits<double>::quiet_NaN();
  double tracer_b = std::numeric_limits<double>::quiet_NaN();
  std::vector<OpDiff> ops; // by |Δ on-CPU + Δ off-CPU| × count, descending; "other" last
  SetupDiff setup;
  // Runs left out as outliers (DiffConfig::drop_outliers): "A run1.profile".
  std::vector<std::string> dropped;
  // The leave-one-out diffs every finding was checked against
  // (diff/stability.h), by the run each left out: "A run-03.profile";
  // empty when a side had fewer than kJackknifeRuns runs.
  std::vector<std::string> jackknife;
  std::vector<Warning> warnings;
  // Each side's mean stacks per view and operation (mean_stacks.h): what
  // the explanation read, and what the HTML report draws.
  std::shared_ptr<const MeanStacks> stacks_a, stacks_b;
};

// A lock's change weighs on its op when what the wait surely moved is at
// least this share of the largest latency change the op's interval
// admits (diff/locks.cpp weighs_on).
inline constexpr double kLockShare = 0.05;

// The largest latency change the op's interval admits, |CI| at its far
// end; NaN where the latency has no interval.
double latency_reach(const OpDiff& op);

// What a comparison surely moved: its interval's end nearest zero, 0 when
// the interval holds zero; |delta| where it has no interval.
double surely_moved(const Comparison& c);

// Whether a wait's change weighs on the op: surely_moved(wait) at least
// kLockShare of latency_reach(op). A few hundred ns at q ≈ 0.05 is no
// answer to "is it the contention?": its interval reaches zero. It was
// "beyond half the latency interval's width, or a twentieth of a latency
// change the op's own test resolved", and the seed's CIL context lock
// (+250..350 ns/op of sleep beside create's +2..4 µs) was "same lock,
// worse" in one live compare of three and not in the others (issue 42).
bool weighs_on(const Comparison& wait, const OpDiff& op);

// The wait on the first holder of the op's chain (hop_waits' first)
// changed, and weighs on the op.
bool holder_wait_changed(const OpDiff& op);

// The op the first screen leads with: the tested one that costs the
// workload most (Diff::ops' order); nullptr if none is tested.
const OpDiff* headline_op(const Diff& d);

// Whether `c` moved beyond its own run-to-run spread (ExactChange).
bool exact_change(const Comparison& c);

// Throws UserError if a side has no runs.
Diff diff_runs(const RunSet& a, const RunSet& b, const DiffConfig& cfg = {});

// The per-operation stacks of `view` averaged
// over the runs: flame_input(per_op = true) of each run, values summed per
// stack and divided by the number of runs. oncpu values are converted from
// samples/op to ns/op with each run's sampling frequency.
FlameInput mean_flame_input(const RunSet& runs, View view,
                            const std::optional<std::string>& op);

}  // namespace fscost
