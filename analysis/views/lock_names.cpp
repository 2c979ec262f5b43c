// Lock types from contention_begin flags, lock names from call sites. The
// tables are the documentation's source: keep docs/LOCKS.md in step.
#include "views/lock_names.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "model/frame_match.h"
#include "views/spin_check.h"

namespace fscost {

namespace {

// Flag combinations the kernel emits (kernel/locking/*.c, v5.19+).
constexpr std::array<std::pair<std::uint32_t, std::string_view>, 14> kLockTypes = {{
    {0, "semaphore"},                      // semaphore.c __down_common
    {kLockSpin, "spinlock"},               // qspinlock.c
    {kLockSpin | kLockRead, "rwlock:R"},   // qrwlock.c
    {kLockSpin | kLockWrite, "rwlock:W"},  // qrwlock.c
    {kLockRead, "rwsem:R"},                // rwsem.c rwsem_down_read_slowpath
    {kLockWrite, "rwsem:W"},               // rwsem.c rwsem_down_write_slowpath
    {kLockPercpu | kLockRead, "percpu-rwsem:R"},
    {kLockPercpu | kLockWrite, "percpu-rwsem:W"},
    // mutex.c begins with MUTEX|SPIN before the optimistic spin and again
    // with MUTEX before sleeping; the recorder ORs the flags of a wait.
    {kLockMutex, "mutex"},
    {kLockMutex | kLockSpin, "mutex (spun)"},
    {kLockRt, "rt-mutex"},                 // rtmutex.c (PREEMPT_RT and PI futexes)
    {kLockRt | kLockSpin, "rt-spinlock"},  // PREEMPT_RT spinlock_t
    {kLockRt | kLockRead, "rt-rwbase:R"},  // PREEMPT_RT rwlock_t / rw_semaphore
    {kLockRt | kLockWrite, "rt-rwbase:W"},
}};

// Frames of the locking primitives themselves, skipped from the leaf to find
// the function that took the lock. "x*" is a prefix, "*x" a suffix.
constexpr std::array<std::string_view, 39> kLockInternal = {
    // spinlocks and rwlocks (qspinlock.c, qrwlock.c, spinlock.c)
    "*_slowpath", "_raw_spin_lock*", "_raw_read_lock*", "_raw_write_lock*", "do_raw_spin_lock*",
    "do_raw_read_lock*", "do_raw_write_lock*", "queued_spin_lock*", "queued_read_lock*",
    "queued_write_lock*",
    // mutexes (mutex.c, osq_lock.c, ww_mutex.h)
    "__mutex_lock*", "mutex_lock*", "ww_mutex_lock*", "__ww_mutex_lock*", "osq_lock",
    "mutex_spin_on_owner",
    // semaphores; up() contends on the semaphore's own spinlock (semaphore.c)
    "down", "__down*", "down_interruptible", "down_killable", "down_timeout", "up", "__up",
    // rw_semaphores, their unlock wake-ups, and the inode_lock() wrappers
    "down_read*", "down_write*", "up_read", "up_write", "__up_read", "__up_write", "__rwsem*",
    "rwsem_*", "inode_lock*",
    // percpu rw_semaphores and PREEMPT_RT locks
    "percpu_down*", "__percpu_down*", "percpu_rwsem_*", "rt_mutex*", "__rt_mutex*", "rt_spin_lock*",
    "rwbase_*"};

// A role: the first non-internal frame, and the name of every lock taken
// there. "{frame}" is that frame, "{caller}" its first caller that is not in
// kPlumbing (with kCallerAliases applied). A role with a type names only
// waits whose lock_type() starts with it ("rwsem" for rwsem:R and rwsem:W,
// "mutex" for mutex and "mutex (spun)"): another lock contended in the same
// function is something else.
struct Role {
  std::string_view frame;
  std::string_view label;
  std::string_view type = {};  // "" = any
};

// The filesystems' rows (jbd2, ext4, btrfs) are the locks seen contended
// under creates with lock:contention_* and named by address (the lock's
// offset in its struct, from BTF) or by the source where the address could
// not say: docs/OTHER-FILESYSTEMS.md.
constexpr std::array<Role, 35> kRoles = {{
    {"filename_create", "i_rwsem (parent dir, filename_create)", "rwsem"},
    {"open_last_lookups", "i_rwsem (parent dir, open)", "rwsem"},
    {"lookup_open", "i_rwsem (parent dir, open)", "rwsem"},
    // open_last_lookups is inlined into path_openat on x86-64 builds (6.18).
    {"path_openat", "i_rwsem (parent dir, open)", "rwsem"},
    {"lookup_slow", "i_rwsem (parent dir, lookup)", "rwsem"},
    {"do_unlinkat", "i_rwsem (parent dir, unlink/rmdir)", "rwsem"},
    {"do_rmdir", "i_rwsem (parent dir, unlink/rmdir)", "rwsem"},
    {"vfs_unlink", "i_rwsem (victim, unlink/rmdir)", "rwsem"},
    {"vfs_rmdir", "i_rwsem (victim, unlink/rmdir)", "rwsem"},
    {"lock_rename", "i_rwsem (rename)", "rwsem"},
    {"lock_two_directories", "i_rwsem (rename)", "rwsem"},
    {"do_renameat2", "i_rwsem (rename)", "rwsem"},
    // ext4_dio_write_iter (inlined): inode_lock, or inode_lock_shared for
    // an aligned overwrite inside i_size.
    {"ext4_file_write_iter", "i_rwsem (file, ext4 write)", "rwsem"},
    {"xfs_buf_lock", "xfs_buf lock ({caller})"},
    {"xfs_buf_unlock", "xfs_buf lock (xfs_buf_unlock)"},
    {"xlog_cil_commit", "CIL context lock ({frame})"},
    {"xlog_cil_push_work", "CIL context lock ({frame})"},
    {"xfs_ilock", "xfs inode ilock ({caller})"},
    {"xfs_log_space_wake", "log grant head lock"},
    {"xlog_grant_*", "log grant head lock"},
    // journal_t's rwlock: read to join the running transaction, write
    // where the commit thread advances the log.
    {"start_this_handle", "jbd2 j_state_lock ({frame})", "rwlock"},
    {"jbd2_journal_next_log_block", "jbd2 j_state_lock ({frame})", "rwlock"},
    // The journal is full: a new handle waits for a checkpoint, which one
    // waiter at a time runs under this mutex.
    {"__jbd2_log_wait_for_space", "jbd2 j_checkpoint_mutex (log full)", "mutex"},
    // "protect vs itable lazyinit": ext4lazyinit holds it for write while it
    // zeroes a group's inode table.
    {"__ext4_new_inode", "ext4 group alloc_sem ({frame})", "rwsem"},
    // An extent buffer's rwsem (locking.c), named by who wanted it.
    {"btrfs_tree_lock*", "btrfs tree lock ({caller})", "rwsem"},
    {"btrfs_tree_read_lock*", "btrfs tree lock ({caller})", "rwsem"},
    {"__btrfs_tree_lock*", "btrfs tree lock ({caller})", "rwsem"},
    {"__btrfs_tree_read_lock*", "btrfs tree lock ({caller})", "rwsem"},
    // The directory's btrfs_delayed_node mutex: the create's dir-index
    // insert against the delayed-inode worker flushing it.
    {"btrfs_insert_delayed_dir_index", "btrfs delayed node mutex ({frame})", "mutex"},
    {"btrfs_async_run_delayed_root", "btrfs delayed node mutex ({frame})", "mutex"},
    {"try_to_wake_up", "task pi_lock/rq lock (try_to_wake_up)"},
    {"alloc_fd", "files->file_lock ({frame})"},
    {"file_close_fd", "files->file_lock ({frame})"},
    {"close_fd", "files->file_lock ({frame})"},
    {"__fdget_pos", "file f_pos_lock"},
}};

// Callers that only pass the lock request on: the XFS buffer cache lookup
// between a metadata reader and xfs_buf_lock, and ilock wrappers.
constexpr std::array<std::string_view, 15> kPlumbing = {
    "xfs_buf_find_lock",
    "xfs_buf_lookup",
    "xfs_buf_find_insert",
    "xfs_buf_find",
    "xfs_buf_get_map",
    "xfs_buf_read_map",
    "xfs_buf_get",
    "xfs_buf_read",
    "xfs_buf_incore",
    "xfs_trans_get_buf_map",
    "xfs_trans_get_buf",
    "xfs_trans_read_buf_map",
    "xfs_trans_read_buf",
    "xfs_ilock_data_map_shared",
    "xfs_ilock_attr_map_shared",
};

// Callers named by what they lock: the AG headers every create and unlink
// of an AG serializes on.
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kCallerAliases = {{
    {"xfs_read_agi", "AGI"},
    {"xfs_ialloc_read_agi", "AGI"},
    {"xfs_read_agf", "AGF"},
    {"xfs_alloc_read_agf", "AGF"},
    // every search starts at the tree's root: the one node all of them lock
    {"btrfs_lock_root_node", "root node"},
    {"btrfs_read_lock_root_node", "root node"},
}};

// Index of the leafmost frame that is not a locking primitive, or -1.
std::ptrdiff_t lock_site(const Stack& frames) {
  for (auto i = static_cast<std::ptrdiff_t>(frames.size()) - 1; i >= 0; --i)
    if (!frame_matches_any(frames[static_cast<std::size_t>(i)].str(), kLockInternal)) return i;
  return -1;
}

std::string caller_of(const Stack& frames, std::ptrdiff_t site) {
  for (auto i = site - 1; i >= 0; --i) {
    std::string_view f = base_name(frames[static_cast<std::size_t>(i)].str());
    if (frame_matches_any(f, kPlumbing)) continue;
    for (const auto& [name, alias] : kCallerAliases)
      if (f == name) return std::string(alias);
    return std::string(f);
  }
  return "unknown caller";
}

void replace(std::string& s, std::string_view what, const std::string& with) {
  if (auto at = s.find(what); at != std::string::npos) s.replace(at, what.size(), with);
}

std::string role_name(const Stack& frames, std::ptrdiff_t site, std::uint32_t flags) {
  std::string_view frame = base_name(frames[static_cast<std::size_t>(site)].str());
  for (const auto& role : kRoles) {
    if (!frame_matches(frame, role.frame) || !lock_type(flags).starts_with(role.type)) continue;
    std::string label(role.label);
    replace(label, "{frame}", std::string(frame));
    if (label.find("{caller}") != std::string::npos)
      replace(label, "{caller}", caller_of(frames, site));
    return label;
  }
  return fmt::format("{} lock", frame);
}

}  // namespace

std::string lock_type(std::uint32_t flags) {
  for (const auto& [f, name] : kLockTypes)
    if (f == flags) return std::string(name);
  return fmt::format("unknown(0x{:x})", flags);
}

std::string lock_name(const LockStat& s) {
  if (!s.symbol.empty()) return s.symbol;
  std::ptrdiff_t site = lock_site(s.frames);
  if (site >= 0) return role_name(s.frames, site, s.flags);
  return is_kernel_address(s.address) ? fmt::format("lock@0x{:x}", s.address)
                                      : fmt::format("lock#{}", s.address);
}

namespace {

bool has_frame(const Stack& frames, std::string_view pattern) {
  for (const auto& f : frames)
    if (frame_matches(f.str(), pattern)) return true;
  return false;
}

}  // namespace

// Which leaves spin is spin_kind's (spin_check.cpp); here, what the leaf and
// its callers say of the lock's type.
std::optional<SpinningLock> spinning_lock(const Stack& frames) {
  SpinKind kind = spin_kind(frames);
  if (kind == SpinKind::None) return std::nullopt;
  const std::string_view leaf = base_name(frames.back().str());
  SpinningLock l;
  std::uint32_t flags = kLockSpin;
  if (kind == SpinKind::Rwsem) {
    bool write = has_frame(frames, "rwsem_down_write*") || has_frame(frames, "down_write*");
    flags = write ? kLockWrite : kLockRead;
    l.optimistic = true;
  } else if (leaf == "mutex_spin_on_owner" || leaf == "osq_lock") {
    // A mutex's spin is inside its traced wait: contention_begin fires with
    // MUTEX|SPIN before it (kernel/locking/mutex.c), so it is timed.
    flags = kLockMutex;
  } else if (leaf == "queued_read_lock_slowpath") {
    flags = kLockSpin | kLockRead;
  } else if (leaf == "queued_write_lock_slowpath") {
    flags = kLockSpin | kLockWrite;
  }
  l.type = lock_type(flags);
  std::ptrdiff_t site = lock_site(frames);
  l.name = site >= 0 ? role_name(frames, site, flags) : "unknown lock";
  return l;
}

std::string lock_mode(std::uint64_t spin_ns, std::uint64_t sleep_ns) {
  if (spin_ns > 0 && sleep_ns > 0) return "both";
  if (spin_ns > 0) return "spin";
  if (sleep_ns > 0) return "sleep";
  return "-";
}

}  // namespace fscost
