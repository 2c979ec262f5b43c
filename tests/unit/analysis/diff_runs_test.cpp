// diff_runs on synthetic runs with known injected differences: the
// classification must find them, and find nothing in pure noise.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <iostream>

#include "diff/diff.h"
#include "diff_fixture.h"

namespace fscost::test {
namespace {

// A: the baseline. B: (1) new code under create, (2) more spin on lock X
// under create, (3) a new sleeping lock Y under unlink, (4) mkdir unchanged.
const Diff& injected() {
  static const Diff d = [] {
    ConfigSpec b = base_spec();
    inject_new_code(b);
    inject_more_spin(b);
    inject_sleep_lock(b);
    return diff_runs(make_runs(base_spec(), 5, 100, "A"), make_runs(b, 5, 200, "B"));
  }();
  return d;
}

const OpDiff& op_of(const Diff& d, const std::string& name) {
  for (const auto& o : d.ops)
    if (o.op == name) return o;
  throw std::logic_error("no op " + name);
}

const DeltaPart* part(const std::vector<DeltaPart>& parts, const std::string& kind,
                      const std::string& where = {}) {
  for (const auto& p : parts)
    if (p.kind == kind && (where.empty() || p.where == where)) return &p;
  return nullptr;
}

const LockDiff* lock_of(const OpDiff& op, const std::string& name) {
  for (const auto& l : op.locks)
    if (l.name == name) return &l;
  return nullptr;
}

const FunctionDiff* function_of(const OpDiff& op, const std::string& name) {
  for (const auto& f : op.functions)
    if (f.name == name) return &f;
  return nullptr;
}

// Every Comparison of one op, for "nothing changed" checks.
std::vector<std::pair<std::string, const Comparison*>> comparisons(const OpDiff& op) {
  std::vector<std::pair<std::string, const Comparison*>> out = {
      {"count", &op.count},  {"oncpu", &op.oncpu},     {"offcpu", &op.offcpu}, {"spin", &op.spin},
      {"sleep", &op.sleep}, {"optimistic spin", &op.optimistic_spin}, {"latency", &op.latency},
      {"rate", &op.rate}};
  for (const auto& [cls, c] : op.offcpu_by_class) out.push_back({"offcpu " + cls, &c});
  for (const auto& f : op.functions) {
    out.push_back({f.name + " incl", &f.inclusive});
    out.push_back({f.name + " self", &f.self});
  }
  for (const auto& l : op.locks)
    for (const auto* c : {&l.contentions, &l.wait, &l.spin, &l.sleep, &l.optimistic_spin})
      out.push_back({l.name, c});
  return out;
}

void print_parts(const OpDiff& op) {
  if (!std::getenv("FSCOST_DIFF_PRINT")) return;
  std::cout << op.op << ": on-CPU " << op.oncpu.delta() << " ns/op (" << to_string(op.oncpu.verdict)
            << ", q " << op.oncpu.q << "), off-CPU " << op.offcpu.delta() << " ns/op ("
            << to_string(op.offcpu.verdict) << ", q " << op.offcpu.q << ")\n";
  for (const auto* parts : {&op.oncpu_parts, &op.offcpu_parts})
    for (const auto& p : *parts)
      std::cout << "  " << (parts == &op.oncpu_parts ? "on " : "off") << " " << p.kind << " "
                << p.delta_ns << " ns/op share " << p.share << " where '" << p.where << "' "
                << p.detail << (p.significant ? "" : " [not significant]") << "\n";
  for (const auto& l : op.locks)
    std::cout << "  lock " << l.name << " (" << l.type << "): " << to_string(l.change) << ", "
              << l.detail << "\n";
}

TEST(DiffCompare, VerdictsFromWelch) {
  EXPECT_EQ(compare({1, 2, 3}, {11, 12, 13}, "ns").verdict, Verdict::More);
  EXPECT_EQ(compare({11, 12, 13}, {1, 2, 3}, "ns").verdict, Verdict::Less);
  EXPECT_EQ(compare({1, 2, 3}, {1, 2, 3}, "ns").verdict, Verdict::NoChange);
  Comparison one = compare({1}, {2, 3}, "ns");
  EXPECT_EQ(one.verdict, Verdict::TooFewRuns);
  EXPECT_TRUE(std::isnan(one.q));
  Comparison c = compare({10, 10}, {15, 15}, "ns/op");
  EXPECT_DOUBLE_EQ(c.delta(), 5);
  EXPECT_DOUBLE_EQ(c.rel, 0.5);
  EXPECT_EQ(c.unit, "ns/op");
  EXPECT_TRUE(std::isnan(compare({0, 0}, {1, 2}, "ns").rel));
}

TEST(DiffRuns, CreateOnCpuIsNewCodeAndSpinOnLockX) {
  const OpDiff& create = op_of(injected(), "create");
  print_parts(create);
  EXPECT_EQ(create.oncpu.verdict, Verdict::More);
  ASSERT_FALSE(create.oncpu_parts.empty());
  EXPECT_EQ(create.oncpu_parts[0].kind, "new-code");  // the largest part

  const DeltaPart* fresh = part(create.oncpu_parts, "new-code");
  ASSERT_TRUE(fresh);
  EXPECT_EQ(fresh->where, "xfs_parent_addname");
  EXPECT_TRUE(fresh->significant);
  EXPECT_NEAR(fresh->delta_ns, 1000, 150);

  const DeltaPart* spin = part(create.oncpu_parts, "spin");
  ASSERT_TRUE(spin);
  EXPECT_EQ(spin->where, kLockX);
  EXPECT_TRUE(spin->significant);
  EXPECT_NEAR(spin->delta_ns, 125 - 20, 40);
  EXPECT_NE(spin->detail.find("same lock, worse"), std::string::npos) << spin->detail;
  EXPECT_NE(spin->detail.find("contentions/op"), std::string::npos) << spin->detail;

  double sum = 0;
  for (const auto& p : create.oncpu_parts) sum += p.delta_ns;
  EXPECT_NEAR(sum, create.oncpu.delta(), 1e-6 * std::fabs(create.oncpu.delta()));
}

TEST(DiffRuns, CreateLockXIsTheSameLockWorse) {
  const OpDiff& create = op_of(injected(), "create");
  const LockDiff* x = lock_of(create, kLockX);
  ASSERT_TRUE(x);
  EXPECT_EQ(x->type, "spinlock");
  EXPECT_EQ(x->change, LockChange::Worse);
  EXPECT_EQ(x->contentions.verdict, Verdict::More);
  EXPECT_NEAR(x->contentions.sb.mean / x->contentions.sa.mean, 5, 0.5);
  EXPECT_NEAR(x->per_contention.sb.mean / x->per_contention.sa.mean, 1.25, 0.1);
  EXPECT_EQ(create.spin.verdict, Verdict::More);
}

TEST(DiffRuns, CreateFunctionsNewInB) {
  const OpDiff& create = op_of(injected(), "create");
  const FunctionDiff* f = function_of(create, "xfs_parent_addname");
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->new_in_b);
  EXPECT_FALSE(f->gone_in_b);
  EXPECT_EQ(f->inclusive.verdict, Verdict::More);
  EXPECT_NEAR(f->inclusive.delta(), 1000, 100);
  EXPECT_NEAR(f->self.delta(), 300, 50);
  const FunctionDiff* dir = function_of(create, "xfs_dir2_node_addname");
  ASSERT_TRUE(dir);
  EXPECT_EQ(dir->inclusive.verdict, Verdict::NoChange);
  EXPECT_FALSE(dir->new_in_b);
}

// One presence rule (internal.h present_only) for the op's new code, its
// call paths and the parts of its delta: code one B run lacks is not new
// in B, though A never sampled it; all three then call it the same path
// doing more, where the mean-is-zero rule the parts used to have called
// it new code while the op's new code did not.
TEST(DiffRuns, CodeOneBRunLacksIsNewCodeNowhere) {
  ConfigSpec b = base_spec();
  inject_new_code(b);
  RunSet rb = make_runs(b, 5, 200, "B");
  rb.runs[2] = make_run(base_spec(), 2, 202);
  const Diff d = diff_runs(make_runs(base_spec(), 5, 100, "A"), rb);
  const OpDiff& create = op_of(d, "create");
  EXPECT_FALSE(part(create.oncpu_parts, "new-code"));
  const DeltaPart* more = part(create.oncpu_parts, "more-work");
  ASSERT_TRUE(more);
  EXPECT_EQ(more->where, "xfs_parent_addname");
  ASSERT_FALSE(create.paths.empty());
  for (const auto& p : create.paths) EXPECT_NE(p.kind, "new-code");
  EXPECT_EQ(create.paths.front().kind, "more-work");
  EXPECT_EQ(create.paths.front().frames.back(), "xfs_parent_addname");
  for (const auto& n : create.new_code) EXPECT_TRUE(n.gone) << n.name;
  // With every B run carrying it, all three say new code.
  const OpDiff& all = op_of(injected(), "create");
  EXPECT_TRUE(part(all.oncpu_parts, "new-code"));
  ASSERT_FALSE(all.paths.empty());
  EXPECT_EQ(all.paths.front().kind, "new-code");
  EXPECT_FALSE(all.new_code.empty());
}

TEST(DiffRuns, UnlinkSleepsOnANewLockY) {
  const OpDiff& unlink = op_of(injected(), "unlink");
  print_parts(unlink);
  EXPECT_EQ(unlink.offcpu.verdict, Verdict::More);
  const DeltaPart* y = part(unlink.offcpu_parts, "lock", kLockY);
  ASSERT_TRUE(y);
  EXPECT_TRUE(y->significant);
  EXPECT_EQ(y->detail, "a new contention point");
  EXPECT_NEAR(y->delta_ns, 800, 100);
  EXPECT_EQ(unlink.offcpu_parts[0].where, kLockY);  // the largest part

  const LockDiff* l = lock_of(unlink, kLockY);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->type, "semaphore");
  EXPECT_EQ(l->change, LockChange::New);
  EXPECT_EQ(l->per_contention.sa.n, 0u);  // no run of A contended on it
  EXPECT_EQ(l->per_contention.verdict, Verdict::TooFewRuns);
  EXPECT_NE(l->detail.find("a new contention point"), std::string::npos) << l->detail;

  for (const auto& p : unlink.offcpu_parts)
    EXPECT_TRUE(p.where == kLockY || !p.significant) << p.kind << " " << p.where;
  for (const auto& p : unlink.oncpu_parts) EXPECT_FALSE(p.significant) << p.kind;
  // A wait is placed at the code that waited, not at the scheduler.
  const DeltaPart* io = part(unlink.offcpu_parts, "io");
  ASSERT_TRUE(io);
  EXPECT_EQ(io->where, "xfs_buf_submit");
}

TEST(DiffRuns, MkdirNoiseIsNoChange) {
  const OpDiff& mkdir = op_of(injected(), "mkdir");
  print_parts(mkdir);
  // ops/s is over the whole recording, which create and unlink made
  // longer: mkdir's rate fell without mkdir changing.
  EXPECT_EQ(mkdir.rate.verdict, Verdict::Less);
  for (const auto& [what, c] : comparisons(mkdir)) {
    if (c == &mkdir.rate) continue;
    EXPECT_EQ(c->verdict, Verdict::NoChange) << what << " q " << c->q;
  }
  for (const auto* parts : {&mkdir.oncpu_parts, &mkdir.offcpu_parts})
    for (const auto& p : *parts) EXPECT_FALSE(p.significant) << p.kind << " " << p.where;
  ASSERT_EQ(mkdir.locks.size(), 1u);
  EXPECT_EQ(mkdir.locks[0].name, "i_rwsem (parent dir, filename_create)");
  EXPECT_EQ(mkdir.locks[0].change, LockChange::NoChange);
  EXPECT_FALSE(mkdir.offcpu_parts.empty());
}

// The same runs, sides swapped: what B added, A now loses.
TEST(DiffRuns, MirroredLocksAreBetterAndGone) {
  ConfigSpec a = base_spec();
  inject_new_code(a);
  inject_more_spin(a);
  inject_sleep_lock(a);
  Diff d = diff_runs(make_runs(a, 5, 200, "A"), make_runs(base_spec(), 5, 100, "B"));
  const OpDiff& create = op_of(d, "create");
  EXPECT_EQ(create.oncpu.verdict, Verdict::Less);
  EXPECT_EQ(part(create.oncpu_parts, "new-code"), nullptr);  // nothing costs in B alone
  const DeltaPart* less = part(create.oncpu_parts, "more-work");
  ASSERT_TRUE(less);
  EXPECT_EQ(less->where, "xfs_parent_addname");
  EXPECT_LT(less->delta_ns, -800);
  const FunctionDiff* f = function_of(create, "xfs_parent_addname");
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->gone_in_b);
  EXPECT_EQ(f->inclusive.verdict, Verdict::Less);
  EXPECT_EQ(lock_of(create, kLockX)->change, LockChange::Better);
  const LockDiff* y = lock_of(op_of(d, "unlink"), kLockY);
  ASSERT_TRUE(y);
  EXPECT_EQ(y->change, LockChange::Gone);
  EXPECT_EQ(y->detail.rfind("no longer contended (A: 0.10 contentions/op", 0), 0u) << y->detail;
}

// rwsem optimistic spinning runs before lock:contention_begin: the sampler
// sees it, no traced wait does. It is spin on the rwsem its stack takes
// (the parent directory's i_rwsem under filename_create), in that lock's
// row as sampled optimistic spin, and charged to no other lock.
TEST(DiffRuns, UntracedSpinIsChargedToTheLockItsStackTakes) {
  ConfigSpec b = base_spec();
  op_of(b, "mkdir").oncpu.push_back(
      {frames_of(kMkdirPath, {"filename_create", "down_write", "rwsem_down_write_slowpath",
                              "rwsem_optimistic_spin", "rwsem_spin_on_owner"}),
       2000});
  Diff d = diff_runs(make_runs(base_spec(), 5, 100, "A"), make_runs(b, 5, 200, "B"));
  const OpDiff& mkdir = op_of(d, "mkdir");
  const DeltaPart* spin = part(mkdir.oncpu_parts, "spin");
  ASSERT_TRUE(spin);
  EXPECT_EQ(spin->where, "i_rwsem (parent dir, filename_create)");
  EXPECT_EQ(spin->detail.rfind("optimistic spin (sampled", 0), 0u) << spin->detail;
  EXPECT_TRUE(spin->significant);
  const LockDiff* l = nullptr;
  for (const auto& x : mkdir.locks)
    if (x.name == spin->where && x.type == "rwsem:W") l = &x;
  ASSERT_TRUE(l);
  EXPECT_EQ(l->optimistic_spin.verdict, Verdict::More);
  EXPECT_EQ(l->change, LockChange::New);
  EXPECT_EQ(l->spin.delta(), 0);  // traced spin stays its own column
  EXPECT_EQ(part(mkdir.oncpu_parts, "new-code"), nullptr);  // spin wins over new code
}

TEST(DiffRuns, FamiliesUnderBenjaminiHochberg) {
  const Diff& d = injected();
  EXPECT_EQ(d.runs_a, 5u);
  EXPECT_EQ(d.runs_b, 5u);
  std::size_t valid = 0;
  for (const auto& op : d.ops)
    for (const auto& [what, c] : comparisons(op)) {
      EXPECT_GE(c->q, c->p()) << op.op << " " << what;
      valid += c->tested();
    }
  // Every op comparison above, per-contention comparisons, the six
  // whole-run ones and the kernel threads' are in the families.
  std::size_t extra = 6, background = 0;
  for (const auto& bg : d.background) {
    // a figure zero in every run is left out
    for (const Comparison* c : {&bg.cpu, &bg.offcpu, &bg.lock_wait})
      background += c->tested() && (c->sa.mean != 0 || c->sb.mean != 0);
    for (const auto& [event, c] : bg.fs_events) background += c.tested();
  }
  extra += background;
  for (const auto& op : d.ops) {
    for (const auto& l : op.locks) extra += l.per_contention.tested();
    for (const auto& p : op.paths) extra += p.inclusive.tested();
    for (const auto& f : op.families) extra += f.inclusive.tested();
  }
  EXPECT_EQ(d.family, valid + extra);
  EXPECT_EQ(d.families.metrics + d.families.functions + d.families.locks + d.families.background,
            d.family);
  EXPECT_EQ(d.families.background, background);
  EXPECT_GT(d.families.functions, d.families.metrics);  // many functions, few per-op figures
  EXPECT_GT(d.families.locks, 0u);
  // Ordered by what the op's delta costs the workload.
  ASSERT_EQ(d.ops.size(), 3u);
  EXPECT_EQ(d.ops[0].op, "create");
  EXPECT_EQ(d.ops[1].op, "unlink");
}

// Syscalls outside the operation table come after the operations, even
// when their delta weighs most.
TEST(DiffRuns, OtherGoesLast) {
  ConfigSpec a = base_spec();
  op_of(a, "mkdir").name = "other";
  ConfigSpec b = a;
  for (auto& st : op_of(b, "other").oncpu) st.ns *= 10;
  Diff d = diff_runs(make_runs(a, 5, 100, "A"), make_runs(b, 5, 200, "B"));
  ASSERT_EQ(d.ops.size(), 3u);
  EXPECT_EQ(d.ops.back().op, "other");
  // It did weigh most, but "other" is every syscall outside the op table:
  // measured, not tested, and in no FDR family.
  EXPECT_FALSE(d.ops.back().tested);
  EXPECT_EQ(d.ops.back().oncpu.verdict, Verdict::NoChange);
  EXPECT_GT(d.ops.back().oncpu.delta(), 0);
  EXPECT_TRUE(d.ops.front().tested);
}

TEST(DiffRuns, OpsUnderMinOpsAreNotTested) {
  DiffConfig cfg;
  cfg.min_ops = 1e9;  // more calls than any op of the fixture makes
  ConfigSpec b = base_spec();
  inject_new_code(b);
  Diff d = diff_runs(make_runs(base_spec(), 5, 100, "A"), make_runs(b, 5, 200, "B"), cfg);
  for (const auto& op : d.ops) {
    EXPECT_FALSE(op.tested) << op.op;
    EXPECT_FALSE(op.oncpu.significant()) << op.op;
  }
  EXPECT_EQ(d.families.functions, 0u);
  // The whole-run figures alone: five, and the fixture's one kernel thread.
  EXPECT_EQ(d.families.metrics, 5u + d.background.size());
  EXPECT_EQ(d.background.size(), 1u);
}

TEST(DiffRuns, OneRunEachIsTooFewRuns) {
  ConfigSpec b = base_spec();
  inject_new_code(b);
  Diff d = diff_runs(make_runs(base_spec(), 1, 1, "A"), make_runs(b, 1, 2, "B"));
  EXPECT_EQ(d.family, 0u);
  for (const auto& op : d.ops) {
    for (const auto& [what, c] : comparisons(op))
      EXPECT_EQ(c->verdict, Verdict::TooFewRuns) << op.op << " " << what;
    for (const auto& p : op.oncpu_parts) EXPECT_FALSE(p.significant);
  }
  // The explanation still says where the (untested) delta is, but not that
  // it is new code: presence needs two runs a side (internal.h
  // present_only), for a path or a part as for an op's functions.
  EXPECT_FALSE(part(op_of(d, "create").oncpu_parts, "new-code"));
  const DeltaPart* more = part(op_of(d, "create").oncpu_parts, "more-work");
  ASSERT_TRUE(more);
  EXPECT_EQ(more->where, "xfs_parent_addname");
  for (const auto& p : op_of(d, "create").paths) EXPECT_NE(p.kind, "new-code");
  bool warned = false;
  for (const auto& w : d.warnings)
    warned |= w.kind == WarningKind::FewRuns && w.message.find("no statistics possible") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(DiffRuns, NoRunsIsAUserError) {
  RunSet empty;
  empty.label = "empty";
  EXPECT_THROW(diff_runs(empty, make_runs(base_spec(), 2, 1, "B")), UserError);
}

TEST(DiffFlame, MeanStacksInNsPerOp) {
  auto run = [](std::uint32_t freq, std::uint64_t samples, bool extra) {
    Profile p;
    p.meta.freq_hz = freq;
    p.ops = {{"create", 10, 0, 0, 0, std::vector<std::uint64_t>(kLatencyBuckets, 0)}};
    p.samples = {{SampleKind::Op, "create", {"a", "b"}, samples}};
    if (extra) p.samples.push_back({SampleKind::Op, "create", {"a", "c"}, 4});
    p.samples.push_back({SampleKind::User, "fsops", {}, 7});
    return p;
  };
  RunSet s;
  s.runs = {run(1000, 10, true), run(2000, 20, false)};
  FlameInput in = mean_flame_input(s, View::OnCpu, std::nullopt);
  ASSERT_EQ(in.stacks.size(), 2u);
  EXPECT_EQ(in.stacks[0].first, (std::vector<std::string>{"create", "a", "b"}));
  EXPECT_DOUBLE_EQ(in.stacks[0].second, 1e6);  // 10 ms over 10 ops in both runs
  EXPECT_EQ(in.stacks[1].first, (std::vector<std::string>{"create", "a", "c"}));
  EXPECT_DOUBLE_EQ(in.stacks[1].second, 2e5);  // 0.4 ms/op in one run of two
  ASSERT_EQ(in.skipped.size(), 1u);
  EXPECT_EQ(in.skipped[0], "[user] (not an operation)");
}

}  // namespace
}  // namespace fscost::test
