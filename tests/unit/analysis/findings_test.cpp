// The findings stage (diff/findings.h) is what every renderer tells: on
// each recorded case, the first screen says each finding of each block it
// shows, in the findings' order, in the words JSON's `findings[].text`
// holds, and the HTML verdict shows those lines. The seed's case is pinned
// as data, not as words.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "diff/findings.h"
#include "fixture.h"
#include "report/diff/text_parts.h"
#include "report/diff_report.h"

namespace fscost::test {
namespace {

namespace fs = std::filesystem;

Diff case_diff(const std::string& name) {
  auto a = load_runs(data_path("cases/" + name + "/a"), "A");
  auto b = load_runs(data_path("cases/" + name + "/b"), "B");
  if (!a || !b) throw std::runtime_error(!a ? a.error().message : b.error().message);
  return diff_runs(a.value(), b.value());
}

std::vector<std::string> recorded_cases() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(data_path("cases")))
    if (e.is_directory() && fs::exists(e.path() / "a") && fs::exists(e.path() / "b"))
      out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string squash(const std::string& text) {
  std::string t = std::regex_replace(text, std::regex("\\s+"), " ");
  return std::regex_replace(t, std::regex("^ | $"), "");
}

TEST(Findings, KindsAreNamedOnce) {
  std::set<std::string_view> names;
#define FSCOST_X(id, name) EXPECT_TRUE(names.insert(finding_name(FindingKind::id)).second) << name;
  FSCOST_FINDING_KINDS(FSCOST_X)
#undef FSCOST_X
  EXPECT_GE(names.size(), 20u);
}

// Every recorded case: each block the screen shows says its findings in
// order, a block cut at the screen's end only loses its last ones, and
// JSON lists the same findings with the same words.
TEST(Findings, TheFirstScreenTellsEachFindingInItsOrder) {
  const auto cases = recorded_cases();
  ASSERT_GE(cases.size(), 8u);
  for (const auto& name : cases) {
    SCOPED_TRACE(name);
    Diff d = case_diff(name);
    const Findings found = select_findings(d);
    const std::string screen = squash(diff_text::first_screen(d, 72));
    const nlohmann::json j = diff_json(d)["findings"];
    ASSERT_EQ(j["blocks"].size(), found.blocks.size());
    std::size_t pos = 0, told = 0;
    for (std::size_t b = 0; b < found.blocks.size(); ++b) {
      bool cut = false;
      const auto& fs = found.blocks[b].findings;
      ASSERT_EQ(j["blocks"][b]["findings"].size(), fs.size());
      for (std::size_t k = 0; k < fs.size(); ++k) {
        const std::string text = diff_text::finding_text(d, fs[k]);
        EXPECT_EQ(j["blocks"][b]["findings"][k]["text"], text);
        EXPECT_EQ(j["blocks"][b]["findings"][k]["kind"], finding_name(fs[k].kind));
        auto at = screen.find(squash(text), pos);
        if (at == std::string::npos) {
          cut = true;  // left out, or cut at the end of the screen
          continue;
        }
        EXPECT_FALSE(cut) << "told after a finding of its block was left out: " << text;
        pos = at + 1;
        ++told;
      }
    }
    if (!found.blocks.empty()) {
      EXPECT_GE(told, 2u) << screen;
    }
    for (const Finding& w : found.warnings) {
      if (screen.find(squash(diff_text::finding_text(d, w))) == std::string::npos) {
        EXPECT_NE(screen.find("more warning"), std::string::npos) << "a warning neither told nor counted";
      }
    }
  }
}

// The seed's create, as data: the second commit among its filesystem
// events, the xattr intent code new in B, the commit moved under the
// roll, and one contention verdict, whatever its time did.
TEST(Findings, SeedCaseCreateAsData) {
  Diff d = case_diff("parent-create");
  const Findings found = select_findings(d);
  const FindingBlock* create = nullptr;
  for (const auto& b : found.blocks)
    if (b.op != kNoOp && d.ops[b.op].op == "create") create = &b;
  ASSERT_NE(create, nullptr);
  const OpDiff& op = d.ops[create->op];
  int contention = 0;
  bool commit = false, attr = false, moved = false, time = false;
  for (const Finding& f : create->findings) {
    EXPECT_EQ(f.op, create->op);
    switch (f.kind) {
      case FindingKind::OpTime:
      case FindingKind::Unresolved: time = true; break;
      case FindingKind::FsEvents:
      case FindingKind::ExactCounts:
        for (const Item& it : f.items)
          commit |= f.kind == FindingKind::FsEvents
                        ? std::next(op.fs_events.begin(), it.i)->first == "xfs_trans_commit"
                        : op.exact[it.i].what == "xfs_trans_commit";
        break;
      case FindingKind::NewCode:
        for (const Item& it : f.items) attr |= op.new_code[it.i].name == "xfs_attr_*";
        break;
      case FindingKind::MovedWork: {
        const MovedWork& m = op.moved[f.items.front().i];
        moved |= m.from == "__xfs_trans_commit" && !m.via.empty() && m.via.back() == "xfs_trans_roll";
        break;
      }
      case FindingKind::Contention:
        ++contention;
        EXPECT_NE(f.answer, ContentionAnswer::Locks);
        break;
      default: break;
    }
  }
  EXPECT_TRUE(time);
  EXPECT_TRUE(commit);
  EXPECT_TRUE(attr);
  EXPECT_TRUE(moved);
  EXPECT_EQ(contention, 1);
}

// No change at all: a quiet finding per tested op (two at most), never a
// bare "no change", and no block.
TEST(Findings, NothingChangedIsToldAsTheLargestDifferences) {
  Diff d = case_diff("parent-create");
  Diff same = d;
  for (auto& op : same.ops) {
    for (Comparison* c : {&op.oncpu, &op.offcpu}) c->verdict = Verdict::NoChange;
    for (auto& l : op.locks) l.change = LockChange::NoChange;
    op.hop_waits.clear();
    op.exact.clear();
    op.new_code.clear();
    op.shares.clear();
    op.moved.clear();
  }
  same.background.clear();
  same.device_bytes = {};
  same.exact.clear();
  const Findings found = select_findings(same);
  EXPECT_TRUE(found.blocks.empty());
  ASSERT_EQ(found.quiet.size(), 1u);
  EXPECT_FALSE(found.quiet.front().items.empty());
  EXPECT_LE(found.quiet.front().items.size(), 2u);
  EXPECT_NE(squash(diff_text::first_screen(same, 72)).find("The largest differences:"), std::string::npos)
      << diff_text::first_screen(same, 72);
}

}  // namespace
}  // namespace fscost::test
