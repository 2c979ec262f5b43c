// The sample profile plus off-CPU, lock and XFS data: what `fsops create`
// and `fsops unlink` look like with every probe group. Header-only.
#pragma once

#include "fixture.h"
#include "views/lock_names.h"

namespace fscost::test {

inline Stack with(Stack s, Stack tail) {
  s.insert(s.end(), tail.begin(), tail.end());
  return s;
}

inline const Stack kOpenCreate =
    stack({"__x64_sys_openat", "do_sys_openat2", "path_openat", "open_last_lookups"});
inline const Stack kUnlink =
    stack({"__x64_sys_unlink", "do_unlinkat", "vfs_unlink", "xfs_vfs_unlink", "xfs_remove"});
inline const Stack kKworker = {"ret_from_fork", "kthread", "worker_thread", "process_one_work"};

inline std::vector<OffCpuStack> full_offcpu() {
  auto create = with(kOpenCreate, {"lookup_open", "xfs_generic_create", "xfs_create"});
  auto reserve = with(create, {"xfs_trans_alloc", "xfs_trans_reserve", "xfs_log_reserve",
                               "xlog_grant_head_check", "xlog_grant_head_wait", "schedule"});
  return {
      {SampleKind::Op,
       "create",
       "log-reserve",
       reserve,
       {"ret_from_fork", "kthread", "xfsaild", "xfsaild_push", "xfs_log_space_wake",
        "wake_up_process", "try_to_wake_up"},
       "xfsaild/loop0",
       100,
       50'000'000},
      {SampleKind::Op,
       "create",
       "runqueue",
       with(create, {"__cond_resched", "__schedule"}),
       {},
       "",
       2000,
       30'000'000},
      {SampleKind::Op,
       "create",
       "sleep",
       with(create, {"xfs_trans_alloc", "kmem_cache_alloc", "__alloc_pages", "schedule"}),
       {},
       "",
       20,
       6'000'000},
      {SampleKind::Op, "create", "lock",
       with(kOpenCreate, {"down_write", "rwsem_down_write_slowpath", "schedule"}),
       with(kOpenCreate, {"up_write", "rwsem_wake", "wake_up_q", "try_to_wake_up"}), "fsops", 300,
       4'000'000},
      {SampleKind::Op, "unlink", "log-force",
       with(kUnlink, {"xfs_trans_commit", "__xfs_trans_commit", "xfs_log_force_seq",
                      "xlog_wait_on_iclog", "schedule"}),
       with(kKworker, {"xlog_ioend_work", "xlog_state_do_callback", "__wake_up", "try_to_wake_up"}),
       "kworker/u8:1", 40, 40'000'000},
      {SampleKind::Op,
       "unlink",
       "io",
       with(kUnlink, {"xfs_buf_read_map", "xfs_buf_iowait", "io_schedule"}),
       {},
       "",
       5,
       10'000'000},
      {SampleKind::Kthread,
       "xfsaild/loop0",
       "sleep",
       {"ret_from_fork", "kthread", "xfsaild", "schedule_timeout", "schedule"},
       {},
       "",
       30,
       1'500'000'000},
      {SampleKind::Kthread,
       "kworker/u8:1",
       "io",
       with(kKworker, {"io_schedule"}),
       {},
       "",
       5,
       20'000'000},
  };
}

inline LockStat lock_stat(SampleKind kind, std::string name, std::uint64_t address,
                          std::uint32_t flags, Stack frames, std::uint64_t count,
                          std::uint64_t total_ns, std::uint64_t max_ns, std::uint64_t spin_ns) {
  return {kind,   std::move(name), address,           "", flags, std::move(frames), count, total_ns,
          max_ns, spin_ns,         total_ns - spin_ns};
}

// The locks as a default recording writes them: each lock by its id in the
// recording (1, 2, … by first appearance), never its kernel address
// (docs/HARDENING.md), so no golden under tests/data carries one.
inline std::vector<LockStat> full_locks() {
  auto parent = with(kOpenCreate, {"down_write", "rwsem_down_write_slowpath"});
  auto agi = with(kOpenCreate, {"lookup_open", "xfs_generic_create", "xfs_create", "xfs_dialloc",
                                "xfs_ialloc_read_agi", "xfs_read_agi", "xfs_trans_read_buf_map",
                                "xfs_buf_read_map", "xfs_buf_get_map", "xfs_buf_lookup",
                                "xfs_buf_find_lock", "xfs_buf_lock", "down", "__down_common"});
  auto wake = with(kOpenCreate, {"lookup_open", "xfs_generic_create", "xfs_create",
                                 "xfs_buf_unlock", "up", "try_to_wake_up", "_raw_spin_lock_irqsave",
                                 "native_queued_spin_lock_slowpath"});
  auto grant =
      with(kUnlink, {"xfs_trans_alloc", "xfs_trans_reserve", "xfs_log_reserve",
                     "xlog_grant_head_check", "_raw_spin_lock", "queued_spin_lock_slowpath"});
  auto cil = with(kKworker, {"xlog_cil_push_work", "down_write", "rwsem_down_write_slowpath"});
  const auto Op = SampleKind::Op;
  const auto K = SampleKind::Kthread;
  std::vector<LockStat> l = {
      lock_stat(Op, "create", 1, kLockWrite, parent, 200, 3'000'000, 100'000, 0),
      lock_stat(Op, "create", 2, kLockWrite, parent, 100, 1'000'000, 150'000, 0),
      lock_stat(Op, "create", 3, 0, agi, 50, 2'000'000, 200'000, 0),
      lock_stat(Op, "create", 4, kLockSpin, wake, 400, 800'000, 10'000, 800'000),
      lock_stat(Op, "unlink", 5, kLockSpin, grant, 60, 300'000, 20'000, 300'000),
      lock_stat(K, "kworker/u8:1", 6, kLockWrite, cil, 10, 5'000'000, 900'000, 0),
      lock_stat(K, "kworker/u8:1", 7, kLockMutex | kLockSpin,
                with(kKworker, {"xlog_cil_push_work", "__flush_workqueue", "mutex_lock",
                                "__mutex_lock_slowpath"}),
                4, 500'000, 300'000, 100'000),
      lock_stat(K, "xfsaild/loop0", 8, kLockSpin, {}, 3, 9'000, 4'000, 9'000),
  };
  l.push_back(lock_stat(
      Op, "create", 9, kLockSpin,
      with(kOpenCreate, {"lookup_open", "xfs_generic_create", "xfs_create", "insert_inode_locked",
                         "_raw_spin_lock", "queued_spin_lock_slowpath"}),
      10, 20'000, 5'000, 20'000));
  l.back().symbol = "inode_hash_lock";
  return l;
}

// On-CPU samples in spin paths, for the spin check: 2 traced spins in
// create, 4 rwsem optimistic spins in create, 1 mutex osq_lock in unlink.
inline std::vector<StackSample> spin_samples() {
  auto rwsem = with(kOpenCreate, {"down_write", "rwsem_down_write_slowpath"});
  return {
      {SampleKind::Op, "create",
       with(kOpenCreate,
            {"lookup_open", "xfs_generic_create", "xfs_create", "xfs_buf_unlock", "up",
             "try_to_wake_up", "_raw_spin_lock_irqsave", "native_queued_spin_lock_slowpath"}),
       2},
      {SampleKind::Op, "create", with(rwsem, {"rwsem_optimistic_spin", "rwsem_spin_on_owner"}), 3},
      {SampleKind::Op, "create", with(rwsem, {"rwsem_optimistic_spin", "osq_lock"}), 1},
      {SampleKind::Op, "unlink", with(kUnlink, {"mutex_lock", "__mutex_lock_slowpath", "osq_lock"}),
       1},
  };
}

inline Profile full_profile() {
  Profile p = sample_profile();
  p.ops[0].offcpu_ns = 100'000'000;  // create: 500 on + 100 off = 600 wall
  p.ops[0].fs_events = {
      {"xfs_trans_alloc", 2000}, {"xfs_buf_lock", 3500}, {"xfs_log_reserve", 2000}};
  p.ops[0].trans_min = 2;
  p.ops[0].trans_max = 2;
  p.ops[1].offcpu_ns = 50'000'000;  // unlink: 150 + 50 = 200 wall
  p.ops[1].fs_events = {{"xfs_trans_alloc", 750}, {"xfs_log_force", 500}};
  p.ops[1].trans_min = 1;
  p.ops[1].trans_max = 2;
  p.ops[2].offcpu_ns = 9'000'000;  // other: 50 + 9 = 59 of 60 wall, no stacks
  for (auto& s : spin_samples()) p.samples.push_back(s);
  p.offcpu = full_offcpu();
  p.locks = full_locks();
  p.background_fs_events = {{"xfs_buf_write", 340}, {"xfs_log_force", 12}};
  p.device_write_bytes = {{"loop0", 7'700'000}};
  p.kthread_fs_events = {{"xfs-cil/loop0: xlog_cil_push_work", {{"xfs_log_force", 12}}},
                         {"xfsaild/loop0", {{"xfs_buf_write", 340}}}};
  p.fs_events_other_fs = 5;
  p.fs_write_bytes = {{"data", 7'000'000}, {"log", 700'000}};
  p.bpf_programs = {{"sys_enter_btf", 1000, 70'000}, {"switch_btf", 20, 18'000}};
  p.drops["offcpu_map_full"] = 0;
  p.drops["lock_map_full"] = 0;
  p.drops["lock_nesting"] = 0;
  return p;
}

// The same recording made with --keep-addresses: lock i's address is
// kKeptAddresses[i - 1] (synthetic: heap objects, and inode_hash_lock in
// the kernel image).
inline constexpr std::uint64_t kKeptAddresses[] = {
    0xffff888000001000, 0xffff888000002000, 0xffff888000003000,
    0xffff888000004000, 0xffff888000005000, 0xffff888000006000,
    0xffff888000007000, 0xffff888012345678, 0xffffffff82a0b040};
inline Profile full_profile_with_addresses() {
  Profile p = full_profile();
  for (auto& l : p.locks) l.address = kKeptAddresses[l.address - 1];
  return p;
}

}  // namespace fscost::test
