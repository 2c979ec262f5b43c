#include "model/drops.h"

#include <gtest/gtest.h>

namespace fscost {
namespace {

TEST(Drops, DocumentedCounters) {
  std::vector<std::string_view> names;
  for (const auto& d : drop_counters()) {
    names.push_back(d.name);
    EXPECT_FALSE(d.description.empty()) << d.name;
    EXPECT_FALSE(d.hint.empty()) << d.name;
  }
  EXPECT_EQ(names, (std::vector<std::string_view>{"stack_map_full", "stack_other_errors",
                                                  "sample_map_full", "task_map_full",
                                                  "tracked_map_full", "offcpu_map_full",
                                                  "lock_map_full", "lock_nesting", "prog_missed",
                                                  "folded_rounded_to_zero", "perf_no_stack"}));
}

TEST(Drops, KnobsForKnownCounters) {
  EXPECT_EQ(describe_drop("stack_map_full").hint, "raise --stack-storage-size");
  EXPECT_EQ(describe_drop("sample_map_full").hint, "raise --max-stacks");
  EXPECT_EQ(describe_drop("task_map_full").hint,
            "raise --max-threads (raw_tp flavour; task storage has no size limit)");
  EXPECT_EQ(describe_drop("tracked_map_full").hint, "raise --max-procs");
  EXPECT_EQ(describe_drop("offcpu_map_full").hint, "raise --max-offcpu");
  EXPECT_EQ(describe_drop("lock_map_full").hint, "raise --max-locks");
  EXPECT_NE(describe_drop("prog_missed").hint.find("--freq"), std::string_view::npos);
}

TEST(Drops, UnknownCounterStillDescribed) {
  DropCounter d = describe_drop("ringbuf_full");
  EXPECT_EQ(d.name, "ringbuf_full");
  EXPECT_EQ(d.description, "counter unknown to this fscost (recorded by a newer version?)");
  EXPECT_EQ(d.hint, "upgrade fscost for its description");
}

}  // namespace
}  // namespace fscost
