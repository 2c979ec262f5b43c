// The SVG skeleton. Layout constants and the look follow Brendan Gregg's
// flamegraph.pl (1200 px wide, 16 px frames, Verdana 12, warm gradient
// background); the markup and the script are fscost's own. Everything the
// page needs is inline, so the file works offline and attached to a review.
#include "flame/svg.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>

#include "flame/assets.h"

namespace fscost::flame {

namespace {

constexpr double kTitleY = 24;
constexpr double kLineHeight = 18;
constexpr double kBottomPad = 30;


void append_fixed_or_g(std::string& out, double v) {
  auto o = std::back_inserter(out);
  if (v == std::floor(v) && v < 1e15)
    fmt::format_to(o, FMT_COMPILE("{:.0f}"), v);
  else if (v >= 1e4)
    fmt::format_to(o, FMT_COMPILE("{:.1f}"), v);
  else
    fmt::format_to(o, FMT_COMPILE("{:.4g}"), v);
}

}  // namespace

Geometry geometry(const SvgOptions& opt, std::size_t header_lines, int max_depth) {
  Geometry g;
  g.width = opt.width;
  g.max_depth = max_depth;
  g.icicle = opt.icicle;
  g.frames_top = kTitleY + kLineHeight * static_cast<double>(header_lines) + 12;
  g.height =
      static_cast<int>(std::ceil(g.frames_top + (max_depth + 1) * kFrameHeight + kBottomPad));
  return g;
}

void append_value(std::string& out, double v, std::string_view unit) {
  if (v < 0) out += '-';
  double a = std::fabs(v);
  if (!unit.starts_with("ns")) {
    append_fixed_or_g(out, a);
    out += ' ';
    out += unit;
    return;
  }
  auto o = std::back_inserter(out);
  if (a < 1e3) {
    append_fixed_or_g(out, a);
    out += " ns";
  } else if (a < 1e6) {
    fmt::format_to(o, FMT_COMPILE("{:.4g} µs"), a / 1e3);
  } else if (a < 1e9) {
    fmt::format_to(o, FMT_COMPILE("{:.4g} ms"), a / 1e6);
  } else {
    append_fixed_or_g(out, a / 1e9);
    out += " s";
  }
  out += unit.substr(2);
}

std::string format_value(double v, const std::string& unit) {
  std::string out;
  append_value(out, v, unit);
  return out;
}

void append_share(std::string& out, double part, double whole) {
  if (whole <= 0)
    out += '-';
  else
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{:.2f}%"), 100 * part / whole);
}

std::string format_share(double part, double whole) {
  std::string out;
  append_share(out, part, whole);
  return out;
}

std::uint32_t name_hash(std::string_view name) {
  std::uint32_t h = 2166136261u;
  for (char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 16777619u;
  }
  return h;
}


std::size_t label_fit(double w_px) {
  return static_cast<std::size_t>(std::max(0.0, std::floor((w_px - 6) / (kFontSize * kFontWidth))));
}

namespace {

// Verdana's digits and capitals are wider than its average glyph
// (kFontWidth), and a subtitle is mostly those: budget header lines with
// this width per character.
constexpr double kNoteGlyph = 0.66;

std::size_t columns(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// `text` in lines of at most `max` columns, broken at spaces.
std::vector<std::string> wrap_words(std::string_view text, std::size_t max) {
  std::vector<std::string> out{""};
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = std::min(text.find(' ', start), text.size());
    std::string_view word = text.substr(start, end - start);
    if (!out.back().empty() && columns(out.back()) + 1 + columns(word) > max) out.emplace_back();
    if (!out.back().empty()) out.back() += ' ';
    out.back() += word;
    start = end + 1;
  }
  return out;
}

}  // namespace

std::vector<std::string> fit_lines(const std::vector<std::string>& lines, int width) {
  auto max =
      static_cast<std::size_t>(std::max(20.0, (width - 2 * kPadX) / (kFontSize * kNoteGlyph)));
  constexpr std::string_view kSep = " | ";
  std::vector<std::string> out;
  for (const std::string& line : lines) {
    if (columns(line) <= max) {
      out.push_back(line);
      continue;
    }
    std::string cur;
    for (std::size_t start = 0; start <= line.size();) {
      std::size_t end = std::min(line.find(kSep, start), line.size());
      std::string_view part = std::string_view(line).substr(start, end - start);
      start = end + kSep.size();
      if (!cur.empty() && columns(cur) + kSep.size() + columns(part) <= max) {
        cur += kSep;
        cur += part;
        continue;
      }
      if (!cur.empty()) out.push_back(std::move(cur));
      std::vector<std::string> pieces = wrap_words(part, max);
      for (std::size_t i = 0; i + 1 < pieces.size(); ++i) out.push_back(std::move(pieces[i]));
      cur = std::move(pieces.back());
    }
    if (!cur.empty()) out.push_back(std::move(cur));
  }
  return out;
}

void open_document(std::string& out, const Geometry& g, const SvgOptions& opt,
                   const std::vector<std::string>& header_lines) {
  auto o = std::back_inserter(out);
  out += "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n";
  fmt::format_to(o,
                 "<svg class=\"fg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
                 "viewBox=\"0 0 {0} {1}\" xmlns=\"http://www.w3.org/2000/svg\">\n",
                 g.width, g.height);
  out +=
      "<defs>\n"
      "<linearGradient id=\"fg-background\" x1=\"0\" x2=\"0\" y1=\"0\" y2=\"1\">"
      "<stop stop-color=\"#eeeeee\" offset=\"5%\"/><stop stop-color=\"#eeeeb0\" "
      "offset=\"95%\"/></linearGradient>\n";
  // Hatching for diff frames drawn with the other side's width.
  for (auto [id, bg, fg] :
       {std::array<const char*, 3>{"fg-gone", "rgb(220,228,255)", "rgb(60,90,220)"},
        std::array<const char*, 3>{"fg-new", "rgb(255,225,225)", "rgb(220,50,50)"},
        std::array<const char*, 3>{"fg-insig", "rgb(235,235,235)", "rgb(160,160,160)"}})
    fmt::format_to(o,
                   "<pattern id=\"{}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
                   "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"{}\"/>"
                   "<line x1=\"1.5\" y1=\"0\" x2=\"1.5\" y2=\"6\" stroke=\"{}\" "
                   "stroke-width=\"2\"/></pattern>\n",
                   id, bg, fg);
  out += "</defs>\n<style type=\"text/css\"><![CDATA[\n";
  out += kFlamegraphCss;
  out += "]]></style>\n";
  fmt::format_to(
      o, "<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"url(#fg-background)\"/>\n",
      g.width, g.height);
  fmt::format_to(o, "<text class=\"fg-title\" x=\"{}\" y=\"{}\">", g.width / 2.0, kTitleY);
  append_escaped(out, opt.title);
  out += "</text>\n";
  for (std::size_t i = 0; i < header_lines.size(); ++i) {
    fmt::format_to(o, "<text class=\"fg-note\" x=\"{}\" y=\"{}\">", g.width / 2.0,
                   kTitleY + kLineHeight * static_cast<double>(i + 1));
    append_escaped(out, header_lines[i]);
    out += "</text>\n";
  }
  fmt::format_to(
      o,
      "<text class=\"fg-button fg-unzoom fg-hide\" x=\"{0}\" y=\"{1}\">Reset Zoom</text>\n"
      "<text class=\"fg-button fg-search\" x=\"{2}\" y=\"{1}\">Search</text>\n"
      "<text class=\"fg-button fg-ic\" x=\"{3}\" y=\"{1}\">ic</text>\n",
      kPadX, kTitleY, g.width - kPadX, g.width - kPadX - 60);
}

void open_frames(std::string& out, const Geometry& g) {
  fmt::format_to(std::back_inserter(out),
                 "<g class=\"fg-frames\" data-icicle=\"{}\" data-pad=\"{}\" data-font=\"{}\" "
                 "data-glyph=\"{}\">\n",
                 g.icicle ? 1 : 0, kPadX, kFontSize, kFontWidth);
}

void close_frames(std::string& out) { out += "</g>\n"; }

void close_document(std::string& out, const Geometry& g) {
  auto o = std::back_inserter(out);
  fmt::format_to(o,
                 "<text class=\"fg-details\" x=\"{0}\" y=\"{2}\"> </text>\n"
                 "<text class=\"fg-matched\" x=\"{1}\" y=\"{2}\"> </text>\n",
                 kPadX, g.width - kPadX, g.height - 10);
  out += "<script type=\"text/ecmascript\"><![CDATA[\n";
  out += kFlamegraphJs;
  out += "]]></script>\n</svg>\n";
}

std::string empty_svg(const SvgOptions& opt, const std::vector<std::string>& header_lines) {
  std::vector<std::string> lines = fit_lines(header_lines, opt.width);
  Geometry g = geometry(opt, lines.size(), 1);
  std::string out;
  open_document(out, g, opt, lines);
  open_frames(out, g);
  close_frames(out);
  fmt::format_to(std::back_inserter(out),
                 "<text class=\"fg-empty\" x=\"{}\" y=\"{}\">no samples</text>\n", g.width / 2.0,
                 g.frames_top + kFrameHeight + 4);
  close_document(out, g);
  return out;
}

std::string pruned_note(const Layout& lay, const SvgOptions& opt) {
  if (lay.pruned_frames == 0) return {};
  return fmt::format("{} frame{} below {} px pruned ({} of total)", lay.pruned_frames,
                     lay.pruned_frames == 1 ? "" : "s", opt.min_width_px,
                     format_share(lay.pruned_span, lay.total));
}

}  // namespace fscost::flame
