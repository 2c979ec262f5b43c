// Private to io/: the stack depth cut as every reader applies it while it
// reads (model/profile.h, kMaxStackDepth), so that no reader builds a
// 100,000-frame stack, or K locations × L inlined lines of one, only to
// cut it afterwards.
#pragma once

#include <cstddef>
#include <string_view>

#include "model/profile.h"

namespace fscost {

// A reader stops taking a stack's frames once it holds this many: the one
// past the cut proves the stack deeper than the cut.
inline constexpr std::size_t kReadDepth = kMaxStackDepth + 1;

// Cuts `frames` (root first) as bound_stack_depth() does: the outermost
// kMaxStackDepth - 1 and a last "[truncated]". True if it was cut, for
// drops["stack_depth_truncated"].
template <typename Frames>
bool cut_depth(Frames& frames) {
  if (frames.size() <= kMaxStackDepth) return false;
  frames.resize(kMaxStackDepth);
  frames.back() = typename Frames::value_type(std::string_view("[truncated]"));
  return true;
}

}  // namespace fscost
