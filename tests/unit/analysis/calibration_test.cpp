// fscost calibrate's analysis: the floor's arithmetic, its place before
// the FDR control, the blocks of an A-vs-A compare, and calibration.json's
// round trip and rejects.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>

#include "diff/calibration.h"
#include "diff_fixture.h"
#include "report/diff_report.h"

namespace fscost::test {
namespace {

// A calibration of `op`'s on-CPU time at noise `rel_sd`, R = 5, K = 4.
Calibration calibration_of(const std::string& op, double rel_sd) {
  Calibration c;
  c.date = "2026-12-04T10:00:00Z";
  c.host = {"testhost", "6.8.0-test", 4};  // the fixture's runs
  c.workload = "fsops mix 50000";
  c.config = "mkfs: -m rmapbt=1";
  c.runs = 5;
  c.compares = 4;
  // Four deltas whose root mean square is rel_sd.
  c.ops[op]["oncpu"] = {rel_sd, {rel_sd, -rel_sd, rel_sd, -rel_sd}, 1};
  return c;
}

const OpDiff& op_of(const Diff& d, const std::string& name) {
  for (const auto& o : d.ops)
    if (o.op == name) return o;
  throw std::logic_error("no op " + name);
}

TEST(CalibrationFloor, FlooredTestIsStudentsTOnKDegrees) {
  stats::Floored f = stats::floored_test(1.0, 0.5, 4);
  ASSERT_TRUE(f.valid);
  EXPECT_DOUBLE_EQ(f.t, 2.0);
  EXPECT_NEAR(f.p, 0.1161165, 1e-6);            // 2 (1 − T_4(2))
  EXPECT_NEAR(f.ci_hi - 1.0, 2.776445 * 0.5, 1e-5);  // t_4(0.975) · se
  EXPECT_NEAR(1.0 - f.ci_lo, 2.776445 * 0.5, 1e-5);
  EXPECT_FALSE(stats::floored_test(1.0, 0, 4).valid);
  EXPECT_FALSE(stats::floored_test(1.0, 0.5, 0).valid);
}

TEST(CalibrationFloor, FloorScalesWithTheRunCount) {
  CalibratedFigure f{0.04, {}, 0};
  EXPECT_DOUBLE_EQ(floor_se(f, 5, 1000, 5), 40);
  EXPECT_DOUBLE_EQ(floor_se(f, 5, -1000, 20), 20);  // |mean A|, √(5 / 20)
  EXPECT_EQ(floor_se(f, 5, 1000, 0), 0);
}

TEST(CalibrationFloor, ReplacesOnlyANarrowerInterval) {
  Calibration cal = calibration_of("create", 0.05);
  Comparison c = compare({100, 101, 99, 100, 100}, {101, 102, 100, 101, 101}, "ns/op");
  const double welch_p = c.p();
  ASSERT_TRUE(apply_floor(c, cal.ops["create"]["oncpu"], cal));
  EXPECT_DOUBLE_EQ(c.floor.se, 5.0);  // 0.05 · 100 · √(5 / 5)
  EXPECT_DOUBLE_EQ(c.floor.df, 4);
  EXPECT_DOUBLE_EQ(c.p(), c.floor.p);
  EXPECT_GT(c.p(), welch_p);
  EXPECT_NEAR(c.ci_hi() - c.delta(), 2.776445 * 5, 1e-4);
  EXPECT_NEAR(floor_rel_half(c), 2.776445 * 5 / 100, 1e-6);
  // Noise narrower than the runs' own: the test's own interval stands.
  Calibration quiet = calibration_of("create", 0.001);
  EXPECT_FALSE(apply_floor(c, quiet.ops["create"]["oncpu"], quiet));
  EXPECT_FALSE(c.floored());
  EXPECT_DOUBLE_EQ(c.p(), welch_p);
}

TEST(CalibrationFloor, CountTestsStandardErrorIsItsHalfWidthOverT) {
  Comparison c = compare_samples({100, 120, 110}, {1, 1, 1}, {130, 140, 150}, {1, 1, 1});
  ASSERT_EQ(c.test, StatTest::Counts);
  const auto& k = c.counts;
  double se = std::sqrt(k.dispersion * (k.rate_a / k.exposure_a + k.rate_b / k.exposure_b));
  EXPECT_NEAR(c.own_se(), se, 1e-9 * se);
}

// Before BH: a difference the runs alone call significant is not, under a
// floor wider than it; and the first screen says what was floored.
TEST(CalibrationFloor, DiffFloorsBeforeTheFdrAndSaysSo) {
  ConfigSpec b = base_spec();
  inject_new_code(b);
  RunSet ra = make_runs(base_spec(), 5, 100, "A"), rb = make_runs(b, 5, 200, "B");
  Diff plain = diff_runs(ra, rb);
  ASSERT_TRUE(op_of(plain, "create").oncpu.significant());
  DiffConfig cfg;
  cfg.calibration = std::make_shared<const Calibration>(calibration_of("create", 2.0));
  Diff d = diff_runs(ra, rb, cfg);
  const Comparison& c = op_of(d, "create").oncpu;
  EXPECT_TRUE(c.floored());
  EXPECT_FALSE(c.significant()) << "q " << c.q;
  EXPECT_FALSE(op_of(d, "create").offcpu.floored()) << "not calibrated";
  std::string text = render_diff_text(d);
  EXPECT_NE(text.find("intervals floored by this host's between-compare noise"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("4 compares of 5+5 runs"), std::string::npos) << text;
  nlohmann::json j = diff_json(d);
  EXPECT_EQ(j["config"]["calibration"]["compares"], 4);
  bool found = false;
  for (const auto& op : j["ops"])
    if (op["op"] == "create") found = op["oncpu"].contains("floor");
  EXPECT_TRUE(found);
  for (const auto& w : j["warnings"]) EXPECT_NE(w["kind"], "calibration-mismatch") << w.dump();
}

TEST(CalibrationFloor, WarnsWhenTheHostDiffers) {
  Calibration cal = calibration_of("create", 0.01);
  cal.host.hostname = "otherhost";
  DiffConfig cfg;
  cfg.calibration = std::make_shared<const Calibration>(cal);
  Diff d = diff_runs(make_runs(base_spec(), 3, 1, "A"), make_runs(base_spec(), 3, 9, "B"), cfg);
  bool warned = false;
  for (const auto& w : d.warnings)
    if (w.kind == WarningKind::CalibrationMismatch) {
      warned = true;
      EXPECT_NE(w.message.find("otherhost"), std::string::npos) << w.message;
    }
  EXPECT_TRUE(warned);
}

TEST(CalibrationRuns, BlocksOfAnAVsACompare) {
  RunSet a = make_runs(base_spec(), 11, 300, "A"), b = make_runs(base_spec(), 10, 400, "B");
  auto cal = calibrate_runs(a, b, 5, 4);
  ASSERT_TRUE(cal) << cal.error().message;
  const Calibration& c = cal.value();
  EXPECT_EQ(c.compares, 2u) << "10 runs a side hold 2 blocks of 5";
  EXPECT_EQ(c.runs, 5u);
  EXPECT_EQ(c.host.hostname, "testhost");
  EXPECT_EQ(c.workload, "fsops mix 50000");
  const CalibratedFigure* f = c.find("create", "oncpu");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->deltas.size(), 2u);
  EXPECT_NEAR(f->rel_sd, std::hypot(f->deltas[0], f->deltas[1]) / std::sqrt(2.0), 1e-12);
  EXPECT_GT(f->rel_sd, 0);
  EXPECT_LT(f->rel_sd, 0.2);
  EXPECT_NE(c.find("create", "latency"), nullptr);
  EXPECT_FALSE(calibrate_runs(a, b, 6, 4)) << "10 runs a side hold 1 block of 6";
}

TEST(CalibrationRuns, WorkloadIdentityLeavesOutTheProgramsDirectory) {
  Profile p;
  p.meta.command = "/build/userspace/fscost-workload {dir} --workload create --files 300";
  EXPECT_EQ(workload_identity(p), "fscost-workload {dir} --workload create --files 300");
  p.meta.command = "fs_mark";
  EXPECT_EQ(workload_identity(p), "fs_mark");
}

TEST(CalibrationJson, RoundTrip) {
  Calibration c = calibration_of("create", 0.041);
  c.ops["create"]["latency"] = {0.03, {0.03, 0.03, -0.03, 0.03}, 0};
  auto back = parse_calibration(calibration_json_text(c), "x.json");
  ASSERT_TRUE(back) << back.error().message;
  const Calibration& r = back.value();
  EXPECT_EQ(r.date, c.date);
  EXPECT_EQ(r.host.hostname, "testhost");
  EXPECT_EQ(r.host.kernel, "6.8.0-test");
  EXPECT_EQ(r.host.cpus, 4u);
  EXPECT_EQ(r.workload, c.workload);
  EXPECT_EQ(r.config, c.config);
  EXPECT_EQ(r.runs, 5u);
  EXPECT_EQ(r.compares, 4u);
  ASSERT_NE(r.find("create", "oncpu"), nullptr);
  EXPECT_DOUBLE_EQ(r.find("create", "oncpu")->rel_sd, 0.041);
  EXPECT_EQ(r.find("create", "oncpu")->significant, 1u);
  EXPECT_EQ(r.find("create", "latency")->deltas, c.ops["create"]["latency"].deltas);
  EXPECT_EQ(r.find("create", "offcpu"), nullptr);
}

// Each broken file is refused with the key it broke and the fix.
TEST(CalibrationJson, RejectsWithTheKeyAndAHint) {
  const std::string good = calibration_json_text(calibration_of("create", 0.05));
  auto edited = [&](auto change) {
    nlohmann::json j = nlohmann::json::parse(good);
    change(j);
    return j.dump();
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{", "not JSON"},
      {"[]", "not an object"},
      {edited([](auto& j) { j["format"] = "fscost-diff"; }), "format"},
      {edited([](auto& j) { j["schema"] = 2; }), "schema"},
      {edited([](auto& j) { j.erase("runs"); }), "runs: missing"},
      {edited([](auto& j) { j["runs"] = 1; }), "runs: 1 is out of range"},
      {edited([](auto& j) { j["host"]["cpus"] = -2; }), "host.cpus"},
      {edited([](auto& j) { j["extra"] = 1; }), "extra: unknown key"},
      {edited([](auto& j) { j["ops"]["create"]["wall"] = j["ops"]["create"]["oncpu"]; }),
       "ops.create.wall: unknown key"},
      {edited([](auto& j) { j["ops"]["create"]["oncpu"]["deltas"].erase(0); }),
       "ops.create.oncpu.deltas"},
      {edited([](auto& j) { j["ops"]["create"]["oncpu"]["rel_sd"] = 0.5; }),
       "ops.create.oncpu.rel_sd"},
      {edited([](auto& j) { j["ops"]["create"]["oncpu"]["significant"] = 5; }),
       "ops.create.oncpu.significant"},
      {edited([](auto& j) { j["ops"]["create"]["oncpu"]["deltas"][1] = "x"; }),
       "not a finite number"},
  };
  for (const auto& [text, want] : cases) {
    auto r = parse_calibration(text, "cal.json");
    ASSERT_FALSE(r) << want;
    EXPECT_NE(r.error().message.find("calibration cal.json: "), std::string::npos)
        << r.error().message;
    EXPECT_NE(r.error().message.find(want), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().hint.find("fscost calibrate"), std::string::npos);
  }
  EXPECT_FALSE(read_calibration("/nonexistent/calibration.json"));
}

}  // namespace
}  // namespace fscost::test
