// Lock types from flags, lock names from call sites, rows merged by name.
#include "views/lock_names.h"

#include <gtest/gtest.h>

#include "full_fixture.h"

namespace fscost {
namespace {

using test::stack;

// A writer's rwsem wait unless flags say otherwise.
LockStat at(Stack frames, std::uint64_t address = 0x1000, std::uint32_t flags = kLockWrite) {
  LockStat s;
  s.address = address;
  s.flags = flags;
  s.frames = std::move(frames);
  return s;
}

TEST(LockName, DirectoryRolesOnlyForRwsems) {
  // A spinlock contended in path_openat (dput, lockref) is not the i_rwsem.
  EXPECT_EQ(lock_name(at(stack({"do_filp_open", "path_openat", "_raw_spin_lock"}), 0x1000,
                         kLockSpin)),
            "path_openat lock");
  EXPECT_EQ(lock_name(at(stack({"do_filp_open", "path_openat", "down_write"}))),
            "i_rwsem (parent dir, open)");
}

// The stacks bpftrace recorded under creates on ext4 and btrfs (issue 20,
// docs/OTHER-FILESYSTEMS.md), each lock named by its offset in its
// struct; a lock of another type at the same site keeps the plain name.
TEST(LockName, Ext4AndJbd2Roles) {
  const std::uint32_t rw_read = kLockSpin | kLockRead, rw_write = kLockSpin | kLockWrite;
  EXPECT_EQ(lock_name(at(stack({"__ext4_new_inode", "jbd2__journal_start", "start_this_handle",
                                "queued_read_lock_slowpath"}),
                         0x1000, rw_read)),
            "jbd2 j_state_lock (start_this_handle)");
  EXPECT_EQ(lock_name(at(stack({"kjournald2", "jbd2_journal_commit_transaction",
                                "jbd2_journal_next_log_block", "queued_write_lock_slowpath"}),
                         0x1000, rw_write)),
            "jbd2 j_state_lock (jbd2_journal_next_log_block)");
  EXPECT_EQ(lock_name(at(stack({"ext4_create", "__ext4_new_inode", "down_read"}), 0x1000,
                         kLockRead)),
            "ext4 group alloc_sem (__ext4_new_inode)");
  // Seen by address (journal_t + 280) under 64 fsyncing fs_mark tasks.
  EXPECT_EQ(lock_name(at(stack({"start_this_handle", "add_transaction_credits",
                                "__jbd2_log_wait_for_space", "mutex_lock_io",
                                "__mutex_lock.constprop.0"}),
                         0x1000, kLockMutex | kLockSpin)),
            "jbd2 j_checkpoint_mutex (log full)");
  // Two threads writing O_DIRECT into one file's holes (one address,
  // read and write waits).
  EXPECT_EQ(lock_name(at(stack({"__x64_sys_pwrite64", "vfs_write", "ext4_file_write_iter",
                                "down_read", "rwsem_down_read_slowpath"}),
                         0x1000, kLockRead)),
            "i_rwsem (file, ext4 write)");
  // A spinlock in start_this_handle is not j_state_lock.
  EXPECT_EQ(lock_name(at(stack({"start_this_handle", "_raw_spin_lock"}), 0x1000, kLockSpin)),
            "start_this_handle lock");
}

TEST(LockName, BtrfsRoles) {
  EXPECT_EQ(lock_name(at(stack({"btrfs_lookup_dir_item", "btrfs_search_slot",
                                "btrfs_read_lock_root_node", "btrfs_tree_read_lock_nested",
                                "down_read_nested", "rwsem_down_read_slowpath"}),
                         0x1000, kLockRead)),
            "btrfs tree lock (root node)");
  EXPECT_EQ(lock_name(at(stack({"btrfs_insert_empty_items", "btrfs_search_slot",
                                "btrfs_tree_lock_nested", "down_write_nested"}))),
            "btrfs tree lock (btrfs_search_slot)");
  EXPECT_EQ(lock_name(at(stack({"btrfs_add_link", "btrfs_insert_dir_item",
                                "btrfs_insert_delayed_dir_index", "__mutex_lock"}),
                         0x1000, kLockMutex | kLockSpin)),
            "btrfs delayed node mutex (btrfs_insert_delayed_dir_index)");
  EXPECT_EQ(lock_name(at(stack({"process_one_work", "btrfs_work_helper",
                                "btrfs_async_run_delayed_root", "mutex_lock"}),
                         0x1000, kLockMutex | kLockSpin)),
            "btrfs delayed node mutex (btrfs_async_run_delayed_root)");
}

TEST(LockType, EveryFlagCombinationTheKernelEmits) {
  EXPECT_EQ(lock_type(0), "semaphore");
  EXPECT_EQ(lock_type(kLockSpin), "spinlock");
  EXPECT_EQ(lock_type(kLockSpin | kLockRead), "rwlock:R");
  EXPECT_EQ(lock_type(kLockSpin | kLockWrite), "rwlock:W");
  EXPECT_EQ(lock_type(kLockRead), "rwsem:R");
  EXPECT_EQ(lock_type(kLockWrite), "rwsem:W");
  EXPECT_EQ(lock_type(kLockPercpu | kLockRead), "percpu-rwsem:R");
  EXPECT_EQ(lock_type(kLockPercpu | kLockWrite), "percpu-rwsem:W");
  EXPECT_EQ(lock_type(kLockMutex), "mutex");
  EXPECT_EQ(lock_type(kLockMutex | kLockSpin), "mutex (spun)");
  EXPECT_EQ(lock_type(kLockRt), "rt-mutex");
}

TEST(LockType, FlagValuesAndUnknownCombinations) {
  EXPECT_EQ(kLockSpin, 1u);
  EXPECT_EQ(kLockRead, 2u);
  EXPECT_EQ(kLockWrite, 4u);
  EXPECT_EQ(kLockRt, 8u);
  EXPECT_EQ(kLockPercpu, 16u);
  EXPECT_EQ(kLockMutex, 32u);
  EXPECT_EQ(lock_type(kLockRead | kLockWrite), "unknown(0x6)");
  EXPECT_EQ(lock_type(kLockPercpu), "unknown(0x10)");
  EXPECT_EQ(lock_type(64), "unknown(0x40)");
}

TEST(LockName, SymbolFirst) {
  LockStat s = at(stack({"filename_create", "down_write"}));
  s.symbol = "rename_lock";
  EXPECT_EQ(lock_name(s), "rename_lock");
}

TEST(LockName, ParentDirectoryRoles) {
  EXPECT_EQ(lock_name(at(stack({"do_mkdirat", "filename_create", "down_write_nested",
                                "rwsem_down_write_slowpath"}))),
            "i_rwsem (parent dir, filename_create)");
  EXPECT_EQ(lock_name(at(stack(
                {"path_openat", "open_last_lookups", "down_write", "rwsem_down_write_slowpath"}))),
            "i_rwsem (parent dir, open)");
  EXPECT_EQ(lock_name(at(stack({"open_last_lookups", "lookup_open", "down_read"}))),
            "i_rwsem (parent dir, open)");
  EXPECT_EQ(lock_name(at(stack({"do_unlinkat", "down_write_nested", "rwsem_down_write_slowpath"}))),
            "i_rwsem (parent dir, unlink/rmdir)");
  EXPECT_EQ(lock_name(at(stack({"do_rmdir", "down_write_nested"}))),
            "i_rwsem (parent dir, unlink/rmdir)");
  EXPECT_EQ(lock_name(at(stack({"do_renameat2", "lock_rename", "down_write_nested"}))),
            "i_rwsem (rename)");
  EXPECT_EQ(lock_name(at(stack({"do_renameat2", "down_write_nested"}))), "i_rwsem (rename)");
}

TEST(LockName, XfsBufferLocksByAgHeader) {
  auto buf = [](Stack callers) {
    callers.insert(callers.end(), {"xfs_trans_read_buf_map", "xfs_buf_read_map", "xfs_buf_get_map",
                                   "xfs_buf_lookup", "xfs_buf_find_lock", "xfs_buf_lock", "down",
                                   "__down_common"});
    return at(stack(callers));
  };
  EXPECT_EQ(lock_name(buf({"xfs_dialloc", "xfs_ialloc_read_agi", "xfs_read_agi"})),
            "xfs_buf lock (AGI)");
  EXPECT_EQ(lock_name(buf({"xfs_dialloc", "xfs_ialloc_read_agi"})), "xfs_buf lock (AGI)");
  EXPECT_EQ(lock_name(buf({"xfs_alloc_fix_freelist", "xfs_alloc_read_agf", "xfs_read_agf"})),
            "xfs_buf lock (AGF)");
  EXPECT_EQ(lock_name(buf({"xfs_alloc_read_agf"})), "xfs_buf lock (AGF)");
  EXPECT_EQ(lock_name(buf({"xfs_dir2_leaf_lookup", "xfs_da_read_buf"})),
            "xfs_buf lock (xfs_da_read_buf)");
  EXPECT_EQ(lock_name(at({"xfs_buf_lock", "down"})), "xfs_buf lock (unknown caller)");
  EXPECT_EQ(lock_name(at(stack({"xfs_buf_item_unpin", "xfs_buf_unlock", "up",
                                "_raw_spin_lock_irqsave", "queued_spin_lock_slowpath"}))),
            "xfs_buf lock (xfs_buf_unlock)");
}

TEST(LockName, XfsLogAndInodeRoles) {
  EXPECT_EQ(lock_name(at(stack(
                {"xfs_trans_commit", "xlog_cil_commit", "down_read", "rwsem_down_read_slowpath"}))),
            "CIL context lock (xlog_cil_commit)");
  EXPECT_EQ(lock_name(at(stack({"xfs_file_buffered_write", "xfs_ilock", "down_write_nested"}))),
            "xfs inode ilock (xfs_file_buffered_write)");
  EXPECT_EQ(lock_name(at(stack(
                {"xfs_readdir", "xfs_ilock_data_map_shared", "xfs_ilock", "down_read_nested"}))),
            "xfs inode ilock (xfs_readdir)");
  EXPECT_EQ(lock_name(at(stack({"xfs_log_reserve", "xlog_grant_head_check", "_raw_spin_lock",
                                "queued_spin_lock_slowpath"}))),
            "log grant head lock");
  EXPECT_EQ(lock_name(at(stack({"xfsaild_push", "xfs_log_space_wake", "_raw_spin_lock"}))),
            "log grant head lock");
}

TEST(LockName, SchedulerAndFileTableRoles) {
  EXPECT_EQ(lock_name(at(stack({"xfs_buf_unlock", "up", "try_to_wake_up", "_raw_spin_lock_irqsave",
                                "native_queued_spin_lock_slowpath"}))),
            "task pi_lock/rq lock (try_to_wake_up)");
  EXPECT_EQ(lock_name(at(stack({"do_sys_openat2", "alloc_fd", "_raw_spin_lock"}))),
            "files->file_lock (alloc_fd)");
  EXPECT_EQ(lock_name(at(stack({"__x64_sys_close", "file_close_fd", "_raw_spin_lock"}))),
            "files->file_lock (file_close_fd)");
  EXPECT_EQ(lock_name(at(stack({"close_fd", "_raw_spin_lock"}))), "files->file_lock (close_fd)");
}

TEST(LockName, FallbackNamesTheFunctionThatTookTheLock) {
  EXPECT_EQ(
      lock_name(at(stack({"ksys_write", "__fdget_pos", "mutex_lock", "__mutex_lock_slowpath"}))),
      "file f_pos_lock");
  EXPECT_EQ(lock_name(at(stack({"xfs_create", "insert_inode_locked", "_raw_spin_lock",
                                "queued_spin_lock_slowpath"}))),
            "insert_inode_locked lock");
  // Clone suffixes are dropped; lock_* is not an internal prefix.
  EXPECT_EQ(lock_name(at({"do_thing.isra.0", "_raw_spin_lock_irq"})), "do_thing lock");
  EXPECT_EQ(lock_name(at({"lock_page_x", "mutex_lock"})), "lock_page_x lock");
  // "up*" is not a prefix rule: update_* is a real caller.
  EXPECT_EQ(lock_name(at({"update_curr", "_raw_spin_lock"})), "update_curr lock");
}

TEST(LockName, EveryInternalFrameIsSkipped) {
  for (const char* f : {"native_queued_spin_lock_slowpath",
                        "__pv_queued_spin_lock_slowpath",
                        "queued_read_lock_slowpath",
                        "queued_write_lock_slowpath",
                        "_raw_spin_lock_bh",
                        "_raw_read_lock",
                        "_raw_write_lock_irqsave",
                        "__mutex_lock",
                        "mutex_lock_killable",
                        "down",
                        "__down_killable",
                        "down_read_killable",
                        "down_write_nested",
                        "down_interruptible",
                        "down_killable",
                        "down_timeout",
                        "up",
                        "__up",
                        "up_read",
                        "up_write",
                        "__rwsem_mark_wake",
                        "rwsem_wake",
                        "osq_lock",
                        "percpu_down_write",
                        "__percpu_down_read",
                        "percpu_rwsem_wait",
                        "rt_mutex_slowlock",
                        "rt_spin_lock",
                        "rwbase_write_lock",
                        "inode_lock_nested",
                        "ww_mutex_lock"})
    EXPECT_EQ(lock_name(at({"caller_fn", f})), "caller_fn lock") << f;
}

// Without a call site a lock has only its identity: its id in the recording
// by default, its address where the recording kept addresses.
TEST(LockName, IdOrAddressWhenThereIsNoCallSite) {
  EXPECT_EQ(lock_name(at({}, 3)), "lock#3");
  EXPECT_EQ(lock_name(at({"_raw_spin_lock", "queued_spin_lock_slowpath"}, 12)), "lock#12");
  EXPECT_EQ(lock_name(at({}, 0xffff888012345678)), "lock@0xffff888012345678");
  EXPECT_EQ(lock_name(at({"_raw_spin_lock", "queued_spin_lock_slowpath"}, 0xffffffff82a0c040)),
            "lock@0xffffffff82a0c040");
  // The largest id is still one; the smallest kernel address is an address.
  EXPECT_EQ(lock_name(at({}, (1ull << 63) - 1)), "lock#9223372036854775807");
  EXPECT_EQ(lock_name(at({}, 1ull << 63)), "lock@0x8000000000000000");
}

// The stacks perf record -g showed on the rmapbt demo (docs/CASES.md, case
// 2): the open's optimistic spin is the parent directory's i_rwsem, which
// contention_begin never sees; the file table's spinlock is another lock.
TEST(SpinningLock, OptimisticRwsemSpinIsTheRwsemBeingTaken) {
  auto l = spinning_lock(stack({"entry_SYSCALL_64", "do_syscall_64", "__x64_sys_openat",
                                "do_sys_openat2", "do_filp_open", "path_openat", "down_write",
                                "rwsem_down_write_slowpath", "rwsem_spin_on_owner"}));
  ASSERT_TRUE(l);
  EXPECT_EQ(l->name, "i_rwsem (parent dir, open)");
  EXPECT_EQ(l->type, "rwsem:W");
  EXPECT_TRUE(l->optimistic);
  auto r = spinning_lock(stack({"do_mkdirat", "filename_create", "down_read",
                                "rwsem_down_read_slowpath", "osq_lock"}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name, "i_rwsem (parent dir, filename_create)");
  EXPECT_EQ(r->type, "rwsem:R");
  EXPECT_TRUE(r->optimistic);
}

TEST(SpinningLock, TracedSpinlocksAndMutexes) {
  auto f = spinning_lock(stack({"path_openat", "alloc_fd", "_raw_spin_lock",
                                "native_queued_spin_lock_slowpath"}));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->name, "files->file_lock (alloc_fd)");
  EXPECT_EQ(f->type, "spinlock");
  EXPECT_FALSE(f->optimistic);
  auto m = spinning_lock(stack({"xlog_cil_push_work", "mutex_lock", "__mutex_lock",
                                "mutex_spin_on_owner"}));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->type, "mutex");
  EXPECT_FALSE(m->optimistic);  // contention_begin(MUTEX|SPIN) times it
  EXPECT_FALSE(spinning_lock(stack({"path_openat", "xfs_create", "xfs_trans_alloc"})));
  EXPECT_FALSE(spinning_lock({}));
}

TEST(LockMode, FromSpinAndSleep) {
  EXPECT_EQ(lock_mode(1, 0), "spin");
  EXPECT_EQ(lock_mode(0, 1), "sleep");
  EXPECT_EQ(lock_mode(1, 1), "both");
  EXPECT_EQ(lock_mode(0, 0), "-");
}

TEST(LockRows, MergedByRoleAcrossAddresses) {
  auto rows = lock_rows(test::full_profile(), std::string("create"));
  ASSERT_EQ(rows.size(), 4u);
  const LockRow& r = rows[0];
  EXPECT_EQ(r.kind, SampleKind::Op);
  EXPECT_EQ(r.bucket, "create");
  EXPECT_EQ(r.name, "i_rwsem (parent dir, open)");
  EXPECT_EQ(r.type, "rwsem:W");
  EXPECT_EQ(r.count, 300u);
  EXPECT_EQ(r.total_ns, 4'000'000u);
  EXPECT_EQ(r.max_ns, 150'000u);
  EXPECT_EQ(r.spin_ns, 0u);
  EXPECT_EQ(r.sleep_ns, 4'000'000u);
  EXPECT_EQ(r.addresses, 2u);
  EXPECT_EQ(rows[1].name, "xfs_buf lock (AGI)");
  EXPECT_EQ(rows[2].name, "task pi_lock/rq lock (try_to_wake_up)");
  EXPECT_EQ(rows[3].name, "inode_hash_lock");
}

TEST(LockRows, SameNameDifferentTypeStaysApart) {
  Profile p;
  LockStat a = at(stack({"xlog_cil_commit", "down_read"}), 1);
  a.flags = kLockRead;
  a.count = 1;
  a.total_ns = 10;
  LockStat b = at(stack({"xlog_cil_commit", "_raw_spin_lock"}), 2);
  b.flags = kLockSpin;
  b.count = 2;
  b.total_ns = 30;
  LockStat c = b;  // same lock again, other address and stack
  c.address = 3;
  Stack rooted = c.frames;
  rooted.insert(rooted.begin(), "extra_root");
  c.frames = rooted;
  c.max_ns = 7;
  p.locks = {a, b, c};
  auto rows = lock_rows(p, std::nullopt);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].type, "spinlock");
  EXPECT_EQ(rows[0].count, 4u);
  EXPECT_EQ(rows[0].total_ns, 60u);
  EXPECT_EQ(rows[0].max_ns, 7u);
  EXPECT_EQ(rows[0].addresses, 2u);
  EXPECT_EQ(rows[1].type, "rwsem:R");
  EXPECT_EQ(rows[1].name, rows[0].name);
}

TEST(LockRows, FilterAndOrder) {
  Profile p = test::full_profile();
  auto all = lock_rows(p, std::nullopt);
  ASSERT_EQ(all.size(), 8u);
  for (std::size_t i = 1; i < all.size(); ++i) EXPECT_GE(all[i - 1].total_ns, all[i].total_ns);
  EXPECT_EQ(all[0].bucket, "kworker/u8:1");  // 5 ms, the most
  EXPECT_EQ(all[0].kind, SampleKind::Kthread);
  auto unlink = lock_rows(p, std::string("unlink"));
  ASSERT_EQ(unlink.size(), 1u);
  EXPECT_EQ(unlink[0].name, "log grant head lock");
  // A kernel thread's name is not an operation.
  EXPECT_TRUE(lock_rows(p, std::string("kworker/u8:1")).empty());
  EXPECT_TRUE(lock_rows(p, std::string("rmdir")).empty());
}

}  // namespace
}  // namespace fscost
