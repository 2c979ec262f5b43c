// Issue 28: a profile as recorded gives away no kernel address. Lock
// addresses become per-recording ids (one per lock, the same in locks[] and
// lock_holders[] and under every operation); work functions outside every
// symbol are "[unknown]", never their address. Raw aggregates as the
// collector reads them, symbolized by a literal kallsyms.
#include <gtest/gtest.h>

#include <cstring>
#include <regex>
#include <set>
#include <sstream>

#include "collector/profile_builder.h"
#include "collector/recording.h"
#include "model/operations.h"
#include "symbols/kallsyms.h"
#include "views/lock_names.h"

namespace fscost {
namespace {

constexpr std::uint64_t kDirLock = 0xffff888012340000;  // a directory's i_rwsem
constexpr std::uint64_t kOtherDir = 0xffff888012348000;
constexpr std::uint64_t kPushWork = 0xffffffffc0a01000;  // xlog_cil_push_work
constexpr std::uint64_t kNowhere = 0xffffffffd0000000;   // in no symbol's span

Kallsyms ksyms() {
  std::istringstream in(
      "ffffffff81000000 T down_write\n"
      "ffffffff81001000 T filename_create\n"
      "ffffffff81002000 T do_mkdirat\n"
      "ffffffffc0a01000 t xlog_cil_push_work\t[xfs]\n"
      "ffffffffc0a02000 t xfs_trans_commit\t[xfs]\n");
  return Kallsyms::parse(in);
}

void set_name(char* dst, std::size_t n, const char* s) { std::strncpy(dst, s, n - 1); }

fscost_lock_key lock_key(std::uint32_t op, std::uint64_t addr) {
  fscost_lock_key k{};
  k.kind = FSCOST_SK_OP;
  k.op = op;
  k.addr = addr;
  k.stack = 1;
  return k;
}

// mkdir and create contend on one directory's lock, mkdir on another's too;
// a kworker in a work function kallsyms does not know sleeps; a holder of
// the first lock runs the CIL push.
RawData raw() {
  RawData r;
  r.stacks[1] = {0xffffffff81000010, 0xffffffff81001010, 0xffffffff81002010};  // leaf first
  fscost_lock_val v{1, 1000, 1000, 0, 1000, kLockWrite};
  r.locks.push_back({lock_key(static_cast<std::uint32_t>(Op::Mkdir), kDirLock), v});
  r.locks.push_back({lock_key(static_cast<std::uint32_t>(Op::Mkdir), kOtherDir), v});
  r.locks.push_back({lock_key(static_cast<std::uint32_t>(Op::Create), kDirLock), v});
  fscost_holder_key h{};
  h.waiter_op = static_cast<std::uint32_t>(Op::Create);
  h.holder_kind = FSCOST_HOLDER_KTHREAD;
  h.addr = kDirLock;
  h.waiter_stack = 1;
  h.holder_func = kPushWork;
  h.flags = kLockWrite;
  set_name(h.holder_name, sizeof(h.holder_name), "xfs-cil/loop0");
  r.lock_holders.push_back({h, {1, 500}});
  fscost_offcpu_key o{};
  o.op = FSCOST_OP_NONE;
  o.reason = FSCOST_BLOCK_SLEEP;
  o.stack = 1;
  o.func = kNowhere;
  o.waker_func = kPushWork;
  set_name(o.name, sizeof(o.name), "kworker/u4:2");
  r.offcpu.push_back({o, {1, 2000}});
  fscost_bg_key b{};
  b.func = kNowhere;
  set_name(b.name, sizeof(b.name), "kworker/u4:2");
  fscost_fs_event_counts c{};
  c.n[0] = 3;
  r.bg_fs_events.push_back({b, c});
  return r;
}

Profile built() { return build_profile(raw(), ksyms(), nullptr, {}, {}); }

TEST(LockIds, EachLockGetsOneIdInItsRecording) {
  Profile p = built();
  ASSERT_EQ(p.locks.size(), 3u);
  ASSERT_EQ(p.lock_holders.size(), 1u);
  for (const auto& s : p.locks) EXPECT_TRUE(is_kernel_address(s.address)) << s.address;
  std::vector<std::uint64_t> addresses;
  for (const auto& s : p.locks) addresses.push_back(s.address);
  addresses.push_back(p.lock_holders[0].address);

  hide_lock_addresses(p);
  std::set<std::uint64_t> ids;
  for (std::size_t i = 0; i < p.locks.size(); ++i) {
    EXPECT_FALSE(is_kernel_address(p.locks[i].address));
    ids.insert(p.locks[i].address);
    // the same address, the same id; another address, another id
    for (std::size_t j = 0; j < p.locks.size(); ++j)
      EXPECT_EQ(addresses[i] == addresses[j], p.locks[i].address == p.locks[j].address);
  }
  EXPECT_EQ(ids, (std::set<std::uint64_t>{1, 2}));
  // The holder's lock is create's and mkdir's first: its id, so the wait
  // graph still joins them.
  for (std::size_t i = 0; i < p.locks.size(); ++i)
    if (addresses[i] == kDirLock) {
      EXPECT_EQ(p.locks[i].address, p.lock_holders[0].address);
    }
}

TEST(LockIds, IdsFollowFirstAppearance) {
  Profile p;
  p.locks.resize(3);
  p.locks[0].address = kOtherDir;
  p.locks[1].address = kDirLock;
  p.locks[2].address = kOtherDir;
  p.lock_holders.resize(2);
  p.lock_holders[0].address = kDirLock;
  p.lock_holders[1].address = 0xffffffff82a0b040;  // held, never contended in locks[]
  hide_lock_addresses(p);
  EXPECT_EQ(p.locks[0].address, 1u);
  EXPECT_EQ(p.locks[1].address, 2u);
  EXPECT_EQ(p.locks[2].address, 1u);
  EXPECT_EQ(p.lock_holders[0].address, 2u);
  EXPECT_EQ(p.lock_holders[1].address, 3u);
}

TEST(LockIds, WorkFunctionsAreSymbolsNeverAddresses) {
  Profile p = built();
  const std::regex hex("0x|ffff[0-9a-f]{12}", std::regex::icase);
  ASSERT_EQ(p.offcpu.size(), 1u);
  EXPECT_EQ(p.offcpu[0].name, "kworker/u4:2: [unknown]");
  EXPECT_EQ(p.offcpu[0].waker_work, "xlog_cil_push_work");
  ASSERT_EQ(p.kthread_fs_events.size(), 1u);
  EXPECT_EQ(p.kthread_fs_events.begin()->first, "kworker/u4:2: [unknown]");
  EXPECT_EQ(p.lock_holders[0].holder, "xfs-cil/loop0: xlog_cil_push_work");
  for (const auto& s : p.locks) EXPECT_FALSE(std::regex_search(lock_name(s), hex)) << lock_name(s);
}

}  // namespace
}  // namespace fscost
