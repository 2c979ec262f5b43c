// The tables both sides read (bpf/fscost_tables.h) against the real BPF
// object: its skeleton is opened, not loaded, so no root is needed.
#include <bpf/libbpf.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>

#include "collector/bpf_abi.h"
#include "collector/hooks.h"
#include "fscost_bpf.skel.h"
#include "model/drops.h"
#include "model/wait_class.h"

namespace fscost {
namespace {

struct SkelDeleter {
  void operator()(fscost_bpf* s) const { fscost_bpf__destroy(s); }
};
using Skel = std::unique_ptr<fscost_bpf, SkelDeleter>;

Skel open_skeleton() { return Skel(fscost_bpf__open()); }

// Program name → section name, for every program of the object.
std::map<std::string, std::string> programs(const Skel& s) {
  std::map<std::string, std::string> out;
  bpf_program* p;
  bpf_object__for_each_program(p, s->obj) out[bpf_program__name(p)] = bpf_program__section_name(p);
  return out;
}

TEST(BpfTables, EveryHookHasItsPrograms) {
  Skel s = open_skeleton();
  ASSERT_TRUE(s) << "cannot open the BPF object";
  auto progs = programs(s);
  for (const auto& h : hooks()) {
    std::string name(h.program), event(h.event);
    EXPECT_EQ(progs[name + "_btf"], "tp_btf/" + event) << name;
    EXPECT_EQ(progs[name + "_raw"], "raw_tp/" + event) << name;
  }
}

// The collector autoloads by the hook table: a program it does not list
// would load and attach in every recording, whatever --probes says.
TEST(BpfTables, EveryProgramIsAHookOrTheSampler) {
  Skel s = open_skeleton();
  ASSERT_TRUE(s);
  std::set<std::string> listed = {"on_sample"};  // CpuSampler attaches it
  for (const auto& h : hooks()) {
    std::string name(h.program);
    listed.insert(name + "_btf");
    listed.insert(name + "_raw");
  }
  for (const auto& [name, section] : programs(s))
    EXPECT_TRUE(listed.count(name)) << name << " (" << section << ") is in no hook";
}

// A program's misses are reported by the probe it serves, as meta.probes
// names it: every program of the object maps to one.
TEST(BpfTables, EveryProgramNamesItsProbe) {
  Skel s = open_skeleton();
  ASSERT_TRUE(s);
  for (const auto& [name, section] : programs(s)) {
    std::string probe = probe_of_program(name);
    if (name == "on_sample") {
      EXPECT_EQ(probe, "cpu-clock");
      continue;
    }
    std::string event = section.substr(section.find('/') + 1);
    EXPECT_TRUE(probe.ends_with(":" + event)) << name << " → " << probe;
  }
  EXPECT_EQ(probe_of_program("sys_exit_raw"), "raw_syscalls:sys_exit");
  EXPECT_EQ(probe_of_program("xfs_trans_commit_btf"), "xfs:xfs_trans_commit");
}

TEST(BpfTables, XfsCountersInEnumOrder) {
  auto names = fs_event_names();
  ASSERT_EQ(names.size(), std::size_t{FSCOST_FS_EVENTS});
#define CHECK_FS_EVENT(id, sys, tp, group, obj) EXPECT_EQ(names[FSCOST_FSEV_##id], #tp);
  FSCOST_FS_EVENT_TABLE(CHECK_FS_EVENT)
#undef CHECK_FS_EVENT
  EXPECT_EQ(names[FSCOST_FSEV_TRANS_ALLOC], "xfs_trans_alloc");
  EXPECT_EQ(names[FSCOST_FSEV_IGET_MISS], "xfs_iget_miss");
  std::map<std::string_view, ProbeGroup> group;
  for (const auto& h : hooks())
    if (h.category == "xfs" || h.category == "jbd2" || h.category == "ext4" ||
        h.category == "btrfs")
      group[h.event] = h.group;
  for (auto n : names) EXPECT_TRUE(group.count(n)) << n << " has no hook";
  EXPECT_EQ(group["xfs_trans_alloc"], ProbeGroup::FsEvents);
  EXPECT_EQ(group["xfs_buf_lock"], ProbeGroup::FsBuf);  // per buffer: off by default
  EXPECT_EQ(group["jbd2_handle_start"], ProbeGroup::FsEvents);
  EXPECT_EQ(group["btrfs_tree_lock"], ProbeGroup::FsEvents);
}

TEST(BpfTables, DropNamesByEnumIndex) {
  auto bpf = bpf_drop_counters();
  ASSERT_EQ(bpf.size(), std::size_t{FSCOST_DROP__COUNT});
  // The .bss array the collector copies is the enum's size.
  EXPECT_EQ(sizeof(std::declval<fscost_bpf&>().bss->drops), sizeof(__u64) * FSCOST_DROP__COUNT);
#define CHECK_DROP(id, key, what, hint) EXPECT_EQ(bpf[FSCOST_DROP_##id].name, key);
  FSCOST_DROP_TABLE(CHECK_DROP)
#undef CHECK_DROP
  EXPECT_EQ(bpf[FSCOST_DROP_STACK_FULL].name, "stack_map_full");
  EXPECT_EQ(bpf[FSCOST_DROP_LOCK_NESTING].name, "lock_nesting");
  EXPECT_EQ(bpf[FSCOST_DROP_DEV_WRITE_FULL].name, "dev_write_full");
  EXPECT_EQ(bpf[FSCOST_DROP_STACK_UPDATE_FAILED].name, "stack_update_failed");
  EXPECT_EQ(bpf[FSCOST_DROP_STACK_HASH_COLLISION].name, "stack_hash_collision");
  EXPECT_EQ(bpf[FSCOST_DROP_MAP_UPDATE_FAILED].name, "map_update_failed");
}

fscost_stack stack_of(std::initializer_list<__u64> ips) {
  fscost_stack st{};
  for (__u64 ip : ips) st.ips[st.depth++] = ip;
  return st;
}

// The stack map's key is word-wise FNV-1a, which an adversary (or bad luck)
// can make collide: with b2 = b ^ h(x, a) ^ h(x, a2), [x, a, b] and
// [x, a2, b2] share it. The second hash the BPF store compares tells them
// apart (the store itself, under a real collision: runtime BpfDrops tests).
TEST(BpfTables, StackHashCollisionsDifferInTheCheck) {
  const __u64 x = 0x401000, a = 0x1000, b = 0x2000, a2 = 0x3000;
  fscost_stack pa = stack_of({x, a}), pa2 = stack_of({x, a2});
  const __u64 b2 = b ^ fscost_stack_hash(&pa) ^ fscost_stack_hash(&pa2);
  fscost_stack s1 = stack_of({x, a, b}), s2 = stack_of({x, a2, b2});
  ASSERT_EQ(fscost_stack_hash(&s1), fscost_stack_hash(&s2)) << "the crafted collision";
  EXPECT_NE(s1.check, s2.check);
  // Same frames: same key and check, whatever the unused tail holds.
  fscost_stack s3 = s1;
  s3.ips[5] = 0xdead;
  s3.check = 0;
  EXPECT_EQ(fscost_stack_hash(&s3), fscost_stack_hash(&s1));
  EXPECT_EQ(s3.check, s1.check);
  // A prefix is another stack: the depth is in the check.
  fscost_stack z1 = stack_of({0}), z2 = stack_of({0, 0});
  fscost_stack_hash(&z1);
  fscost_stack_hash(&z2);
  EXPECT_NE(z1.check, z2.check);
  // 0 is "no stack", never a key.
  fscost_stack none{};
  EXPECT_NE(fscost_stack_hash(&none), 0u);
}

#define SAME_REASON(id, name) \
  static_assert(static_cast<std::uint32_t>(BlockReason::name) == FSCOST_BLOCK_##id);
FSCOST_BLOCK_REASON_TABLE(SAME_REASON)
#undef SAME_REASON

TEST(BpfTables, BlockReasonsMatchTheBpfEnum) {
  EXPECT_EQ(static_cast<std::uint32_t>(BlockReason::Lock), std::uint32_t{FSCOST_BLOCK_LOCK});
  EXPECT_EQ(kBlockReasons, std::uint32_t{FSCOST_BLOCK_RUNQUEUE} + 1);
}

}  // namespace
}  // namespace fscost
