// The profile: what `fscost record` measured, as `analysis/` sees it.
//
// Plain data, no kernel types. userspace/ fills it from BPF maps; analysis/
// reads it from a file (io/profile_io.h) and derives every view from it.
// Units: nanoseconds for time, counts for everything else.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/frame.h"
#include "model/interned_stack.h"

namespace fscost {

// 2: the filesystem event fields lost their XFS names ("xfs" → "fs_events").
// 3: a stack table; records name their stacks by index (docs/PROFILE.md).
inline constexpr int kProfileFormatVersion = 3;
// Wall-latency histogram: bucket i counts operations with latency in
// [2^i, 2^(i+1)) ns; bucket 0 also holds 0 ns.
inline constexpr std::size_t kLatencyBuckets = 40;

struct Metadata {
  std::string fscost_version;
  std::string kernel_release;  // uname -r
  std::string hostname;
  std::uint32_t cpus = 0;      // online CPUs during the recording
  std::string target;          // "command", "pid", or "system"
  std::string command;         // command line, or "pid N", or "-a"
  std::int64_t start_unix_ns = 0;
  std::uint64_t duration_ns = 0;  // recorded: wall time less paused_ns
  std::uint32_t freq_hz = 0;   // cpu-clock sampling frequency per CPU
  // One entry per attached probe, "<event> (<attach flavour>)", e.g.
  // "sched:sched_switch (tp_btf)".
  std::vector<std::string> probes;
  // Time the command paused the recording (its FSCOST_CONTROL_FD; the
  // built-in workload over its untimed setup). Optional; 0 when absent.
  std::uint64_t paused_ns = 0;
  // Reading the kernel-side maps once the recording stopped (the drain):
  // what grows with the CPU count and the distinct keys. Optional; 0 when
  // absent.
  std::uint64_t drain_ns = 0;
};

// Resource usage of the target. For a command: its whole reaped process tree
// (wait4). For -p: /proc/PID/stat deltas. For -a: all CPUs (/proc/stat).
struct Rusage {
  bool valid = false;
  std::uint64_t user_ns = 0;
  std::uint64_t sys_ns = 0;
  std::uint64_t wall_ns = 0;
};

// Exact per-operation figures from the syscall and sched_switch probes.
struct OpStats {
  std::string name;            // "create", "unlink", ..., "other" (syscalls not in the table)
  std::uint64_t count = 0;     // completed operations
  std::uint64_t errors = 0;    // of which returned < 0
  std::uint64_t wall_ns = 0;   // summed entry-to-exit latency
  std::uint64_t oncpu_ns = 0;  // summed on-CPU time inside the operation
  std::vector<std::uint64_t> latency_log2;  // kLatencyBuckets entries
  // Summed off-CPU time inside the operation (blocked or runnable-waiting);
  // oncpu_ns + offcpu_ns == wall_ns up to probe timing. Optional in v1.
  std::uint64_t offcpu_ns = 0;
  // Filesystem events (XFS, ext4/jbd2, btrfs) seen inside the operation, by
  // counter name ("xfs_trans_alloc", ...; docs/PROFILE.md). Optional in v1.
  std::map<std::string, std::uint64_t> fs_events;
  // Fewest and most transactions (xfs_trans_alloc) one operation allocated;
  // both 0 when there were none. Optional in v1.
  std::uint64_t trans_min = 0;
  std::uint64_t trans_max = 0;
};

// Who a sample belongs to.
enum class SampleKind {
  Op,       // a tracked task inside operation `name`
  User,     // a tracked task in user mode
  Kernel,   // a tracked task in the kernel outside any op's timestamps (faults, irqs,
            // the syscall entry/exit path)
  Kthread,  // a kernel thread; `name` is its comm, or workqueue for kworkers
};

struct StackSample {
  SampleKind kind = SampleKind::Op;
  std::string name;
  InternedStack frames;  // outermost caller first, leaf last
  std::uint64_t count = 0;
};

// Off-CPU intervals of tracked tasks inside operations, and of workqueue
// workers inside a work item, aggregated by (who, class, blocked stack, waker).
struct OffCpuStack {
  SampleKind kind = SampleKind::Op;  // Op, or Kthread for background
  // The operation; for a kworker the workqueue and the work function it ran
  // ("xfs-conv/loop0: xfs_end_io"), as RunMetrics' background buckets. A
  // preempted kworker's frames are empty (its stack is not walked).
  std::string name;
  // "lock" (sleeping on a contended lock), "io" (in_iowait), "log-reserve"
  // (xlog_grant_head_wait), "log-force" (xfs_log_force*/xlog_wait*),
  // "runqueue" (runnable: preempted, or woken and waiting for a CPU),
  // "sleep" (anything else).
  std::string wait_class;
  InternedStack frames;                   // blocked stack, outermost first
  InternedStack waker_frames;             // the waker's stack; empty if unknown
  std::string waker;                      // waker comm; empty if unknown
  std::uint64_t count = 0;                // intervals
  std::uint64_t total_ns = 0;
  // A kworker waker's work function, and the one it ran before it (what a
  // flush_work barrier, wq_barrier_func, ran after: the flushed work).
  // Optional; empty if the waker was no worker.
  std::string waker_work, waker_last_work;
  std::string waker_workqueue;  // that worker's workqueue ("xfs-sync/loop0")
};

// Lock contention from lock:contention_begin/end, aggregated by (who, lock,
// stack at contention_begin).
struct LockStat {
  // Op; Kthread for background; Kernel for a tracked task outside any
  // operation (page faults, exit).
  SampleKind kind = SampleKind::Op;
  std::string name;  // operation, or kthread bucket; empty for Kernel
  // The lock's kernel address with --keep-addresses; else its id in the
  // recording (1, 2, … by first appearance; an id never has the top bit set).
  std::uint64_t address = 0;
  std::string symbol;                // kallsyms data symbol, when the lock is static
  // contention_begin flags of the first begin of each wait (LCB_F_SPIN=1,
  // READ=2, WRITE=4, RT=8, PERCPU=16, MUTEX=32), OR-ed over the waits.
  std::uint32_t flags = 0;
  InternedStack frames;             // stack at contention_begin, outermost first
  std::uint64_t count = 0;          // contentions (contention_end events)
  std::uint64_t total_ns = 0;       // begin → end
  std::uint64_t max_ns = 0;
  std::uint64_t spin_ns = 0;   // of total: on CPU (spinning)
  std::uint64_t sleep_ns = 0;  // of total: off CPU (sleeping)
};

// An operation's waits on a sleeping lock (rwsem, mutex) by who held it when
// each wait began: the edges of the wait-for graph (diff/wait_graph.h).
struct LockHolder {
  std::string op;                // the waiting operation
  std::uint64_t address = 0;     // the lock: address or id, as LockStat::address
  std::string symbol;            // kallsyms data symbol, when the lock is static
  std::uint32_t flags = 0;       // contention_begin flags of the waits (LockStat::flags)
  InternedStack frames;          // the waiter's stack at contention_end (names the lock)
  // "blocked": a tracked task off CPU inside operation `holder`, in
  // `holder_frames` (wait class `holder_class`); "running": a tracked task
  // inside operation `holder`, on CPU (its syscall, from its pt_regs);
  // "task": another user task (`holder` its comm); "kthread": a kernel
  // thread (`holder` its bucket with the work function, as background
  // buckets); "readers": an rwsem held by readers, no one owner.
  std::string holder_kind;
  std::string holder;
  std::string holder_class;
  InternedStack holder_frames;
  std::uint64_t count = 0;       // waits
  std::uint64_t total_ns = 0;    // begin → end
};

// One of fscost's BPF programs as the kernel timed it (bpf_stats).
struct ProgramCost {
  std::string name;             // "sys_enter_btf", "switch_btf", ...
  std::uint64_t runs = 0;       // run_cnt
  std::uint64_t run_ns = 0;     // run_time_ns
};

// A kernel function timed with fentry/fexit (record --time-functions), by
// the operation its calls were made in.
struct FunctionTime {
  std::string function;        // "xfs_trans_roll"
  std::string op;              // the operation; empty: outside any tracked one
  std::uint64_t count = 0;     // calls, recursive ones included
  std::uint64_t timed = 0;     // outermost calls whose return was seen
  std::uint64_t total_ns = 0;  // entry to return of those, off-CPU time included
  std::uint64_t max_ns = 0;
};

struct Profile {
  Metadata meta;
  Rusage rusage;
  std::vector<OpStats> ops;           // every operation with count > 0
  std::vector<StackSample> samples;   // aggregated by (kind, name, frames)
  std::uint64_t samples_total = 0;    // every sample taken, incl. idle and untracked
  // Every drop, by name (see docs/PROFILE.md for the list and the knob that
  // fixes each). Zero entries are kept so a reader sees what was checked.
  std::map<std::string, std::uint64_t> drops;
  // Issue-3 data; all optional in v1 (absent = not recorded).
  std::vector<OffCpuStack> offcpu;
  std::vector<LockStat> locks;
  std::vector<LockHolder> lock_holders;  // optional: waits by their lock's holder
  // Filesystem events outside any tracked operation (kernel threads, other tasks).
  std::map<std::string, std::uint64_t> background_fs_events;
  // Of those, the kernel threads', by bucket and work function
  // ("xfs-cil/loop0: xlog_cil_push_work" → {"xfs_trans_commit": n, ...}).
  std::map<std::string, std::map<std::string, std::uint64_t>> kthread_fs_events;
  // Filesystem events left out because they were on another superblock than the
  // test filesystem's (record --fs).
  std::uint64_t fs_events_other_fs = 0;
  // Bytes written per block device during the recording ("loop0" → bytes).
  std::map<std::string, std::uint64_t> device_write_bytes;
  // The test filesystem's device (record --fs) by what the writes carried:
  // "data", "metadata" (REQ_META), "log" (the internal log's sectors).
  std::map<std::string, std::uint64_t> fs_write_bytes;
  // fscost's own programs' run counts and time (record --bpf-stats); empty
  // when not measured.
  std::vector<ProgramCost> bpf_programs;
  // drops.prog_missed by the probe whose program the kernel skipped
  // ("lock:contention_end" → runs); only probes that missed any.
  std::map<std::string, std::uint64_t> prog_missed_by;
  // record --time-functions: by function in the order named, then by
  // operation; a function with no call has no row (meta.probes lists what
  // was attached, or why not). Optional; empty when not asked.
  std::vector<FunctionTime> functions;
  // The filesystem as built and the machine it ran on, as text the tools
  // printed (docs/PROFILE.md "setup": mkfs_output, fs_info, mount_options,
  // mkfs_version, cpu_model, ...); open-ended names, empty if not recorded.
  std::map<std::string, std::string> setup;
};

const char* to_string(SampleKind k);

// The deepest stack the analysis takes, so that every walk over a stack
// tree (layout, SVG, the diff's explanation, a tree's destructor) is
// bounded: far above the kernel's 127 frames (PERF_MAX_STACK_DEPTH), far
// below what would exhaust a thread's stack.
inline constexpr std::size_t kMaxStackDepth = 1024;
// Cuts every stack of `p` deeper than kMaxStackDepth to its outermost
// frames and a last "[truncated]" one, counted in
// drops["stack_depth_truncated"] (set only when one was).
void bound_stack_depth(Profile& p);

// "kernel 6.1.0 on host, 2 CPUs", leaving out what was not recorded; for a
// profile imported from folded stacks or perf script, which record none of
// it, "no kernel, host or CPU count recorded (folded)".
std::string machine_summary(const Metadata& m);
bool parse_sample_kind(const std::string& s, SampleKind& out);

}  // namespace fscost
