// The jackknife's leave-one-out diffs (stability.h), from what the full
// diff already holds: each run's values of every comparison, and the call
// trees the descent builds. A leave-one-out needs what its findings are
// made of, and no more: the exact changes and new code by their rules on
// the other runs' values, and the descents again on the same trees
// (descend_call_trees); the comparisons are tested again one by one in
// mark_fragile. No profile is copied and no run is read again: the whole
// diff redone per run left out cost 116 s of 2 × 10 runs × 100k stacks.
#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "diff/internal.h"
#include "diff/stability.h"
#include "model/frame_match.h"  // function_family
#include "model/parallel.h"

namespace fscost {

namespace {

// Whether a kept run (all but `run`, A's runs first) has a value other
// than 0 in `c`, whose values are every run's.
bool sampled_without(const Comparison& c, std::size_t run, std::size_t runs_a) {
  for (std::size_t i = 0; i < c.a.size(); ++i)
    if (i != run && c.a[i] != 0) return true;
  for (std::size_t i = 0; i < c.b.size(); ++i)
    if (runs_a + i != run && c.b[i] != 0) return true;
  return false;
}

// Sampled in every kept run of one side and in no kept run of the other:
// what the presence rule could still find without `run`.
bool one_side_only(const Comparison& c, std::size_t run, std::size_t runs_a) {
  auto every = [&](const std::vector<double>& v, std::size_t base, bool on) {
    for (std::size_t i = 0; i < v.size(); ++i)
      if (base + i != run && (v[i] > 0) != on) return false;
    return true;
  };
  return (every(c.b, runs_a, true) && every(c.a, 0, false)) ||
         (every(c.a, 0, true) && every(c.b, runs_a, false));
}

// Op `op` of the diff without `run`: its operations per run and whether it
// is tested; the figures its exact changes and new code are decided from;
// and how many functions and families its presence rule looks at.
OpDiff op_without(const OpDiff& op, std::size_t run, std::size_t runs_a, const DiffConfig& cfg,
                  std::size_t& looked_at) {
  OpDiff o;
  o.op = op.op;
  o.count = retest_without_run(op.count, run, runs_a, cfg);
  o.tested = op_tested(o.op, o.count, cfg);
  looked_at = 0;
  if (!o.tested) return o;
  for (const auto& [event, c] : op.fs_events)
    o.fs_events.emplace(event, retest_without_run(c, run, runs_a, cfg));
  for (const auto& l : op.locks) {
    LockDiff k;
    k.name = l.name;
    k.type = l.type;
    k.contentions = retest_without_run(l.contentions, run, runs_a, cfg);
    o.locks.push_back(std::move(k));
  }
  // The functions some kept run sampled; a family is one of two of them.
  std::unordered_map<std::string_view, std::size_t> members;
  std::vector<const FunctionDiff*> candidates;
  for (const auto& f : op.functions) {
    if (!sampled_without(f.inclusive, run, runs_a)) continue;
    ++looked_at;
    if (auto fam = function_family(f.name); !fam.empty()) ++members[fam];
    if (one_side_only(f.inclusive, run, runs_a)) candidates.push_back(&f);
  }
  std::vector<const FamilyDiff*> family_candidates;
  for (const auto& f : op.families) {
    auto it = members.find(std::string_view(f.name).substr(0, f.name.size() - 2));  // "xfs_attr_*"
    if (it == members.end() || it->second < 2) continue;
    ++looked_at;
    if (one_side_only(f.inclusive, run, runs_a)) family_candidates.push_back(&f);
  }
  // Only what the presence rule marks is kept (find_exact_changes marks
  // it again): a FunctionDiff is large, and runs of different code on
  // each side make thousands of candidates per run left out.
  const double floor = presence_floor(looked_at);
  auto present = [floor](const Comparison& c) {
    return present_by_counts(c, true, floor) || present_by_counts(c, false, floor);
  };
  o.functions.reserve(candidates.size());  // never relocated as it grows
  for (const FunctionDiff* f : candidates)
    if (Comparison c = retest_without_run(f->inclusive, run, runs_a, cfg); present(c)) {
      FunctionDiff& k = o.functions.emplace_back();
      k.name = f->name;
      k.inclusive = std::move(c);
    }
  for (const FamilyDiff* f : family_candidates)
    if (Comparison c = retest_without_run(f->inclusive, run, runs_a, cfg); present(c)) {
      FamilyDiff& k = o.families.emplace_back();
      k.name = f->name;
      k.inclusive = std::move(c);
    }
  return o;
}

}  // namespace

bool family_without(const OpDiff& op, const FamilyDiff& family, std::size_t run,
                    std::size_t runs_a) {
  const std::string_view name = std::string_view(family.name).substr(0, family.name.size() - 2);
  std::size_t members = 0;
  for (const auto& f : op.functions)
    if (function_family(f.name) == name && sampled_without(f.inclusive, run, runs_a) &&
        ++members == 2)
      return true;
  return false;
}

std::vector<Diff> left_out_diffs(const Diff& d) {
  const std::size_t runs = d.runs_a + d.runs_b;
  std::vector<Diff> out(runs);
  parallel_for(runs, [&](std::size_t run) {
    Diff& l = out[run];
    l.config = d.config;
    l.fs_a = d.fs_a;
    l.fs_b = d.fs_b;
    l.runs_a = d.runs_a - (run < d.runs_a ? 1 : 0);
    l.runs_b = d.runs_b - (run < d.runs_a ? 0 : 1);
    for (const auto& [kind, c] : d.device_bytes_by_kind)
      l.device_bytes_by_kind.emplace_back(kind, retest_without_run(c, run, d.runs_a, d.config));
    for (const auto& bg : d.background) {
      BackgroundDiff k;
      k.name = bg.name;
      k.test_fs = bg.test_fs;
      l.background.push_back(std::move(k));
    }
    std::vector<std::size_t> looked_at(d.ops.size());
    for (std::size_t i = 0; i < d.ops.size(); ++i)
      l.ops.push_back(op_without(d.ops[i], run, d.runs_a, d.config, looked_at[i]));
    find_exact_changes(l, looked_at);
    for (OpDiff& o : l.ops) {  // read for their new code, which is out now
      o.functions = {};
      o.families = {};
    }
  });
  return out;
}

}  // namespace fscost
