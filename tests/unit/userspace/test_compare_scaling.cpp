// Scaling over thread counts on synthetic runs: means, lock onsets, text,
// JSON and charts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "compare/chart.h"
#include "compare/scaling.h"

namespace fscost {
namespace {

RunFigures fig(int threads, int config, double ops, double latency,
               std::map<std::string, double> locks) {
  RunFigures f;
  f.threads = threads;
  f.config = config;
  f.ops_per_s = ops;
  f.latency_ns = latency;
  f.lock_wait_ns = std::move(locks);
  return f;
}

// Latency 2000 ns/op everywhere; "L" grows with threads, faster in B; "M"
// stays tiny; "K" only in B at 4 threads.
std::vector<RunFigures> sweep() {
  std::vector<RunFigures> runs;
  double a_wait[] = {0, 50, 400}, b_wait[] = {10, 150, 800};
  int threads[] = {1, 2, 4};
  for (int i = 0; i < 3; i++) {
    for (int rep = 0; rep < 2; rep++) {
      runs.push_back(
          fig(threads[i], 0, 1000.0 * threads[i] + rep * 10, 2000, {{"L", a_wait[i]}, {"M", 1}}));
      std::map<std::string, double> b{{"L", b_wait[i]}, {"M", 1}};
      if (threads[i] == 4 && rep == 0) b["K"] = 300;  // one run of two: mean 150 = 7.5%
      runs.push_back(fig(threads[i], 1, 900.0 * threads[i], 2000, b));
    }
  }
  return runs;
}

TEST(CompareScaling, MeansPerThreadCountAndSide) {
  Scaling s = compute_scaling(sweep());
  ASSERT_EQ(s.points.size(), 3u);
  EXPECT_EQ(s.points[2].threads, 4);
  EXPECT_DOUBLE_EQ(s.points[2].side[0].ops_per_s.mean, 4005);
  EXPECT_EQ(s.points[2].side[0].ops_per_s.n, 2u);
  EXPECT_DOUBLE_EQ(s.points[2].side[1].ops_per_s.mean, 3600);
  // A run without contention on a lock waited 0 on it.
  EXPECT_DOUBLE_EQ(s.points[2].side[1].lock_wait_ns.at("K").mean, 150);
  EXPECT_DOUBLE_EQ(s.points[0].side[1].lock_wait_ns.at("K").mean, 0);
}

TEST(CompareScaling, OnsetIsFirstThreadCountOverTheShare) {
  Scaling s = compute_scaling(sweep());
  // Shares of 2000 ns: A's L 0%, 2.5%, 20% → 4; B's 0.5%, 7.5% → 2.
  EXPECT_EQ(onset_threads(s, "L", 0), 4);
  EXPECT_EQ(onset_threads(s, "L", 1), 2);
  EXPECT_EQ(onset_threads(s, "K", 0), 0);
  EXPECT_EQ(onset_threads(s, "K", 1), 4);
  EXPECT_EQ(onset_threads(s, "M", 1), 0);
  // Top locks by their largest share: L (40%), K (7.5%), M (0.05%).
  ASSERT_EQ(s.locks, (std::vector<std::string>{"L", "K", "M"}));
  EXPECT_EQ(s.onsets[0].threads[0], 4);
  EXPECT_EQ(s.onsets[0].threads[1], 2);
  // A stricter threshold moves the onsets.
  Scaling strict = compute_scaling(sweep(), 6, 0.3);
  EXPECT_EQ(onset_threads(strict, "L", 0), 0);
  EXPECT_EQ(onset_threads(strict, "L", 1), 4);
  EXPECT_EQ(compute_scaling(sweep(), 1).locks, std::vector<std::string>{"L"});
}

TEST(CompareScaling, FiguresFromAProfile) {
  Profile p;
  OpStats create;
  create.name = "create";
  create.count = 1000;
  create.wall_ns = 1'500'000;
  OpStats close = create;
  close.name = "close";
  close.wall_ns = 500'000;
  p.ops = {create, close};
  LockStat in_op;
  in_op.kind = SampleKind::Op;
  in_op.name = "create";
  in_op.symbol = "some_lock";
  in_op.count = 10;
  in_op.total_ns = 200'000;
  LockStat background = in_op;
  background.kind = SampleKind::Kthread;
  background.name = "xfsaild";
  p.locks = {in_op, background};
  RunFigures f = run_figures(p, 2, 1, 1234.0);
  EXPECT_EQ(f.threads, 2);
  EXPECT_EQ(f.config, 1);
  EXPECT_DOUBLE_EQ(*f.ops_per_s, 1234.0);
  EXPECT_DOUBLE_EQ(f.latency_ns, 1000);  // 2 ms over 2000 ops
  ASSERT_EQ(f.lock_wait_ns.size(), 1u);  // background waits are not the workload's
  EXPECT_DOUBLE_EQ(f.lock_wait_ns.at("some_lock"), 100);
}

// The i_rwsem's optimistic spin no traced wait includes counts toward its
// wait per op (and so toward its onset), under its own name.
TEST(CompareScaling, OptimisticSpinCountsForTheLockItSpinsOn) {
  Profile p;
  p.meta.freq_hz = 1000;  // a sample is 1 ms
  OpStats create;
  create.name = "create";
  create.count = 1000;
  create.wall_ns = 10'000'000;
  p.ops = {create};
  Stack spin;
  for (const char* f : {"entry_SYSCALL_64", "do_syscall_64", "__x64_sys_openat", "do_sys_openat2",
                        "do_filp_open", "path_openat", "down_write", "rwsem_down_write_slowpath",
                        "rwsem_spin_on_owner"})
    spin.push_back(Frame(f));
  p.samples.push_back({SampleKind::Op, "create", spin, 3});
  RunFigures f = run_figures(p, 2, 0, std::nullopt);
  ASSERT_EQ(f.lock_wait_ns.size(), 1u);
  EXPECT_DOUBLE_EQ(f.lock_wait_ns.at("i_rwsem (parent dir, open)"), 3000);  // 3 ms / 1000 ops
}

TEST(CompareScaling, TextFitsAndNamesOnsets) {
  Scaling s = compute_scaling(sweep());
  std::string text = render_scaling_text(s, "rmapbt=0", "rmapbt=1 with a very long label indeed");
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) EXPECT_LE(line.size(), 72u) << line;
  // One row per thread count: threads, A, B, B vs A.
  auto row = [&](const std::string& first) {
    std::istringstream rows(text);
    std::vector<std::string> words;
    for (std::string l; std::getline(rows, l);) {
      std::istringstream w(l);
      std::string word;
      w >> word;
      if (word != first) continue;
      words = {word};
      while (w >> word) words.push_back(word);
      break;
    }
    return words;
  };
  auto four = row("4");
  ASSERT_EQ(four.size(), 5u) << text;
  EXPECT_EQ(std::vector<std::string>(four.begin(), four.begin() + 4),
            (std::vector<std::string>{"4", "4005", "3600", "-10.1%"}))
      << text;
  EXPECT_EQ(four[4].back(), '*') << "B's rate is lower in every run: " << text;
  EXPECT_EQ(row("L"), (std::vector<std::string>{"L", "t=4", "t=2"})) << text;
  EXPECT_EQ(row("K"), (std::vector<std::string>{"K", "never", "t=4"})) << text;
  EXPECT_EQ(row("M"), std::vector<std::string>{}) << "never significant: not listed\n" << text;
  Scaling quiet = compute_scaling(sweep(), 6, 0.9);
  EXPECT_NE(render_scaling_text(quiet, "a", "b").find("No lock's wait reached 90%"),
            std::string::npos);
}

TEST(CompareScaling, OpsQAcrossThreadCounts) {
  Scaling s = compute_scaling(sweep());
  for (const auto& p : s.points) EXPECT_LT(p.ops_q, kScalingAlpha) << p.threads;
  // Overlapping rates: no difference; one run a side: no test.
  std::vector<RunFigures> noisy{fig(1, 0, 100, 1, {}), fig(1, 0, 200, 1, {}),
                                fig(1, 1, 110, 1, {}), fig(1, 1, 190, 1, {}),
                                fig(2, 0, 100, 1, {}), fig(2, 1, 100, 1, {})};
  Scaling n = compute_scaling(noisy);
  EXPECT_GT(n.points[0].ops_q, 0.5);
  EXPECT_TRUE(std::isnan(n.points[1].ops_q));
  std::string text = render_scaling_text(n, "a", "b");
  EXPECT_NE(text.find("~\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  -\n"), std::string::npos) << text;
}

TEST(CompareScaling, Json) {
  nlohmann::json j = scaling_json(compute_scaling(sweep()));
  EXPECT_DOUBLE_EQ(j["significant_share_of_latency"].get<double>(), 0.05);
  ASSERT_EQ(j["points"].size(), 3u);
  EXPECT_EQ(j["points"][1]["threads"], 2);
  EXPECT_LT(j["points"][1]["ops_per_s_q"].get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(j["points"][1]["b"]["lock_wait_ns_per_op"]["L"]["mean"].get<double>(), 150);
  EXPECT_EQ(j["onsets"][0]["lock"], "L");
  EXPECT_EQ(j["onsets"][0]["a"], 4);
  EXPECT_TRUE(j["onsets"][2]["a"].is_null());
}

TEST(CompareScaling, HtmlHasAChartPerTopLock) {
  std::string html = render_scaling_html(compute_scaling(sweep()), "a<", "b");
  std::size_t charts = 0;
  for (auto at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1))
    charts++;
  EXPECT_EQ(charts, 4u);  // ops/s + L, K, M
  EXPECT_NE(html.find("significant from t=2"), std::string::npos);
  EXPECT_EQ(html.find("a<"), std::string::npos);  // escaped
  // The text table in the <pre> keeps its lines (escaping turns other
  // control characters into U+FFFD).
  std::string text = render_scaling_text(compute_scaling(sweep()), "a<", "b", 100);
  std::string pre = html.substr(html.find("<pre"));
  EXPECT_EQ(pre.find("\xEF\xBF\xBD"), std::string::npos);
  EXPECT_EQ(std::count(pre.begin(), pre.end(), '\n'),
            std::count(text.begin(), text.end(), '\n') + 1);
}

TEST(CompareChart, TicksAndNumbers) {
  EXPECT_EQ(nice_ticks(950), (std::vector<double>{0, 200, 400, 600, 800, 1000}));
  EXPECT_EQ(nice_ticks(0), (std::vector<double>{0, 1}));
  EXPECT_EQ(short_number(950), "950");
  EXPECT_EQ(short_number(2500), "2500");
  EXPECT_EQ(short_number(0.25), "0.25");
  EXPECT_EQ(short_number(12345), "12.3k");
  EXPECT_EQ(short_number(4.5e6), "4.5M");
}

TEST(CompareChart, SvgMarksAndEscapes) {
  Chart c{"<lock>", "threads", "ns", true, {}};
  ChartSeries s{
      "A", "#123456", {{1, 10, 8, 12}, {2, 20, {}, {}}, {64, 40, {}, {}}}, 2.0, "from t=2"};
  c.series.push_back(s);
  std::string svg = line_chart_svg(c);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("&lt;lock&gt;"), std::string::npos);
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);  // the mark
  EXPECT_NE(svg.find(">64<"), std::string::npos);              // x tick
  EXPECT_NE(svg.find("A — from t=2"), std::string::npos);
}

}  // namespace
}  // namespace fscost

namespace fscost {
namespace {

TEST(CompareScaling, OnePointShowsSharesInsteadOfOnsets) {
  std::vector<RunFigures> runs{fig(0, 0, 100, 1000, {{"L", 20}}), fig(0, 1, 90, 1000, {{"L", 80}})};
  std::string text = render_scaling_text(compute_scaling(runs), "x", "y");
  EXPECT_NE(text.find("share of op latency (* >= 5%)"), std::string::npos) << text;
  EXPECT_NE(text.find("2.0%      8.0%*"), std::string::npos) << text;
  EXPECT_EQ(text.find("from thread count"), std::string::npos) << text;
  EXPECT_EQ(text.find(" \n"), std::string::npos) << "no trailing spaces:\n" << text;
  std::vector<RunFigures> tiny{fig(0, 0, 100, 1000, {{"L", 0.2}}), fig(0, 1, 90, 1000, {})};
  EXPECT_NE(
      render_scaling_text(compute_scaling(tiny), "x", "y").find("No lock's wait reached 0.1%"),
      std::string::npos);
}

}  // namespace
}  // namespace fscost
