// A flame graph's frames as markup, appended or only measured: the HTML
// report prunes a graph until it fits its share of the page, and measuring
// a candidate pruning from the layout costs a fraction of drawing it.
// Internal to the flame graph renderers.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "flame/layout.h"
#include "flame/svg.h"

namespace fscost::flame {

// What a frame shows besides its geometry and name.
struct FrameMarkup {
  std::string_view tooltip;  // already escaped (escape it once per node, not per drawing)
  std::string_view fill;     // CSS colour or pattern url
  std::string_view cls;      // extra classes, "" for none
};

// Writes the frames of one geometry (see open_document); the y
// attributes of each depth are formatted once.
class FrameWriter {
 public:
  explicit FrameWriter(const Geometry& g);
  void append(std::string& out, const Frame& f, const FrameMarkup& m) const;
  // Bytes append would add, exactly.
  std::size_t size(const Frame& f, const FrameMarkup& m) const;

 private:
  template <typename Sink>
  void emit(Sink& sink, const Frame& f, const FrameMarkup& m) const;

  std::vector<std::string> rect_y_, text_y_;  // by depth
};

// The document around a graph's frames: `head` is open_document and
// open_frames, `tail` close_frames and close_document (flame/svg.h). A
// drawing is head + frames + tail, and its size head.size() + the frames'
// + tail.size(), from the same strings.
struct Shell {
  Geometry g;
  std::string head, tail;
};
Shell shell(const SvgOptions& opt, const std::vector<std::string>& header_lines, int max_depth);

// rgb(r,g,b) in a caller's buffer, without a heap allocation.
class CssRgb {
 public:
  explicit CssRgb(Rgb c);
  std::string_view view() const { return {buf_.data(), size_}; }

 private:
  std::array<char, 40> buf_{};  // fits three ints
  std::size_t size_ = 0;
};

}  // namespace fscost::flame
