// The diff renderers on hand-built Diffs: the text fits 72 columns and says
// what the numbers say (explanation, insignificance, too few runs); the
// JSON carries every number (NaN as null); the HTML page is complete,
// self-contained and greys the frames of insignificant functions.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "report/diff_report.h"
#include "model/file_io.h"
#include "fixture.h"

namespace fscost {
namespace {

using nlohmann::json;
using test::expect_fits;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A comparison with the given means, Welch interval, q and verdict; n runs
// a side spread ±1% around the mean (sd filled to match loosely).
Comparison cmp(std::string unit, double ma, double mb, double lo, double hi, double q, Verdict v,
               std::size_t n = 5) {
  Comparison c;
  c.unit = std::move(unit);
  for (std::size_t i = 0; i < n; ++i) {
    double k = n > 1 ? (static_cast<double>(i) / static_cast<double>(n - 1) - 0.5) * 0.02 : 0;
    c.a.push_back(ma * (1 + k));
    c.b.push_back(mb * (1 + k));
  }
  c.sa = {n, ma, n > 1 ? std::fabs(ma) * 0.008 : kNaN, ma - 1, ma + 1};
  c.sb = {n, mb, n > 1 ? std::fabs(mb) * 0.008 : kNaN, mb - 1, mb + 1};
  c.welch.valid = n > 1;
  c.welch.diff = mb - ma;
  c.welch.ci_lo = n > 1 ? lo : kNaN;
  c.welch.ci_hi = n > 1 ? hi : kNaN;
  c.welch.p = n > 1 ? q / 4 : kNaN;
  c.welch.se = c.welch.df = c.welch.t = n > 1 ? 1.0 : kNaN;
  c.mwu = {n > 1, 20, n > 1 ? 0.008 : kNaN, true};
  c.effect = n > 1 ? 2.5 : kNaN;
  c.rel = ma != 0 ? (mb - ma) / ma : kNaN;
  c.q = q;
  c.verdict = v;
  return c;
}

Comparison same(std::string unit, double m, double q = 0.8) {
  return cmp(std::move(unit), m, m * 1.01, -m * 0.05, m * 0.07, q, Verdict::NoChange);
}

const std::string kLongFunction(90, 'x');
const std::string kLongLock =
    "AGI buffer lock (xfs_ialloc_read_agi via xfs_dialloc_ag, with a long role that must wrap)";

OpDiff create_op() {
  OpDiff o;
  o.op = "create";
  o.count = cmp("/op", 1000, 1000, 0, 0, 1, Verdict::NoChange);
  o.oncpu = cmp("ns/op", 10500, 12400, 1200, 2600, 0.002, Verdict::More);
  o.offcpu = cmp("ns/op", 3000, 2950, -300, 200, 0.41, Verdict::NoChange);
  o.spin = cmp("ns/op", 500, 1070, 300, 800, 0.004, Verdict::More);
  o.sleep = same("ns/op", 800);
  o.latency = cmp("ns/op", 13500, 15350, 1000, 2700, 0.003, Verdict::More);
  o.rate = cmp("ops/s", 70000, 61000, -12000, -6000, 0.003, Verdict::Less);
  o.offcpu_by_class["io"] = same("ns/op", 2200);
  o.offcpu_by_class["lock"] = same("ns/op", 800);
  FunctionDiff added{"xfs_parent_addname", cmp("ns/op", 0, 1180, 900, 1400, 0.001, Verdict::More),
                     cmp("ns/op", 0, 300, 200, 400, 0.004, Verdict::More), true, false};
  added.inclusive.rel = kNaN;
  FunctionDiff dir{"xfs_dir_createname", same("ns/op", 2100, 0.3), same("ns/op", 400), false,
                   false};
  FunctionDiff longest{kLongFunction, same("ns/op", 50), same("ns/op", 50), false, false};
  o.functions = {added, dir, longest};
  LockDiff agi;
  agi.name = kLongLock;
  agi.type = "semaphore";
  agi.contentions = cmp("/op", 0.1, 0.21, 0.05, 0.17, 0.004, Verdict::More);
  agi.wait = cmp("ns/op", 1200, 2900, 900, 2500, 0.01, Verdict::More);
  agi.spin = cmp("ns/op", 500, 1070, 300, 800, 0.004, Verdict::More);
  agi.sleep = same("ns/op", 700);
  agi.per_contention = same("ns", 12000);
  agi.change = LockChange::Worse;
  agi.detail = "2.1× contentions/op";
  o.locks = {agi};
  o.oncpu_parts = {
      {"new-code", 1178, 0.62, "xfs_parent_addname", "", true},
      {"spin", 570, 0.30, "AGI buffer lock", "same lock, 2.1× contentions/op", true},
      {"more-work", 152, 0.08, "xfs_dir_createname", "", false},
  };
  o.offcpu_parts = {{"io", -50, 1.0, "", "", false}};
  return o;
}

OpDiff unlink_op() {
  OpDiff o;
  o.op = "unlink";
  o.count = same("/op", 3000, 1);
  o.oncpu = cmp("ns/op", 8000, 8100, -200, 400, 0.62, Verdict::NoChange);
  o.offcpu = same("ns/op", 1500);
  o.spin = same("ns/op", 0);
  o.sleep = same("ns/op", 0);
  o.latency = same("ns/op", 9500);
  o.rate = same("ops/s", 100000);
  return o;
}

Diff sample_diff() {
  Diff d;
  d.label_a = "rmapbt=0";
  d.label_b = "rmapbt=1";
  d.runs_a = d.runs_b = 5;
  d.families.metrics = 40;
  d.families.functions = 90;
  d.families.locks = 13;
  d.family = 143;
  d.sys_ns = cmp("ns", 1.2e9, 1.45e9, 1e8, 4e8, 0.001, Verdict::More);
  d.user_ns = same("ns", 2e8);
  d.wall_ns = cmp("ns", 2.0e9, 2.3e9, 1e8, 5e8, 0.01, Verdict::More);
  d.user_share = same("%", 14);
  d.kthread_ns = same("ns", 5e7);
  d.ops = {create_op(), unlink_op()};
  d.warnings = {{WarningKind::UserShare,
                 "User CPU is 14% of the workload's CPU (more than 10%): the workload's own "
                 "code, not the filesystem, may explain part of a wall-clock difference."}};
  return d;
}

// A diff of 1 run against 1: nothing can be tested.
Diff single_runs() {
  Diff d;
  d.label_a = "A";
  d.label_b = "B";
  d.runs_a = d.runs_b = 1;
  OpDiff o;
  o.op = "create";
  for (Comparison* c : {&o.count, &o.oncpu, &o.offcpu, &o.spin, &o.sleep, &o.latency, &o.rate}) {
    *c = cmp("ns/op", 10000, 11000, 0, 0, kNaN, Verdict::TooFewRuns, 1);
  }
  d.ops = {o};
  d.warnings = {{WarningKind::FewRuns, "1 run of A and 1 of B: no statistics are possible."}};
  return d;
}

// The text with wrapped paragraphs joined again.
std::string unwrapped(std::string text) {
  return std::regex_replace(text, std::regex("\n +"), " ");
}

// The `nth` table row (a line ending in its mark) that starts, after
// indentation, with `label`.
std::string row_of(const std::string& text, const std::string& label, std::size_t nth = 0) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto start = line.find_first_not_of(' ');
    bool row = line.ends_with(" *") || line.ends_with(" ~");
    if (row && start != std::string::npos && line.substr(start).starts_with(label + " ") &&
        nth-- == 0)
      return line;
  }
  return {};
}

TEST(DiffText, EveryLineFitsTheWidth) {
  expect_fits(render_diff_text(sample_diff()), 72);
  expect_fits(render_diff_text(single_runs()), 72);
  expect_fits(render_diff_text(sample_diff(), 60), 60);
}

TEST(DiffText, HeaderAndWarningsFirst) {
  std::string t = render_diff_text(sample_diff());
  EXPECT_TRUE(t.starts_with("A = rmapbt=0, B = rmapbt=1: 5+5 runs\n")) << t;
  std::string u = unwrapped(t);
  EXPECT_NE(u.find("FDR 0.05 per family (40 metrics, 90 function and 13 lock comparisons)"), std::string::npos) << u;
  EXPECT_NE(u.find("warnings:\n- User CPU is 14% of the workload's CPU (more than 10%)"),
            std::string::npos);
  // The first screen: the ops that changed, then the warnings that change
  // how they read (the user share does not: issue 29), with a count of the
  // rest, then a line of dashes; below it, the full explanation with every
  // warning first.
  std::size_t rule = t.find("\n" + std::string(72, '-') + "\n");
  ASSERT_NE(rule, std::string::npos) << t;
  EXPECT_GT(t.find("warnings:"), rule) << t;
  EXPECT_LT(t.find("create: on-CPU"), t.find("(1 more warning below)"));
  EXPECT_LT(t.find("(1 more warning below)"), rule);
  EXPECT_LT(t.find("warnings:", rule), t.find("create: on-CPU", rule));
}

// At most 40 lines before the rule, and it is there on a diff with
// nothing significant too.
TEST(DiffText, FirstScreenFitsFortyLines) {
  for (const Diff& d : {sample_diff(), single_runs()}) {
    std::string t = render_diff_text(d);
    std::size_t rule = t.find("\n" + std::string(72, '-') + "\n");
    ASSERT_NE(rule, std::string::npos) << t;
    EXPECT_LE(std::count(t.begin(), t.begin() + rule + 1, '\n'), 40) << t.substr(0, rule);
  }
}

// The first screen of `d` (up to the rule).
std::string screen_of(const Diff& d) {
  std::string t = render_diff_text(d);
  return t.substr(0, t.find("\n" + std::string(72, '-') + "\n") + 1);
}

// One header line, what ran cut to the width; the whole command below.
TEST(DiffText, OneHeaderLineWithWhatRan) {
  Diff d = sample_diff();
  d.workload = "fsstress -z -f creat=1 -n 50000 -p 2 -d -s 1 and a long tail of options";
  std::string first = screen_of(d).substr(0, screen_of(d).find('\n'));
  EXPECT_TRUE(first.starts_with("A = rmapbt=0, B = rmapbt=1: 5+5 runs, fsstress -z")) << first;
  EXPECT_TRUE(first.ends_with("…")) << first;
  EXPECT_LE(test::columns(first), 72u);
  EXPECT_NE(unwrapped(render_diff_text(d)).find("what ran: " + d.workload + "."), std::string::npos);
}

// The probes' cost is a confound only when it could be a fair part of a
// change on the screen (create: +1.9 µs/op).
TEST(DiffText, ProbesOnTheFirstScreenOnlyWhenTheyCouldMatter) {
  Diff d = sample_diff();
  d.tracer_a = 1000;
  d.tracer_b = 1500;  // 500 ns of 1.9 µs
  EXPECT_NE(unwrapped(screen_of(d)).find("! fscost's probes cost 1.0 µs per traced op in A, 1.5 µs "
                                         "in B: up to 500 ns/op of a delta could be theirs."),
            std::string::npos)
      << screen_of(d);
  d.tracer_b = 1050;  // 50 ns
  EXPECT_EQ(screen_of(d).find("fscost's probes"), std::string::npos) << screen_of(d);
  EXPECT_NE(unwrapped(render_diff_text(d)).find("fscost's probes: 1.0 µs per traced op in A"),
            std::string::npos);
}

// A warning on the first screen is one line: its claim, whole below.
TEST(DiffText, WarningsOneLineEachOnTheFirstScreen) {
  Diff d = sample_diff();
  const std::string outlier =
      "rmapbt=1 run-02.profile is an outlier: system CPU 4.41 s (median 3.94 s), create "
      "latency 39.6 µs/op (median 34.7 µs/op); no more of the host in it than in the other runs";
  const std::string kernels = "kernel release differs: 6.1.0-1-amd64 / 6.1.0-2-amd64 in rmapbt=0, "
                          "6.1.0-3-amd64 in rmapbt=1";
  d.warnings = {{WarningKind::Outlier, outlier}, {WarningKind::ConfigMismatch, kernels}};
  std::string s = screen_of(d);
  EXPECT_TRUE(test::has_line(s, "- rmapbt=1 run-02.profile is an outlier")) << s;
  EXPECT_TRUE(test::has_line(s, "- kernel release differs")) << s;
  EXPECT_NE(unwrapped(render_diff_text(d)).find(outlier), std::string::npos);
}

// summary.txt: the first screen, the changed ops' tables, the warnings,
// and the name of the file with everything; tables.txt's tables are all.
TEST(DiffText, SummaryHoldsTheChangedOpsTables) {
  std::string s = render_diff_summary(sample_diff());
  EXPECT_NE(s.find("create, per operation"), std::string::npos) << s;
  EXPECT_EQ(s.find("unlink, per operation"), std::string::npos) << s;  // no change
  EXPECT_NE(s.find("whole workload, per run"), std::string::npos) << s;
  EXPECT_NE(s.find("- User CPU is 14%"), std::string::npos) << s;
  EXPECT_TRUE(s.ends_with("Every operation, kernel thread and lock: tables.txt.\n")) << s;
  EXPECT_TRUE(s.starts_with(screen_of(sample_diff()))) << s;
  EXPECT_NE(render_diff_text(sample_diff()).find("unlink, per operation"), std::string::npos);
  expect_fits(s, 72);
}

TEST(DiffText, ExplainsTheOnCpuDeltaWithItsParts) {
  std::string u = unwrapped(render_diff_text(sample_diff()));
  EXPECT_NE(u.find("create: on-CPU +1.9 µs/op (+18%, 95% CI +1.2..+2.6, q 0.002): 62% new code "
                   "under xfs_parent_addname, 30% more spin on AGI buffer lock (same lock, 2.1× "
                   "contentions/op), 8% same path, more work under xfs_dir_createname (n.s.)."),
            std::string::npos)
      << u;
}

TEST(DiffText, MarksInsignificantChanges) {
  std::string t = render_diff_text(sample_diff());
  std::string u = unwrapped(t);
  EXPECT_NE(u.find("create: off-CPU -50.0 ns/op (-1.7%, 95% CI -300..+200, q 0.410): no "
                   "significant change."),
            std::string::npos)
      << u;
  EXPECT_NE(u.find("unlink: on-CPU +100 ns/op (+1.2%, 95% CI -200..+400, q 0.620): no "
                   "significant change."),
            std::string::npos)
      << u;
  // Tables: '*' for significant rows, '~' for the rest.
  std::string oncpu = row_of(t, "on-CPU");
  EXPECT_TRUE(oncpu.ends_with(" *")) << oncpu;
  EXPECT_NE(oncpu.find("10.5 µs"), std::string::npos) << oncpu;
  EXPECT_NE(oncpu.find("12.4 µs"), std::string::npos) << oncpu;
  EXPECT_NE(oncpu.find("+18.1%"), std::string::npos) << oncpu;
  EXPECT_TRUE(row_of(t, "off-CPU").ends_with(" ~")) << row_of(t, "off-CPU");
  EXPECT_TRUE(row_of(t, "on-CPU", 1).ends_with(" ~")) << "unlink's on-CPU row";
  std::string fn = row_of(t, "xfs_parent_addname");
  EXPECT_NE(fn.find(" new "), std::string::npos) << fn;
  EXPECT_TRUE(fn.ends_with(" *")) << fn;
  EXPECT_TRUE(row_of(t, "xfs_dir_createname").ends_with(" ~"));
}

TEST(DiffText, LargeChangesReadAsRatios) {
  Diff d = sample_diff();
  d.ops[1].offcpu = cmp("ns/op", 10, 870, 500, 1200, 0.01, Verdict::More);
  std::string t = render_diff_text(d);
  EXPECT_NE(unwrapped(t).find("unlink: off-CPU +0.86 µs/op (87.0×, 95% CI +0.50..+1.2, q 0.010): "
                              "not attributed (no stacks)."),
            std::string::npos)
      << t;
  EXPECT_NE(row_of(t, "off-CPU", 1).find(" 87.0× "), std::string::npos) << row_of(t, "off-CPU", 1);
}

TEST(DiffText, LongNamesAreWrappedOrCut) {
  std::string t = render_diff_text(sample_diff());
  EXPECT_NE(t.find("xxxxx…"), std::string::npos);  // 90 columns do not fit anywhere
  // The lock's name wraps whole onto two lines.
  std::string u = unwrapped(t);
  EXPECT_NE(u.find(kLongLock + " [semaphore]: same lock, worse: 2.1× contentions/op"),
            std::string::npos)
      << u;
}

TEST(DiffText, SaysPlainlyWhenRunsAreTooFew) {
  std::string t = render_diff_text(single_runs());
  std::string u = unwrapped(t);
  EXPECT_NE(u.find("Too few runs for a conclusion (1 vs 1)"), std::string::npos) << u;
  EXPECT_NE(u.find("create: on-CPU +1.0 µs/op (+10%): too few runs for a conclusion (1 vs 1)."),
            std::string::npos)
      << u;
  EXPECT_EQ(u.find("no significant change"), std::string::npos);
  EXPECT_EQ(t.find(" *\n"), std::string::npos) << "nothing is significant";
}

TEST(DiffJson, CarriesEveryNumber) {
  Diff d = sample_diff();
  json j = json::parse(diff_json(d).dump());
  EXPECT_EQ(j["format"], "fscost-diff");
  EXPECT_EQ(j["schema"], kDiffSchemaVersion);
  EXPECT_EQ(j["a"]["label"], "rmapbt=0");
  EXPECT_EQ(j["b"]["runs"], 5);
  EXPECT_EQ(j["family"], 143);
  EXPECT_DOUBLE_EQ(j["config"]["alpha"].get<double>(), 0.05);
  EXPECT_EQ(j["warnings"][0]["kind"], "user-share");
  EXPECT_DOUBLE_EQ(j["totals"]["sys_ns"]["b_summary"]["mean"].get<double>(), 1.45e9);
  ASSERT_EQ(j["ops"].size(), 2u);
  const json& c = j["ops"][0];
  EXPECT_EQ(c["op"], "create");
  const json& on = c["oncpu"];
  EXPECT_EQ(on["unit"], "ns/op");
  EXPECT_EQ(on["a"].size(), 5u);
  EXPECT_DOUBLE_EQ(on["b"][2].get<double>(), 12400);
  EXPECT_DOUBLE_EQ(on["a_summary"]["mean"].get<double>(), 10500);
  EXPECT_DOUBLE_EQ(on["delta"].get<double>(), 1900);
  EXPECT_DOUBLE_EQ(on["welch"]["ci_lo"].get<double>(), 1200);
  EXPECT_DOUBLE_EQ(on["mann_whitney"]["u"].get<double>(), 20);
  EXPECT_DOUBLE_EQ(on["q"].get<double>(), 0.002);
  EXPECT_EQ(on["verdict"], to_string(Verdict::More));
  EXPECT_TRUE(on["significant"].get<bool>());
  EXPECT_TRUE(c["offcpu_by_class"].contains("io"));
  EXPECT_EQ(c["functions"][0]["name"], "xfs_parent_addname");
  EXPECT_TRUE(c["functions"][0]["new_in_b"].get<bool>());
  EXPECT_TRUE(c["functions"][0]["inclusive"]["rel"].is_null());  // A is 0
  EXPECT_EQ(c["locks"][0]["change"], to_string(LockChange::Worse));
  EXPECT_EQ(c["locks"][0]["detail"], "2.1× contentions/op");
  EXPECT_DOUBLE_EQ(c["locks"][0]["contentions"]["b_summary"]["mean"].get<double>(), 0.21);
  EXPECT_DOUBLE_EQ(c["oncpu_parts"][0]["share"].get<double>(), 0.62);
  EXPECT_EQ(c["oncpu_parts"][1]["where"], "AGI buffer lock");
  EXPECT_FALSE(c["oncpu_parts"][2]["significant"].get<bool>());
}

TEST(DiffJson, UndefinedNumbersAreNull) {
  json j = diff_json(single_runs());
  const json& on = j["ops"][0]["oncpu"];
  EXPECT_TRUE(on["q"].is_null());
  EXPECT_TRUE(on["a_summary"]["sd"].is_null());
  EXPECT_FALSE(on["welch"]["valid"].get<bool>());
  EXPECT_TRUE(on["welch"]["ci_lo"].is_null());
  EXPECT_EQ(on["verdict"], to_string(Verdict::TooFewRuns));
  // Round trip: what is written parses back to the same document.
  EXPECT_EQ(json::parse(j.dump()), j);
}

// summary.json: compact, one line; per op the first rows by |Δ| and any
// significant function further down; functions.json and --all-functions
// every one.
TEST(DiffJson, SummaryKeepsTheTablesRowsAndSignificantFunctions) {
  Diff d = sample_diff();
  OpDiff& c = d.ops[0];
  FunctionDiff plain = c.functions[1];
  FunctionDiff late = c.functions[0];
  late.name = "xfs_late_but_significant";
  c.functions.resize(2);
  for (std::size_t i = 0; i < kDiffFunctionRows + 10; ++i) {
    plain.name = "f" + std::to_string(i);
    c.functions.push_back(plain);
  }
  c.functions.push_back(late);
  std::string text = diff_json_text(d);
  EXPECT_EQ(text.find('\n'), text.size() - 1) << "not compact";
  json j = json::parse(text);
  const json& fs = j["ops"][0]["functions"];
  EXPECT_EQ(j["ops"][0]["functions_compared"], c.functions.size());
  ASSERT_EQ(fs.size(), kDiffFunctionRows + 1);
  EXPECT_EQ(fs[0]["name"], "xfs_parent_addname");
  EXPECT_EQ(fs.back()["name"], "xfs_late_but_significant");
  EXPECT_EQ(j["ops"][0]["functions_significant"], 2);

  // Thousands significant (new code): the first kDiffSummaryFunctions.
  c.functions.resize(kDiffSummaryFunctions + 50, late);
  EXPECT_EQ(diff_json(d)["ops"][0]["functions"].size(), kDiffSummaryFunctions);

  EXPECT_EQ(diff_json(d, {.all_functions = true})["ops"][0]["functions"].size(),
            c.functions.size());
  json all = json::parse(diff_functions_json_text(d));
  EXPECT_EQ(all["format"], "fscost-diff-functions");
  EXPECT_EQ(all["schema"], kDiffSchemaVersion);
  ASSERT_EQ(all["ops"].size(), 2u);
  EXPECT_EQ(all["ops"][0]["op"], "create");
  ASSERT_EQ(all["ops"][0]["functions"].size(), c.functions.size());
  EXPECT_EQ(all["ops"][0]["functions"][0], fs[0]);
}

// Frame names come from the traced machine: invalid UTF-8 is replaced, as
// nlohmann's error_handler_t::replace does, never thrown on.
TEST(DiffJson, InvalidUtf8IsReplaced) {
  Diff d = sample_diff();
  d.ops[0].functions[0].name = "bad\xff\xc3name\n";
  json j = json::parse(diff_json_text(d));
  EXPECT_EQ(j["ops"][0]["functions"][0]["name"], "bad\uFFFD\uFFFDname\n");
}

// Two runs a side of a profile where create goes through xfs_dir_createname
// (both) and xfs_parent_addname (B only).
RunSet runs(const std::string& label, bool parent, int narrow = 0) {
  RunSet r;
  r.label = label;
  for (int i = 0; i < 2; ++i) {
    Profile p;
    p.meta.freq_hz = 1000;
    p.meta.fscost_version = "0.1.0";
    p.ops.push_back({"create", 100, 0, 1'000'000, 500'000, test::one_bucket(13, 100)});
    p.samples.push_back(
        {SampleKind::Op, "create", test::stack({"xfs_create", "xfs_dir_createname"}), 4000});
    if (parent)
      p.samples.push_back(
          {SampleKind::Op, "create", test::stack({"xfs_create", "xfs_parent_addname"}), 2000});
    for (int k = 0; k < narrow; ++k)  // frames well under a pixel wide
      p.samples.push_back({SampleKind::Op, "create", test::stack({"f" + std::to_string(k)}), 1});
    p.locks.push_back({SampleKind::Op, "create", 0xffff0000, "", 4, test::stack({"xfs_create"}),
                       parent ? 9u : 3u, parent ? 90'000u : 30'000u, 20'000, 0, 90'000});
    r.runs.push_back(std::move(p));
    r.sources.push_back(label + "/run" + std::to_string(i) + ".profile");
  }
  return r;
}

std::size_t count(const std::string& s, std::string_view what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size())) ++n;
  return n;
}

// The markup of the frame whose tooltip starts with `name`.
std::string frame(const std::string& page, const std::string& name) {
  auto at = page.find("<title>" + name + " (A ");
  if (at == std::string::npos) return {};
  return page.substr(at, page.find("</g>", at) - at);
}

TEST(DiffHtml, SectionsGraphsAndSelfContained) {
  Diff d = sample_diff();
  DiffHtmlOptions opt;
  opt.sections.push_back({"extra", "Workload", "<p>from fscost compare</p>"});
  std::string page = render_diff_html(d, runs("rmapbt=0", false), runs("rmapbt=1", true), opt);
  EXPECT_TRUE(page.starts_with("<!DOCTYPE html>"));
  EXPECT_TRUE(page.ends_with("</html>\n"));
  EXPECT_NE(page.find("<title>fscost diff: rmapbt=0 vs rmapbt=1</title>"), std::string::npos);
  std::size_t last = 0;
  for (std::string id :
       {"summary", "warnings", "operations", "op-create", "op-unlink", "locks", "graphs",
        "graphs-create", "graphs-create-oncpu", "graphs-create-locks", "extra"}) {
    auto at = page.find("id=\"" + id + "\"");
    ASSERT_NE(at, std::string::npos) << id;
    EXPECT_GT(at, last) << id << " out of order";
    last = at;
  }
  // The explanation, escaped, and the warning.
  EXPECT_NE(page.find("<pre class=\"diff-text\">fscost diff: A = rmapbt=0 (5 runs), B = rmapbt=1 "
                      "(5 runs)\nB against A"),
            std::string::npos);
  EXPECT_EQ(page.find("\xEF\xBF\xBD"), std::string::npos) << "U+FFFD: something was mangled";
  EXPECT_NE(page.find("62% new code under xfs_parent_addname"), std::string::npos);
  EXPECT_NE(page.find("<li class=\"warning\" data-kind=\"user-share\">"), std::string::npos);
  // Insignificant rows are marked; the lock table has the lock.
  EXPECT_GT(count(page, "<tr class=\"insignificant\">"), 5u);
  EXPECT_GT(count(page, "<tr class=\"significant more\">"), 3u);
  EXPECT_NE(page.find("AGI buffer lock (xfs_ialloc_read_agi"), std::string::npos);
  // Graphs: create has on-CPU and lock stacks, unlink has none in the runs.
  EXPECT_EQ(count(page, "<svg "), 2u);
  EXPECT_EQ(page.find("id=\"graphs-unlink\""), std::string::npos);
  EXPECT_NE(page.find("<p>from fscost compare</p>"), std::string::npos);
  // Nothing from outside the file.
  for (std::string_view bad :
       {"src=\"http", "href=\"http", "<link", "<script src", "@import", "url(http", "url(#fg-"})
    EXPECT_EQ(page.find(bad), std::string::npos) << bad;
  std::regex href(R"re(href="([^"]*)")re");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), href); it != std::sregex_iterator();
       ++it) {
    std::string h = (*it)[1].str();
    ASSERT_TRUE(h.starts_with("#")) << h;
    EXPECT_NE(page.find("id=\"" + h.substr(1) + "\""), std::string::npos) << "dangling " << h;
  }
}

TEST(DiffHtml, InsignificantFramesAreGrey) {
  Diff d = sample_diff();
  std::string page = render_diff_html(d, runs("rmapbt=0", false), runs("rmapbt=1", true));
  std::string dir = frame(page, "xfs_dir_createname");  // FunctionDiff not significant
  ASSERT_FALSE(dir.empty());
  EXPECT_NE(dir.find("fill=\"rgb(195,195,195)\""), std::string::npos) << dir;
  std::string added = frame(page, "xfs_parent_addname");  // significant, new in B
  ASSERT_FALSE(added.empty());
  EXPECT_EQ(added.find("rgb(195,195,195)"), std::string::npos) << added;
  std::string root = frame(page, "create");  // on-CPU significant
  EXPECT_EQ(root.find("rgb(195,195,195)"), std::string::npos) << root;

  // An op whose on-CPU change is not significant: its root, and "all"
  // (the op again, in a per-op graph), are grey.
  d.ops[0].oncpu.verdict = Verdict::NoChange;
  page = render_diff_html(d, runs("rmapbt=0", false), runs("rmapbt=1", true));
  EXPECT_NE(frame(page, "create").find("rgb(195,195,195)"), std::string::npos);
  EXPECT_NE(frame(page, "all").find("rgb(195,195,195)"), std::string::npos);
  d.ops[0].oncpu.verdict = Verdict::More;

  // The same function made significant is coloured.
  d.ops[0].functions[1].inclusive.verdict = Verdict::More;
  page = render_diff_html(d, runs("rmapbt=0", false), runs("rmapbt=1", true));
  EXPECT_EQ(frame(page, "xfs_dir_createname").find("rgb(195,195,195)"), std::string::npos);
}

TEST(DiffHtml, StaysWithinTheGraphBudget) {
  Diff d = sample_diff();
  DiffHtmlOptions small;
  small.max_bytes = 1;  // every graph pruned as hard as allowed
  std::string pruned = render_diff_html(d, runs("A", false, 100), runs("B", true, 100), small);
  std::string full = render_diff_html(d, runs("A", false, 100), runs("B", true, 100));
  EXPECT_LT(pruned.size(), full.size());
  EXPECT_NE(pruned.find("px pruned"), std::string::npos);
}

TEST(DiffOutputs, WritesFourFilesIntoANewDirectory) {
  test::TempDir tmp;
  std::string dir = tmp.file("out/nested");
  Diff d = sample_diff();
  Status s = write_diff_outputs(d, runs("A", false), runs("B", true), dir);
  ASSERT_TRUE(s) << s.error().message;
  auto txt = read_whole_file(dir + "/summary.txt", "summary");
  ASSERT_TRUE(txt);
  EXPECT_EQ(txt.value(), render_diff_summary(d));
  auto tables = read_whole_file(dir + "/tables.txt", "tables");
  ASSERT_TRUE(tables);
  EXPECT_EQ(tables.value(), render_diff_text(d));
  auto js = read_whole_file(dir + "/summary.json", "summary");
  ASSERT_TRUE(js);
  EXPECT_EQ(json::parse(js.value()), diff_json(d));
  EXPECT_FALSE(std::filesystem::exists(dir + "/functions.json"));  // only with all_functions
  ASSERT_TRUE(write_diff_outputs(d, runs("A", false), runs("B", true), dir, {},
                                 {.all_functions = true}));
  auto fn = read_whole_file(dir + "/functions.json", "functions");
  ASSERT_TRUE(fn);
  EXPECT_EQ(fn.value(), diff_functions_json_text(d));
  auto page = read_whole_file(dir + "/report.html", "report");
  ASSERT_TRUE(page);
  EXPECT_NE(page.value().find("<svg "), std::string::npos);

  // A file where the directory should be: a clear error, nothing thrown.
  ASSERT_TRUE(write_file_atomic("x", tmp.file("file")));
  Status bad = write_diff_outputs(d, runs("A", false), runs("B", true), tmp.file("file"));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find(tmp.file("file")), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace fscost
