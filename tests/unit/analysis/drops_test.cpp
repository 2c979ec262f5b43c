#include "model/drops.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "fscost_tables.h"

namespace fscost {
namespace {

// The BPF side's counters are FSCOST_DROP_TABLE, row i at index i (= enum
// fscost_drop value i), ahead of userspace's own.
TEST(Drops, BpfCountersAreTheTableInOrder) {
  std::vector<std::string_view> rows;
#define ROW(id, name, what, hint) rows.push_back(name);
  FSCOST_DROP_TABLE(ROW)
#undef ROW
  auto bpf = bpf_drop_counters();
  ASSERT_EQ(bpf.size(), rows.size());
  ASSERT_EQ(kBpfDropCount, rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(bpf[i].name, rows[i]) << i;
    EXPECT_EQ(drop_counters()[i].name, rows[i]) << i;
  }
  EXPECT_GT(drop_counters().size(), bpf.size());
}

TEST(Drops, NamesAreUniqueAndDescribed) {
  std::set<std::string_view> names;
  for (const auto& d : drop_counters()) {
    EXPECT_TRUE(names.insert(d.name).second) << d.name << " twice";
    EXPECT_FALSE(d.description.empty()) << d.name;
    EXPECT_FALSE(d.hint.empty()) << d.name;
    EXPECT_EQ(describe_drop(d.name).description, d.description) << d.name;
  }
}

// A full map is fixed by the option that sizes it.
TEST(Drops, EveryFullMapNamesItsKnob) {
  int full = 0;
  for (const auto& d : bpf_drop_counters()) {
    if (!d.name.ends_with("_full")) continue;
    ++full;
    EXPECT_TRUE(d.hint.starts_with("raise --")) << d.name << ": " << d.hint;
  }
  EXPECT_EQ(full, 10);  // nine *_map_full (function_call_map_full too) and dev_write_full
}

// Issue 28: the losses that were silent have their own counters, which say
// what was lost and do not send the reader to a size option that cannot help.
TEST(Drops, FormerlySilentLossesAreCounted) {
  EXPECT_EQ(describe_drop("dev_write_full").hint, "raise --max-devices");
  EXPECT_NE(describe_drop("dev_write_full").description.find("(device, write class)"),
            std::string_view::npos);
  for (std::string_view name :
       {"stack_update_failed", "stack_hash_collision", "map_update_failed"}) {
    DropCounter d = describe_drop(name);
    EXPECT_NE(d.description, describe_drop("no_such_counter").description) << name;
    EXPECT_FALSE(d.hint.starts_with("raise --")) << name << ": not a size";
    EXPECT_TRUE(
        d.description.starts_with(name == "map_update_failed" ? "entries lost" : "stacks lost"))
        << name << ": " << d.description;
  }
  EXPECT_NE(describe_drop("stack_hash_collision").description.find("second hash"),
            std::string_view::npos);
}

TEST(Drops, KnobsForKnownCounters) {
  EXPECT_EQ(describe_drop("stack_map_full").hint, "raise --stack-storage-size");
  EXPECT_EQ(describe_drop("sample_map_full").hint, "raise --max-stacks");
  EXPECT_EQ(describe_drop("task_map_full").hint,
            "raise --max-threads (raw_tp flavour; task storage has no size limit)");
  EXPECT_EQ(describe_drop("tracked_map_full").hint, "raise --max-procs");
  EXPECT_EQ(describe_drop("offcpu_map_full").hint, "raise --max-offcpu");
  EXPECT_EQ(describe_drop("lock_map_full").hint, "raise --max-locks");
  EXPECT_NE(describe_drop("stack_other_errors").hint.find("fscost features"),
            std::string_view::npos);
  EXPECT_NE(describe_drop("prog_missed").hint.find("--freq"), std::string_view::npos);
}

// Counted outside the BPF object: by the collector, or by an importer.
TEST(Drops, UserspaceCountersFollowTheBpfOnes) {
  std::vector<std::string_view> rest;
  for (std::size_t i = kBpfDropCount; i < drop_counters().size(); ++i)
    rest.push_back(drop_counters()[i].name);
  EXPECT_EQ(rest, (std::vector<std::string_view>{"prog_missed", "user_mapping_not_regular",
                                                 "user_mapping_replaced", "user_mapping_too_large",
                                                 "user_mapping_unreadable", "folded_rounded_to_zero",
                                                 "perf_no_stack", "perf_truncated_stack",
                                                 "pprof_negative_values",
                                                 "pprof_frames_capped",
                                                 "stack_depth_truncated"}));
}

TEST(Drops, UnknownCounterStillDescribed) {
  DropCounter d = describe_drop("ringbuf_full");
  EXPECT_EQ(d.name, "ringbuf_full");
  EXPECT_EQ(d.description, "counter unknown to this fscost (recorded by a newer version?)");
  EXPECT_EQ(d.hint, "upgrade fscost for its description");
}

}  // namespace
}  // namespace fscost
