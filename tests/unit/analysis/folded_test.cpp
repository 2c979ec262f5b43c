// Folded stacks, compared with exact expected text.
#include <gtest/gtest.h>

#include "fixture.h"
#include "report/report.h"

namespace fscost {
namespace {

Profile folded_profile() {
  Profile p;
  p.samples = {
      {SampleKind::Op, "create", {"a", "b;c", "d\ne"}, 3},
      {SampleKind::Op, "create", {"a", "x"}, 2},
      {SampleKind::Op, "create", {"a", "x"}, 1},  // same stack again: merged
      {SampleKind::Op, "create", {"never"}, 0},   // no samples: no line
      {SampleKind::Op, "unlink", {}, 4},
      {SampleKind::User, "app", {}, 5},
      {SampleKind::Kernel, "app", {"pf"}, 6},
      {SampleKind::Kthread, "kworker/0:1", {"kthread", "work"}, 7},
  };
  return p;
}

TEST(Folded, AllSamplesSortedWithRoots) {
  EXPECT_EQ(render_folded(folded_profile(), {}),
            "[kernel];pf 6\n"
            "[kthread:kworker/0:1];kthread;work 7\n"
            "[user] 5\n"
            "create;a;b:c;d e 3\n"
            "create;a;x 3\n"
            "unlink 4\n");
}

TEST(Folded, OnlyTheRequestedOp) {
  ReportOptions opt;
  opt.op = "create";
  EXPECT_EQ(render_folded(folded_profile(), opt), "create;a;b:c;d e 3\ncreate;a;x 3\n");
  opt.op = "rmdir";
  EXPECT_EQ(render_folded(folded_profile(), opt), "");
}

TEST(Folded, SampleProfile) {
  ReportOptions opt;
  opt.op = "unlink";
  EXPECT_EQ(render_folded(test::sample_profile(), opt),
            "unlink;entry_SYSCALL_64;do_syscall_64;__x64_sys_unlink;do_unlinkat;vfs_unlink;"
            "xfs_vfs_unlink;xfs_remove 100\n");
}

TEST(Folded, EmptyProfile) { EXPECT_EQ(render_folded(Profile{}, {}), ""); }

}  // namespace
}  // namespace fscost
