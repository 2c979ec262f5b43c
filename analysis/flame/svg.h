// The SVG document shared by flame graphs and differential flame graphs:
// geometry, escaping, value formatting, colours, and the skeleton with the
// embedded script and style. Internal to the flame graph renderers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "flame/layout.h"
#include "flame/flamegraph.h"
#include "model/escape.h"

namespace fscost::flame {

inline constexpr int kFrameHeight = 16;
inline constexpr double kFontSize = 12;
inline constexpr double kFontWidth = 0.59;  // average glyph width / font size (Verdana)
inline constexpr double kPadX = 10;

struct Geometry {
  int width = 0;
  int height = 0;
  double frames_top = 0;  // y of the frame area
  int max_depth = 0;
  bool icicle = false;

  double y_of(int depth) const {
    int row = icicle ? depth : max_depth - depth;
    return frames_top + row * kFrameHeight;
  }
};

Geometry geometry(const SvgOptions& opt, std::size_t header_lines, int max_depth);

// "1,234 samples", "12.3 µs/op": human-readable value in `unit`; times
// ("ns" units) scale to µs, ms or s.
std::string format_value(double v, const std::string& unit);
void append_value(std::string& out, double v, std::string_view unit);
// "12.3%" of `whole`; "-" if whole is 0.
std::string format_share(double part, double whole);
void append_share(std::string& out, double part, double whole);

struct Rgb {
  int r = 0, g = 0, b = 0;
};

// FNV-1a: stable across runs, compilers and platforms, unlike std::hash.
std::uint32_t name_hash(std::string_view name);

// The characters a label of a frame `w_px` wide can hold (< 3: no label);
// longer names are cut to fit - 2 and ".." (flamegraph.js truncates the
// same way when zooming).
std::size_t label_fit(double w_px);

// Header lines (subtitle, legend, notes) wider than a graph `width` px
// wide, broken at " | " (between a subtitle's parts) or else at spaces, so
// that no line is clipped at the graph's edges; a word wider than the graph
// stays whole.
std::vector<std::string> fit_lines(const std::vector<std::string>& lines, int width);

// A document is open_document, open_frames, the frames,
// close_frames, close_document.
// Head: XML prolog, <svg>, defs, style, background, title, header lines
// (subtitle, notes), controls.
void open_document(std::string& out, const Geometry& g, const SvgOptions& opt,
                   const std::vector<std::string>& header_lines);
// The frame group flamegraph.js works on, with the geometry it needs.
void open_frames(std::string& out, const Geometry& g);
void close_frames(std::string& out);
// Frames: FrameWriter (flame/frames.h), a <g> with <title>, <rect> and (if
// it fits) <text> each.
// Details and match lines, the script, </svg>.
void close_document(std::string& out, const Geometry& g);

// A whole document without frames that says "no samples".
std::string empty_svg(const SvgOptions& opt, const std::vector<std::string>& header_lines);

// The line that states what pruning hid, "" if nothing was pruned.
std::string pruned_note(const Layout& lay, const SvgOptions& opt);

}  // namespace fscost::flame
