// The HTML report's structure for a literal profile: sections, anchors that
// resolve, one inline SVG per (graph set, view with data), escaping, and no
// reference to anything outside the file. tests/browser/ renders it for real.
#include "report/html_report.h"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "full_fixture.h"
#include "views/lock_names.h"

namespace fscost {
namespace {

constexpr std::string_view kSvgNs = "http://www.w3.org/2000/svg";

std::vector<std::string> all_of(const std::string& s, const std::string& pattern) {
  std::regex re(pattern);
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1].str());
  return out;
}

std::size_t count(const std::string& s, std::string_view what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size())) ++n;
  return n;
}

// The text between the first `open` and the `close` after it.
std::string between(const std::string& s, const std::string& open, const std::string& close) {
  auto start = s.find(open);
  if (start == std::string::npos) return {};
  auto end = s.find(close, start);
  return s.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// The full fixture, with a frame and a command that need escaping.
Profile hostile_profile() {
  Profile p = test::full_profile();
  p.meta.command = "fsops <script>alert('x')</script> & \"more\"";
  p.samples.push_back({SampleKind::Op, "create", test::stack({"a<b>&c"}), 7});
  return p;
}

TEST(HtmlReport, SectionsInOrder) {
  std::string page = render_html_report(test::full_profile(), {});
  EXPECT_TRUE(page.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
  EXPECT_TRUE(page.ends_with("</html>\n"));
  std::size_t last = 0;
  for (std::string id : {"run", "operations", "graphs", "all", "op-create", "op-unlink", "op-fsync",
                         "locks", "drops"}) {
    auto at = page.find("id=\"" + id + "\"");
    ASSERT_NE(at, std::string::npos) << id;
    EXPECT_GT(at, last) << id << " out of order";
    last = at;
  }
  EXPECT_NE(page.find("<title>fscost report: fsops create 1000</title>"), std::string::npos);
  EXPECT_NE(page.find("<nav class=\"toc\""), std::string::npos);
}

TEST(HtmlReport, EveryAnchorResolvesAndIdsAreUnique) {
  std::string page = render_html_report(test::full_profile(), {});
  std::map<std::string, int> ids;
  for (const auto& id : all_of(page, R"re(\sid="([^"]*)")re")) ++ids[id];
  for (const auto& [id, n] : ids) EXPECT_EQ(n, 1) << "duplicate id " << id;
  auto hrefs = all_of(page, R"re(href="([^"]*)")re");
  EXPECT_GT(hrefs.size(), 30u);
  for (const auto& h : hrefs) {
    ASSERT_TRUE(h.starts_with("#")) << h;
    EXPECT_TRUE(ids.contains(h.substr(1))) << "dangling " << h;
  }
  // Every graph is reachable from the table of contents.
  std::string nav = between(page, "<nav", "</nav>");
  for (const auto& panel : all_of(page, R"re(class="view-panel" id="([^"]*)")re"))
    EXPECT_NE(nav.find("href=\"#" + panel + "\""), std::string::npos) << panel;
}

TEST(HtmlReport, OneSvgPerViewWithData) {
  // all: 3 views; create and unlink: on-CPU, off-CPU and lock stacks; fsync:
  // samples only; other: no stacks at all, so no graph set.
  std::string page = render_html_report(test::full_profile(), {});
  EXPECT_EQ(count(page, "<svg "), 3u + 3u + 3u + 1u);
  EXPECT_EQ(count(page, "</svg>"), 10u);
  EXPECT_EQ(count(page, "<?xml"), 0u);
  EXPECT_EQ(page.find("id=\"op-other\""), std::string::npos);
  EXPECT_EQ(all_of(page, R"re(id="(op-fsync-[a-z]+)")re"),
            std::vector<std::string>{"op-fsync-oncpu"});
  // Each graph's <defs> ids are its own, and its references follow them.
  EXPECT_EQ(count(page, "id=\"fg1-background\""), 1u);
  EXPECT_EQ(count(page, "url(#fg10-background)"), 1u);
  EXPECT_EQ(count(page, "url(#fg-"), 0u);

  HtmlOptions combined_only;
  combined_only.per_op_graphs = false;
  EXPECT_EQ(count(render_html_report(test::full_profile(), combined_only), "<svg "), 3u);
}

TEST(HtmlReport, TablesHaveARowPerEntry) {
  Profile p = test::full_profile();
  std::string page = render_html_report(p, {});
  auto rows = [&](const std::string& table) {
    return count(between(page, "<table class=\"" + table + "\">", "</table>"), "<tr") - 1;
  };
  EXPECT_EQ(rows("ops"), 4u);  // create, unlink, other, fsync (samples only)
  EXPECT_EQ(rows("locks"), lock_rows(p, std::nullopt).size());
  EXPECT_EQ(rows("drops"), p.drops.size());
  EXPECT_EQ(count(page, "<tr class=\"nonzero\">"), 1u);  // stack_map_full: 3
  // create: 500 ops/s, on-CPU 500.0, off-CPU 100.0, wall 600.0 µs/op.
  EXPECT_NE(page.find("<td class=\"text\">create</td><td>1000</td><td>2</td><td>500.0</td>"
                      "<td>500.0</td><td>100.0</td><td>600.0</td><td>62.5%</td><td>506</td>"),
            std::string::npos);
  EXPECT_NE(page.find("87.5% of rusage sys"), std::string::npos);
}

TEST(HtmlReport, EscapesFramesAndMetadata) {
  std::string page = render_html_report(hostile_profile(), {});
  EXPECT_EQ(page.find("a<b>&c"), std::string::npos);
  EXPECT_NE(page.find("a&lt;b&gt;&amp;c"), std::string::npos);
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_NE(
      page.find("fsops &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;more&quot;"),
      std::string::npos);
  // The page's script, and each SVG's.
  EXPECT_EQ(count(page, "<script"), 1u + count(page, "<svg "));
  EXPECT_EQ(count(page, "</script>"), count(page, "<script"));
}

TEST(HtmlReport, ControlCharactersDoNotReachThePage) {
  Profile p = test::full_profile();
  p.meta.hostname = std::string("host\x01name\x1b[0m", 12);
  std::string page = render_html_report(p, {});
  EXPECT_EQ(page.find('\x01'), std::string::npos);
  EXPECT_EQ(page.find('\x1b'), std::string::npos);
  EXPECT_NE(page.find("host\xEF\xBF\xBDname"), std::string::npos);
}

TEST(HtmlReport, ReferencesNothingOutsideTheFile) {
  std::string page = render_html_report(hostile_profile(), {});
  std::string stripped;
  for (std::size_t at = 0;;) {
    auto ns = page.find(kSvgNs, at);
    stripped += page.substr(at, ns == std::string::npos ? std::string::npos : ns - at);
    if (ns == std::string::npos) break;
    at = ns + kSvgNs.size();
  }
  EXPECT_EQ(stripped.find("http://"), std::string::npos);
  EXPECT_EQ(stripped.find("https://"), std::string::npos);
  EXPECT_TRUE(all_of(page, R"re(\ssrc="([^"]*)")re").empty());
  EXPECT_TRUE(all_of(page, R"re((@import))re").empty());
  for (const auto& u : all_of(page, R"re(url\(([^)]*)\))re")) EXPECT_TRUE(u.starts_with("#")) << u;
  for (const auto& x : all_of(page, R"re(xmlns="([^"]*)")re")) EXPECT_EQ(x, kSvgNs);
}

TEST(HtmlReport, EmptyProfileStillGivesAPage) {
  std::string page = render_html_report(Profile{}, {});
  EXPECT_EQ(count(page, "<svg"), 0u);
  EXPECT_NE(page.find("No operations in this profile."), std::string::npos);
  EXPECT_NE(page.find("No stacks in this profile."), std::string::npos);
  EXPECT_NE(page.find("Lock contention was not recorded"), std::string::npos);
  EXPECT_NE(page.find("The profile lists no drop counters."), std::string::npos);
}

TEST(HtmlReport, SizeBudgetPrunesHarderAndSaysSo) {
  Profile p = test::full_profile();
  std::string full = render_html_report(p, {});
  EXPECT_EQ(full.find("instead of 0.1 px"), std::string::npos);
  HtmlOptions tight;
  tight.max_bytes = 1;  // every graph over its share: pruned as hard as allowed
  std::string page = render_html_report(p, tight);
  EXPECT_NE(page.find("10 of 10 graphs prune frames narrower than up to 6.4 px instead of 0.1 px"),
            std::string::npos);
  EXPECT_GT(count(page, "below 6.4 px pruned"), 0u);
  EXPECT_LT(page.size(), full.size());
  EXPECT_EQ(count(page, "<svg "), 10u);  // pruned, never dropped
  HtmlOptions none;
  none.max_bytes = 0;
  EXPECT_EQ(render_html_report(p, none), full);
}

TEST(HtmlReport, OptionsReachThePage) {
  HtmlOptions o;
  o.title = "Review <42>";
  o.source = "runs/a&b.profile";
  o.graph_width = 900;
  std::string page = render_html_report(test::full_profile(), o);
  EXPECT_NE(page.find("<title>Review &lt;42&gt;</title>"), std::string::npos);
  EXPECT_NE(page.find("<p class=\"source\">runs/a&amp;b.profile</p>"), std::string::npos);
  EXPECT_EQ(count(page, "<svg class=\"fg\" version=\"1.1\" width=\"900\""), 10u);
}

}  // namespace
}  // namespace fscost
