// The file a traced process maps executable, opened for its symbols as the
// kernel refers to it, never by the name /proc/PID/maps shows: that name is
// the process owner's to choose (a FIFO or a symlink to a device put where a
// deleted library was), and root opening it would hang on the FIFO or run
// the device's driver (docs/HARDENING.md, "Symbolizer").
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>

#include "model/drops.h"
#include "symbols/proc_maps.h"
#include "system/subprocess.h"

namespace fscost {

enum class MapRefusal : std::uint8_t {
#define REFUSAL(id, name, what, hint) id,
  FSCOST_USER_MAPPING_DROP_TABLE(REFUSAL)
#undef REFUSAL
};
inline constexpr std::size_t kMapRefusals = 0 FSCOST_USER_MAPPING_DROP_TABLE(FSCOST_ROW_COUNT);

// The drop counter (model/drops.h) that counts `r`.
std::string_view refusal_counter(MapRefusal r);

// An O_PATH descriptor of the file `pid` maps at `m`, which opens nothing
// (no FIFO wait, no driver's open), if that file is m's dev:inode, a regular
// file, and at most max_input_bytes() long; else why not. Taken through
// /proc/PID/map_files/START-END (the mapping's own file, deleted or not);
// without the capability that needs (CAP_SYS_ADMIN or
// CAP_CHECKPOINT_RESTORE), m.path in the process's root, no symlink or
// magic link followed out of it.
std::variant<UniqueFd, MapRefusal> pin_mapped_file(pid_t pid, const Mapping& m);

// A descriptor to read a pinned file, reopened through /proc/self/fd, so
// the very inode checked (O_NONBLOCK, O_NOCTTY as a second line); invalid
// if that fails.
UniqueFd open_pinned(const UniqueFd& pinned);

}  // namespace fscost
