// A and B on different filesystems (their runs' setup "fs"): each side's
// own code is a different code path, in the parts and in the call paths,
// never "new code"; the same stacks without the setup are new code, as
// before.
#include <gtest/gtest.h>

#include <algorithm>

#include "diff/diff.h"
#include "diff_fixture.h"
#include "report/diff_report.h"

namespace fscost::test {
namespace {

const Stack kOpen = {"entry_SYSCALL_64", "do_syscall_64", "__x64_sys_openat", "do_sys_openat2",
                     "path_openat"};

ConfigSpec create_on(const std::vector<StackSpec>& stacks) {
  ConfigSpec s;
  OpSpec create{"create", 20000, {}, {}, {}};
  create.oncpu.push_back({frames_of(kOpen, {"alloc_empty_file"}), 800});
  for (const auto& st : stacks) create.oncpu.push_back(st);
  s.ops.push_back(create);
  return s;
}

ConfigSpec ext4() {
  auto at = [](Stack tail) { return frames_of(kOpen, tail); };
  return create_on(
      {{at({"ext4_create", "__ext4_new_inode", "ext4_mark_iloc_dirty"}), 2500},
       {at({"ext4_create", "__ext4_journal_start_sb", "jbd2__journal_start", "start_this_handle"}),
        1200},
       {at({"ext4_create", "ext4_add_nondir", "ext4_add_entry", "ext4_dx_add_entry", "dx_probe"}),
        900},
       {at({"ext4_lookup", "__ext4_find_entry"}), 400}});
}

ConfigSpec xfs() {
  auto at = [](Stack tail) { return frames_of(kOpen, tail); };
  return create_on(
      {{at({"xfs_generic_create", "xfs_create", "xfs_trans_alloc_icreate"}), 3000},
       {at({"xfs_generic_create", "xfs_create", "xfs_dir_createname", "xfs_dir2_node_addname"}),
        3500},
       {at({"xfs_generic_create", "xfs_create", "xfs_trans_commit", "__xfs_trans_commit",
            "xlog_cil_commit"}),
        2000},
       {at({"xfs_vn_lookup", "xfs_lookup"}), 300}});
}

RunSet runs(const ConfigSpec& s, std::uint32_t seed, const char* label, const char* fs) {
  RunSet r = make_runs(s, 5, seed, label);
  if (fs)
    for (auto& p : r.runs) p.setup["fs"] = fs;
  return r;
}

const OpDiff& create_of(const Diff& d) {
  for (const auto& o : d.ops)
    if (o.op == "create") return o;
  throw std::runtime_error("no create");
}

const DeltaPart* part(const OpDiff& op, const std::string& kind, bool up) {
  for (const auto& p : op.oncpu_parts)
    if (p.kind == kind && (p.delta_ns > 0) == up) return &p;
  return nullptr;
}

TEST(DiffCrossFs, EachSidesOwnCodeIsADifferentCodePath) {
  Diff d = diff_runs(runs(ext4(), 100, "ext4", "ext4"), runs(xfs(), 200, "xfs", "xfs"));
  EXPECT_EQ(d.fs_a, "ext4");
  EXPECT_EQ(d.fs_b, "xfs");
  const OpDiff& create = create_of(d);
  ASSERT_TRUE(create.oncpu.significant());
  EXPECT_EQ(part(create, "new-code", true), nullptr);
  const DeltaPart* b = part(create, "fs-path", true);
  const DeltaPart* a = part(create, "fs-path", false);
  ASSERT_NE(b, nullptr);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(b->fs, "xfs");
  EXPECT_EQ(a->fs, "ext4/jbd2");
  // Where each filesystem's code begins, largest first: xfs_generic_create
  // carries 8.5 of B's 8.8 µs/op; ext4_create 4.6 of A's 5.0.
  EXPECT_NE(b->detail.find("entered at xfs_generic_create"), std::string::npos) << b->detail;
  EXPECT_NE(a->detail.find("entered at ext4_create"), std::string::npos) << a->detail;
  EXPECT_NEAR(b->delta_ns, 8800, 8800 * 0.15);
  EXPECT_NEAR(a->delta_ns, -5000, 5000 * 0.15);
  // The call paths: up through XFS, down through ext4; none is new code.
  bool up = false, down = false;
  for (const auto& p : create.paths) {
    EXPECT_NE(p.kind, "new-code");
    if (p.kind != "fs-path") continue;
    (p.inclusive.delta() > 0 ? up : down) = true;
    EXPECT_EQ(p.fs, p.inclusive.delta() > 0 ? "xfs" : "ext4/jbd2");
  }
  EXPECT_TRUE(up);
  EXPECT_TRUE(down);
  // The text, its wrapping undone.
  std::string text;
  for (char ch : render_diff_text(d))
    if (ch == '\n' || ch == ' ') {
      if (!text.ends_with(' ')) text += ' ';
    } else {
      text += ch;
    }
  EXPECT_NE(
      text.find(
          "different code path (xfs's own): … → do_sys_openat2 → path_openat → xfs_generic_create"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("different code path (ext4/jbd2's own)"), std::string::npos) << text;
  EXPECT_EQ(text.find("new code"), std::string::npos) << text;
}

// The same stacks from profiles that do not name their filesystem (fscost
// record's): XFS's frames are new in B, as any diff of one filesystem says.
TEST(DiffCrossFs, WithoutTheSetupTheyAreNewCode) {
  Diff d = diff_runs(runs(ext4(), 100, "A", nullptr), runs(xfs(), 200, "B", nullptr));
  EXPECT_TRUE(d.fs_a.empty());
  const OpDiff& create = create_of(d);
  EXPECT_NE(part(create, "new-code", true), nullptr);
  EXPECT_EQ(part(create, "fs-path", true), nullptr);
}

}  // namespace
}  // namespace fscost::test
