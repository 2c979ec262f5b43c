// What a Diff says, as data: the one selection of what is material, read
// by every renderer (summary.txt's first screen, the HTML verdict, the
// JSON `findings`). A finding names its kind, its op and the items it tells
// (indices into the Diff); the words are the renderers' (report/diff).
//
// The rules that decide what is material live here and nowhere else: a
// change is told when its test survived the FDR control and held with
// any one run left out (stability.h), or when it is exact (present in
// every run of one side and none of the other, a count beyond every run's
// spread), whatever the op's time did.
#pragma once

#include <cstddef>
#include <limits>
#include <string_view>
#include <vector>

#include "diff/diff.h"

namespace fscost {

// Every kind of finding, X(enumerator, name): the name is JSON's `kind`.
#define FSCOST_FINDING_KINDS(X)                                                   \
  X(SetupDiffers, "setup-differs")     /* the filesystems differ beyond asked */ \
  X(Calibrated, "calibrated")          /* intervals floored by calibrate */      \
  X(ProbeCost, "probe-cost")           /* fscost's probes cost B differently */  \
  X(OpTime, "op-time")                 /* an op's on- or off-CPU time changed */ \
  X(Unresolved, "unresolved")          /* its on-CPU time did not resolve */     \
  X(Path, "path")                      /* a call path carrying the delta */      \
  X(Families, "families")              /* function families that moved */       \
  X(FsEvents, "fs-events")             /* the op's filesystem events per op */   \
  X(ExactCounts, "exact")              /* counts beyond every run's spread */    \
  X(NewCode, "new-code")               /* sampled in every B run, no A run */    \
  X(GoneCode, "gone-code")             /* sampled in every A run, no B run */    \
  X(MovedWork, "moved-work")           /* the same cost through new frames */    \
  X(Shares, "shares")                  /* shares down the call tree */           \
  X(Contention, "contention")          /* the op's contention verdict */         \
  X(Chain, "chain")                    /* who held the lock */                   \
  X(BackgroundCpu, "background-cpu")                                             \
  X(BackgroundShares, "background-shares")                                       \
  X(BackgroundNew, "background-new")                                             \
  X(BackgroundWaits, "background-waits")                                         \
  X(BackgroundEvents, "background-events")                                       \
  X(DeviceBytes, "device-bytes")       /* test device writes resolved */         \
  X(DeviceExact, "device-exact")       /* by kind, beyond every run's spread */  \
  X(Quiet, "quiet")                    /* nothing resolved: a largest change */  \
  X(Warning, "warning")                /* a warning that changes the reading */

enum class FindingKind {
#define FSCOST_X(id, name) id,
  FSCOST_FINDING_KINDS(FSCOST_X)
#undef FSCOST_X
};
std::string_view finding_name(FindingKind k);

// The reviewer's question for one op, answered in one line: a lock whose
// contention changed and weighs on the op (LockChange), the wait on the
// first holder of its chain, a change too slight to weigh, or none.
enum class ContentionAnswer { Locks, HolderWait, Slight, None };
std::string_view to_string(ContentionAnswer a);

inline constexpr std::size_t kNoOp = std::numeric_limits<std::size_t>::max();

// What a finding tells, by index: `i` into the vector its kind names, `j`
// a second level (a bucket's share, which of a bucket's waits).
//   Path: OpDiff::paths; Families: OpDiff::families, in the order told;
//   FsEvents: OpDiff::fs_events by rank; ExactCounts: OpDiff::exact;
//   NewCode/GoneCode: OpDiff::new_code; MovedWork: OpDiff::moved;
//   Shares: OpDiff::shares; Contention: OpDiff::locks;
//   BackgroundCpu/New: Diff::background; BackgroundShares: (bucket,
//   share); BackgroundWaits: (bucket, 0 off CPU | 1 in locks);
//   BackgroundEvents: (bucket, event); DeviceBytes: device_bytes_by_kind;
//   DeviceExact: Diff::exact; Quiet: Diff::ops; Warning: Diff::warnings.
struct Item {
  std::size_t i = 0, j = 0;
};

struct Finding {
  FindingKind kind;
  std::size_t op = kNoOp;   // index in Diff::ops; kNoOp: the whole run
  std::vector<Item> items;  // what it tells, the largest first
  bool oncpu = true;        // OpTime: the on-CPU side, else off-CPU
  ContentionAnswer answer = ContentionAnswer::None;  // Contention
};

// An op's findings, or (op == kNoOp) the kernel threads' and the device's.
struct FindingBlock {
  std::size_t op = kNoOp;
  std::vector<Finding> findings;
};

struct Findings {
  std::vector<Finding> confounds;   // why a figure may not mean what it says
  // In screen order: ops by what they cost the workload, the kernel
  // threads' block second (after the op that costs most).
  std::vector<FindingBlock> blocks;
  // Nothing changed: each tested op's largest difference (at most two),
  // and none when no op was tested: never a bare "no change".
  std::vector<Finding> quiet;
  std::vector<Finding> warnings;    // those that change how to read the blocks
  std::size_t other_warnings = 0;   // the rest: in full below the first screen
};

Findings select_findings(const Diff& d);

// The rules, for the text below the first screen that tells the same items.
// An op the first screen gives a block: its time or a lock's verdict
// changed, or only its exact facts did.
bool on_first_screen(const OpDiff& op);
// A call path that is a line of its own (not told by a move).
bool path_shown(const DeltaPath& p, const OpDiff& op);
// The move that tells path `p` (at its `from` end or where the work went).
const MovedWork* telling_move(const DeltaPath& p, const OpDiff& op);
// The families told under a significant on-CPU change, the most novel first.
std::vector<std::size_t> told_families(const OpDiff& op);

}  // namespace fscost
