// One template writes a frame into a string or counts its bytes, so the
// count is exact by construction. Numbers go through std::to_chars, which
// prints fixed precision exactly as fmt's "{:.3f}" (both round the exact
// binary value; compared over 6M values incl. ties), and is about twice as
// fast as fmt with a runtime format string.
#include "flame/frames.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace fscost::flame {

namespace {

// Frame markup text, by part.
constexpr std::string_view kOpen = "<g><title>";
constexpr std::string_view kOpenClass = "<g class=\"";
constexpr std::string_view kOpenClassEnd = "\"><title>";
constexpr std::string_view kRectX = "</title><rect x=\"";
constexpr std::string_view kRectY = "\" y=\"";
constexpr std::string_view kRectW = "\" width=\"";
constexpr std::string_view kRectFill = "\" height=\"15\" rx=\"2\" fill=\"";
constexpr std::string_view kRectEnd = "\"/>";
constexpr std::string_view kTextX = "<text x=\"";
constexpr std::string_view kTextEnd = "\">";
constexpr std::string_view kTextClose = "</text>";
constexpr std::string_view kClose = "</g>\n";
static_assert(kFrameHeight - 1 == 15, "kRectFill spells the frame height");

std::size_t fixed_chars(char* buf, std::size_t cap, double v, int precision) {
  auto r = std::to_chars(buf, buf + cap, v, std::chars_format::fixed, precision);
  return static_cast<std::size_t>(r.ptr - buf);
}

std::size_t digits(unsigned long long v) {
  std::size_t n = 1;
  for (; v >= 10; v /= 10) ++n;
  return n;
}

class Appender {
 public:
  explicit Appender(std::string& out) : out_(out) {}
  void put(std::string_view s) { out_.append(s); }
  void put_escaped(std::string_view s) { append_escaped(out_, s); }
  void fixed(double v, int precision) {
    char buf[64];
    out_.append(buf, fixed_chars(buf, sizeof buf, v, precision));
  }

 private:
  std::string& out_;
};

class Counter {
 public:
  void put(std::string_view s) { n_ += s.size(); }
  void put_escaped(std::string_view s) { n_ += escaped_size(s); }
  // Rounding to 2 or more decimals carries into the integer part only for a
  // fraction of at least .995; anything else (fewer decimals, a sign,
  // -0.0, huge values) is printed to be sure.
  void fixed(double v, int precision) {
    double ip = std::floor(v);
    if (precision >= 2 && !std::signbit(v) && v < 1e15 && v - ip <= 0.99) {
      n_ += digits(static_cast<unsigned long long>(ip)) + 1 + static_cast<std::size_t>(precision);
      return;
    }
    char buf[64];
    n_ += fixed_chars(buf, sizeof buf, v, precision);
  }
  std::size_t bytes() const { return n_; }

 private:
  std::size_t n_ = 0;
};

}  // namespace

Shell shell(const SvgOptions& opt, const std::vector<std::string>& header_lines, int max_depth) {
  std::vector<std::string> lines = fit_lines(header_lines, opt.width);
  Shell s{geometry(opt, lines.size(), max_depth), {}, {}};
  open_document(s.head, s.g, opt, lines);
  open_frames(s.head, s.g);
  close_frames(s.tail);
  close_document(s.tail, s.g);
  return s;
}

FrameWriter::FrameWriter(const Geometry& g) {
  for (int d = 0; d <= g.max_depth; ++d) {
    rect_y_.push_back(fmt::format(FMT_COMPILE("{}"), g.y_of(d)));
    text_y_.push_back(fmt::format(FMT_COMPILE("{}"), g.y_of(d) + 11.5));
  }
}

template <typename Sink>
void FrameWriter::emit(Sink& sink, const Frame& f, const FrameMarkup& m) const {
  if (m.cls.empty()) {
    sink.put(kOpen);
  } else {
    sink.put(kOpenClass);
    sink.put(m.cls);
    sink.put(kOpenClassEnd);
  }
  sink.put(m.tooltip);
  sink.put(kRectX);
  sink.fixed(kPadX + f.x, 3);
  sink.put(kRectY);
  auto depth = static_cast<std::size_t>(f.depth);
  sink.put(rect_y_[depth]);
  sink.put(kRectW);
  sink.fixed(f.w, 3);
  sink.put(kRectFill);
  sink.put(m.fill);
  sink.put(kRectEnd);
  std::string_view name = f.node->name.str();
  std::size_t fit = label_fit(f.w);
  if (fit >= 3) {
    sink.put(kTextX);
    sink.fixed(kPadX + f.x + 3, 2);
    sink.put(kRectY);
    sink.put(text_y_[depth]);
    sink.put(kTextEnd);
    if (name.size() <= fit) {
      sink.put_escaped(name);
    } else {
      sink.put_escaped(name.substr(0, fit - 2));
      sink.put("..");
    }
    sink.put(kTextClose);
  }
  sink.put(kClose);
}

void FrameWriter::append(std::string& out, const Frame& f, const FrameMarkup& m) const {
  Appender a(out);
  emit(a, f, m);
}

std::size_t FrameWriter::size(const Frame& f, const FrameMarkup& m) const {
  Counter c;
  emit(c, f, m);
  return c.bytes();
}

CssRgb::CssRgb(Rgb c) {
  auto end = fmt::format_to(buf_.data(), FMT_COMPILE("rgb({},{},{})"), c.r, c.g, c.b);
  size_ = static_cast<std::size_t>(end - buf_.data());
}

}  // namespace fscost::flame
