// The diff page opens on its verdict: summary.txt's first screen, first in
// the page after the title, escaped, its names linked to rows and graphs
// that are in the page; the full explanation folded below it.
// tests/browser/compare.test.mjs checks the same in a real browser.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "diff_fixture.h"
#include "report/diff_report.h"

namespace fscost::test {
namespace {

const std::string kLock = "log <grant> & head";  // a name that needs escaping

void add_work(RunSet& s, std::uint64_t samples) {
  for (auto& p : s.runs)
    p.samples.push_back({SampleKind::Kthread, "xfs-conv/loop0",
                         Stack{"ret_from_fork", "kthread", "worker_thread", "process_one_work",
                               "xfs_end_io", "xfs_rmap_map"},
                         samples});
}

// B: new code under create, its spin lock worse, a kernel thread working
// 6× as much; labels and a lock name that need escaping.
struct Fixture {
  RunSet a, b;
  Diff d;
  Fixture() {
    ConfigSpec sb = base_spec();
    inject_new_code(sb);
    inject_more_spin(sb);
    a = make_runs(base_spec(), 5, 100, "a<b&c");
    b = make_runs(sb, 5, 200, "B \"x\"");
    add_work(a, 100);
    add_work(b, 600);
    d = diff_runs(a, b);
    for (auto& op : d.ops)
      for (auto& l : op.locks)
        if (l.name == kLockX) l.name = kLock;
  }
};

std::string between(const std::string& s, const std::string& open, const std::string& close) {
  auto start = s.find(open);
  if (start == std::string::npos) return {};
  auto end = s.find(close, start);
  return s.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// Every run of white space one space, none at the ends.
std::string squash(const std::string& text) {
  std::string t = std::regex_replace(text, std::regex("\\s+"), " ");
  return std::regex_replace(t, std::regex("^ | $"), "");
}

// What a reader sees of `html`: tags dropped, entities decoded, squashed.
std::string visible(const std::string& html) {
  std::string t = std::regex_replace(html, std::regex("<[^>]*>"), "");
  for (auto [ent, c] :
       {std::pair{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&amp;", "&"}})
    t = std::regex_replace(t, std::regex(ent), c);
  return squash(t);
}

// summary.txt above its separator (render_diff_text).
std::string first_screen(const Diff& d) {
  std::string text = render_diff_text(d);
  return text.substr(0, text.find("\n" + std::string(72, '-') + "\n") + 1);
}

struct Link {
  std::string href, text;
};

std::vector<Link> links(const std::string& html) {
  std::regex a(R"re(<a href="#([^"]*)">([^<]*)</a>)re");
  std::vector<Link> out;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), a); it != std::sregex_iterator();
       ++it)
    out.push_back({(*it)[1].str(), (*it)[2].str()});
  return out;
}

std::map<std::string, int> ids(const std::string& page) {
  std::regex id(R"re(\sid="([^"]*)")re");
  std::map<std::string, int> n;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), id); it != std::sregex_iterator();
       ++it)
    ++n[(*it)[1].str()];
  return n;
}

// The element carrying id `id`, from its tag's start.
std::string element(const std::string& page, const std::string& id) {
  auto at = page.find(" id=\"" + id + "\"");
  if (at == std::string::npos) return {};
  auto open = page.rfind('<', at);
  return page.substr(open, page.find('>', at) - open + 1);
}

TEST(DiffHtmlVerdict, OpensThePageAfterTheTitle) {
  Fixture f;
  std::string page = render_diff_html(f.d, f.a, f.b);
  std::string head =
      between(page, "<main class=\"diff\">", "<div class=\"verdict\" id=\"verdict\">");
  ASSERT_FALSE(head.empty());
  EXPECT_EQ(std::regex_replace(head, std::regex("<h1>[^<]*</h1>"), "<h1></h1>"),
            "<main class=\"diff\">\n<section id=\"summary\">\n<h1></h1>\n");
  // The full explanation is kept, folded, after it.
  auto verdict = page.find("id=\"verdict\"");
  auto folded = page.find(
      "<details class=\"explanation\">\n<summary>Full explanation</summary>\n"
      "<pre class=\"diff-text\">fscost diff: A = a&lt;b&amp;c (5 runs)");
  ASSERT_NE(folded, std::string::npos);
  EXPECT_LT(verdict, folded);
}

TEST(DiffHtmlVerdict, SaysWhatTheFirstScreenSays) {
  Fixture f;
  std::string page = render_diff_html(f.d, f.a, f.b);
  std::string block = between(page, "<div class=\"verdict\"", "</div>");
  std::string screen = first_screen(f.d);
  ASSERT_GT(std::count(screen.begin(), screen.end(), '\n'), 8) << screen;
  EXPECT_EQ(visible(block + "</div>"), squash(screen));
  // The op's sentence, the kernel thread and the lock are all there to link.
  for (const std::string& what :
       {std::string("\ncreate: on-CPU +"), std::string("xfs-conv/loop0: xfs_end_io"), kLock})
    EXPECT_NE(screen.find(what), std::string::npos) << what << " not in\n" << screen;
}

TEST(DiffHtmlVerdict, EscapesLabelsAndNames) {
  Fixture f;
  std::string block = between(render_diff_html(f.d, f.a, f.b), "<div class=\"verdict\"", "</div>");
  EXPECT_NE(block.find("A = a&lt;b&amp;c, B = B &quot;x&quot;: 5+5 runs"),
            std::string::npos)
      << block;
  EXPECT_NE(block.find(">log &lt;grant&gt; &amp; head</a>"), std::string::npos) << block;
  for (std::string raw : {"a<b", "<grant>", "& head", "\"x\""})
    EXPECT_EQ(block.find(raw), std::string::npos) << raw;
}

TEST(DiffHtmlVerdict, LinksLeadToRowsAndGraphsInThePage) {
  Fixture f;
  std::string page = render_diff_html(f.d, f.a, f.b);
  auto id_count = ids(page);
  for (const auto& [id, n] : id_count) EXPECT_EQ(n, 1) << "duplicate id " << id;
  std::map<std::string, std::string> to;  // link text → target element
  for (const auto& l : links(between(page, "<div class=\"verdict\"", "</div>"))) {
    EXPECT_TRUE(id_count.contains(l.href)) << "dangling #" << l.href << " (" << l.text << ")";
    to[l.text] = element(page, l.href);
  }
  EXPECT_EQ(to["create"], "<tr class=\"significant more\" id=\"row-create-oncpu\">");
  auto figure =
      std::find_if(to.begin(), to.end(), [](auto& e) { return e.first.starts_with("on-CPU +"); });
  ASSERT_NE(figure, to.end());
  EXPECT_NE(figure->first.find("/op"), std::string::npos)
      << figure->first;  // the figure, not its CI
  EXPECT_EQ(figure->first.find(" ("), std::string::npos) << figure->first;
  EXPECT_NE(figure->second.find("id=\"graphs-create-oncpu\""), std::string::npos) << figure->second;
  EXPECT_NE(to["log &lt;grant&gt; &amp; head"].find("id=\"lock-create-log"), std::string::npos);
  EXPECT_NE(to["xfs-conv/loop0: xfs_end_io"].find("id=\"bg-xfs-conv-loop0--xfs_end_io\""),
            std::string::npos);
}

}  // namespace
}  // namespace fscost::test
