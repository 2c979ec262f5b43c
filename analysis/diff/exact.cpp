// Exact changes and new code: what B does differently, decided from the
// runs' counts and from presence, not from a test on time. A second
// transaction commit per create (xfs_trans_commit 1.02 -> 2.02 in every
// run) or xfs_attr_* sampled in every B run and in no A run is a fact of
// the mechanism even at 3+4 runs on a noisy host, where the ~1 µs it costs
// is not resolved (docs/DIFF.md, "Exact changes").
#include <algorithm>
#include <cmath>

#include "diff/internal.h"
#include "model/frame_match.h"  // function_family

namespace fscost {

bool exact_change(const Comparison& c) {
  if (c.a.size() < 2 || c.b.size() < 2) return false;
  auto [a_lo, a_hi] = std::minmax_element(c.a.begin(), c.a.end());
  auto [b_lo, b_hi] = std::minmax_element(c.b.begin(), c.b.end());
  // Every run of one side beyond every run of the other, by more than
  // either side's own spread.
  double gap = std::max(*b_lo - *a_hi, *a_lo - *b_hi);
  double spread = std::max(*a_hi - *a_lo, *b_hi - *b_lo);
  if (!(gap > spread) || !(gap > 0)) return false;
  // Material: a tenth of A (or new in B).
  return !(c.sa.mean > 0) || std::fabs(c.delta()) >= kExactShare * c.sa.mean;
}

double presence_floor(std::size_t m) {
  return std::max(kPresenceSamples, std::log(static_cast<double>(std::max<std::size_t>(m, 1)) / 0.05));
}

bool present_only(const std::vector<double>& on, const std::vector<double>& off,
                  double expected_off, double floor) {
  if (on.size() < 2 || off.size() < 2) return false;
  return std::ranges::all_of(on, [](double v) { return v > 0; }) &&
         std::ranges::all_of(off, [](double v) { return v == 0; }) && expected_off >= floor;
}

bool present_by_counts(const Comparison& c, bool in_b, double floor) {
  if (c.test != StatTest::Counts || !c.counts.valid) return false;
  const double rate = in_b ? c.counts.rate_b : c.counts.rate_a;
  const double exposure = in_b ? c.counts.exposure_a : c.counts.exposure_b;
  return present_only(in_b ? c.b : c.a, in_b ? c.a : c.b, rate * exposure, floor);
}

namespace {

// Each function's and family's new_in_b and gone_in_b: the presence rule,
// Bonferroni over the op's functions and families.
void mark_presence(OpDiff& op, std::size_t looked_at) {
  const double floor = presence_floor(looked_at);
  auto mark = [floor](auto& f) {
    f.new_in_b = present_by_counts(f.inclusive, true, floor);
    f.gone_in_b = present_by_counts(f.inclusive, false, floor);
  };
  std::ranges::for_each(op.functions, mark);
  std::ranges::for_each(op.families, mark);
}

// The families present on one side only, then the functions outside them.
void add_new_code(OpDiff& op) {
  for (bool in_b : {true, false}) {
    std::vector<std::string> families;
    for (const auto& f : op.families)
      if (in_b ? f.new_in_b : f.gone_in_b) {
        op.new_code.push_back({f.name, true, !in_b, in_b ? f.inclusive.sb.mean : f.inclusive.sa.mean});
        families.push_back(f.name.substr(0, f.name.size() - 2));  // "xfs_attr_*" → "xfs_attr"
      }
    // Functions outside the families already named.
    for (const auto& fn : op.functions) {
      if (!(in_b ? fn.new_in_b : fn.gone_in_b)) continue;
      std::string fam(function_family(fn.name));
      if (!fam.empty() && std::ranges::find(families, fam) != families.end()) continue;
      op.new_code.push_back({fn.name, false, !in_b, in_b ? fn.inclusive.sb.mean : fn.inclusive.sa.mean});
    }
  }
  std::stable_sort(op.new_code.begin(), op.new_code.end(), [](const NewCode& x, const NewCode& y) {
    if (x.gone != y.gone) return !x.gone;
    if (x.family != y.family) return x.family;
    return x.ns_per_op > y.ns_per_op;
  });
}

// The largest change first: by |log ratio|, new-in-B counts on top.
void by_ratio(std::vector<ExactChange>& v) {
  auto ratio = [](const ExactChange& e) {
    const Comparison& c = e.c;
    if (!(c.sa.mean > 0) || !(c.sb.mean > 0)) return 1e9;
    return std::fabs(std::log(c.sb.mean / c.sa.mean));
  };
  std::stable_sort(v.begin(), v.end(),
                   [&](const ExactChange& x, const ExactChange& y) { return ratio(x) > ratio(y); });
}

}  // namespace

void find_exact_changes(Diff& d, std::span<const std::size_t> looked_at) {
  for (std::size_t i = 0; i < d.ops.size(); ++i) {
    OpDiff& op = d.ops[i];
    mark_presence(op, i < looked_at.size() ? looked_at[i]
                                           : op.functions.size() + op.families.size());
    if (!op.tested) continue;
    // Across filesystems each side counts only its own events: not changes.
    if (!d.cross_filesystem())
      for (const auto& [name, c] : op.fs_events)
        if (std::max(c.sa.mean, c.sb.mean) >= 0.01 && exact_change(c)) op.exact.push_back({name, c});
    // A workload that did different work: its operations per run.
    if (op.op != "sync" && exact_change(op.count)) op.exact.push_back({"operations per run", op.count});
    for (const LockDiff& l : op.locks)
      if (std::max(l.contentions.sa.mean, l.contentions.sb.mean) >= 0.01 &&
          exact_change(l.contentions))
        op.exact.push_back({"contentions on " + l.name + " [" + l.type + "]", l.contentions, true});
    by_ratio(op.exact);
    if (!d.cross_filesystem()) add_new_code(op);
  }
  for (const auto& [kind, c] : d.device_bytes_by_kind)
    if (std::max(c.sa.mean, c.sb.mean) >= 4096 && exact_change(c)) d.exact.push_back({kind, c});
  by_ratio(d.exact);
}

}  // namespace fscost
