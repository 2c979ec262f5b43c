// The drop counters a profile carries: what each one means and the knob that
// fixes it. Printed with every report so lost data is never silent.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "fscost_tables.h"

namespace fscost {

struct DropCounter {
  std::string_view name;         // key in Profile::drops
  std::string_view description;  // what was lost, and why
  std::string_view hint;         // how to stop losing it
};

// The counters of the BPF side's .bss `drops` array (FSCOST_DROP_TABLE in
// bpf/fscost_tables.h): entry i is enum fscost_drop value i.
inline constexpr std::size_t kBpfDropCount = 0 FSCOST_DROP_TABLE(FSCOST_ROW_COUNT);

// Why --user-stacks left the file behind a sampled user frame unread and its
// frames unnamed ("[libfoo.so+0x1234]"), one row per reason: id, counter,
// what, hint. The symbolizer (userspace/symbols/mapped_file.h) counts each
// such file once; docs/HARDENING.md says why each check is there.
#define FSCOST_USER_MAPPING_DROP_TABLE(X)                                                         \
  X(NotRegular, "user_mapping_not_regular",                                                       \
    "files behind sampled user frames left unnamed and unopened: not a regular file (a device "   \
    "mapped executable)",                                                                          \
    "nothing to fix in fscost: the process runs code from something that is not a file")         \
  X(Replaced, "user_mapping_replaced",                                                            \
    "files behind sampled user frames left unnamed: the file found is not the one mapped (its "   \
    "device and inode differ from /proc/PID/maps'), the mapping changed while it was read",       \
    "nothing, when small; keep the program's files in place while recording")                    \
  X(TooLarge, "user_mapping_too_large",                                                           \
    "files behind sampled user frames left unnamed: larger than the input limit (1 GiB unless "   \
    "FSCOST_MAX_INPUT says otherwise)",                                                            \
    "raise it with FSCOST_MAX_INPUT (e.g. FSCOST_MAX_INPUT=4G) if the file is real")              \
  X(Unreadable, "user_mapping_unreadable",                                                        \
    "files behind sampled user frames left unnamed: they could not be opened (the process "       \
    "exited before fscost saw its files, access was denied, or without /proc/PID/map_files the "  \
    "file has no name: a memfd)",                                                                  \
    "nothing, when small: under -a a short-lived process may exit before its files are read")
std::span<const DropCounter> bpf_drop_counters();

// Every counter this fscost knows, in report order: the BPF ones first.
std::span<const DropCounter> drop_counters();

// The entry for `name`; an unknown name (a newer recorder) gets a generic
// description and hint, so it is still printed.
DropCounter describe_drop(std::string_view name);

// What the program on a probe (Profile::prog_missed_by's key, as
// meta.probes names it: "raw_syscalls:sys_exit", "cpu-clock") feeds, so a
// run it missed can be weighed: `feeds` says what loses an event, and
// `op_counts` whether an op's count (and so every per-op figure) can be off.
struct ProbeFeed {
  std::string_view feeds;
  bool op_counts = false;
};
ProbeFeed probe_feed(std::string_view probe);

}  // namespace fscost
