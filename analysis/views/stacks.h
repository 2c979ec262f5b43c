// A profile's stacks as every consumer sees them: folded output, flame
// graphs, the call graph and the diff's mean stacks are all made from
// for_each_stack, so they cannot disagree.
//
// A stack is root first: its owner ("create", "[user]", "[kernel]",
// "[kthread:NAME]"), then the view's decorations, then the frames:
//   oncpu   owner; kernel frames                              value = samples
//   offcpu  owner; [class]; blocked frames[; --; waker frames leaf first;
//           waker comm]                                       value = ns off CPU
//   locks   owner; lock name; frames at contention_begin      value = ns waited
// Every frame is sanitized for folded text: ';' (the separator) becomes ':',
// line breaks become spaces, so a stack and its folded line say the same.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/frame.h"
#include "model/profile.h"
#include "views/view.h"

namespace fscost {

// A frame as a folded line writes it: ';' becomes ':', line breaks spaces.
std::string folded_frame(std::string s);
// The root of a record: the operation, "[user]", "[kernel]" or
// "[kthread:NAME]", sanitized.
std::string folded_root(SampleKind kind, const std::string& name);

// One record's stack, valid during the callback only.
struct StackRecord {
  SampleKind kind;
  const std::string& owner;  // the op or kthread name; "" for [user] / [kernel]
  std::span<const Frame> frames;
  std::uint64_t value;
};

// Sanitized frames, interned once per distinct profile frame (pool id):
// keep one across the runs of a set so each frame is sanitized once.
class FoldedFrames {
 public:
  Frame frame(const Frame& f);
  Frame root(SampleKind kind, const std::string& name);

 private:
  std::vector<std::uint32_t> cached_;  // pool id → index into frames_ + 1; 0 = not yet
  std::vector<Frame> frames_;
  // Roots by owner, per kind: interning one takes the frame pool's lock,
  // and records of several owners interleave.
  std::array<std::unordered_map<std::string, Frame>, 4> roots_;
};

// Which records: those with a value, and with `op` only that operation's.
struct StackFilter {
  std::optional<std::string> op;
  bool ops_only = false;  // only operations' records ([user], [kernel], kthreads left out)
  bool kthreads_only = false;  // only kernel threads' records
};

// Calls emit for each record of `view` that passes `filter`, in the
// profile's record order. Equal stacks are not merged.
void for_each_stack(const Profile& p, View view, const StackFilter& filter, FoldedFrames& ff,
                    const std::function<void(const StackRecord&)>& emit);

// The stacks of `view` merged by frames and sorted as their folded lines
// sort: render_folded prints these, flame graphs draw them.
struct ProfileStack {
  Stack frames;
  std::uint64_t value = 0;
};
std::vector<ProfileStack> profile_stacks(const Profile& p, View view,
                                         const std::optional<std::string>& op);

// One stack: frames outermost first (the root, e.g. the op name, at [0]),
// and its value in the graph's unit. Stacks may repeat; values add up.
using FlameStack = std::pair<Stack, double>;  // interned frames, root first

struct FlameInput {
  std::vector<FlameStack> stacks;
  // Roots flame_input left out and why, e.g. "[user] (not an operation)"
  // with per_op; shown in the subtitle so nothing vanishes silently.
  std::vector<std::string> skipped;
};

// The roots a per-operation FlameInput leaves out, as its `skipped` lists
// them: "[user] (not an operation)", "fsync (no completed operations)",
// "2 kernel threads (not operations)"; each root once, in root order, the
// kernel threads counted last.
class SkippedRoots {
 public:
  void add(const std::string& root);
  std::vector<std::string> reasons() const;

 private:
  std::map<std::string, std::string> why_;  // root → reason, "" for kernel threads
  std::size_t kthreads_ = 0;
};

}  // namespace fscost
