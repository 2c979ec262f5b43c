// Numbers and plain-text layout for the diff renderers (report/diff/format.h).
#include "report/diff/format.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

namespace fscost::diff_fmt {

namespace {

bool is_time(const std::string& unit) { return unit == "ns" || unit.starts_with("ns/"); }

struct Scale {
  double div = 1;
  std::string_view name;  // "ns", "µs", "ms", "s"
};

Scale time_scale(double magnitude) {
  if (magnitude >= 1e9) return {1e9, "s"};
  if (magnitude >= 1e6) return {1e6, "ms"};
  if (magnitude >= 1e3) return {1e3, "µs"};
  return {1, "ns"};
}

bool is_bytes(const std::string& unit) { return unit == "B"; }

Scale byte_scale(double magnitude) {
  if (magnitude >= 1024.0 * 1024 * 1024) return {1024.0 * 1024 * 1024, "GiB"};
  if (magnitude >= 1024.0 * 1024) return {1024.0 * 1024, "MiB"};
  if (magnitude >= 1024.0) return {1024.0, "KiB"};
  return {1, "B"};
}

// Three significant figures or so, fewer decimals as the number grows.
// Small values keep two significant figures ("0.00031"), so a rare
// contention does not print as 0.
std::string plain(double x, bool sign) {
  double a = std::fabs(x);
  if (a > 0 && a < 0.1) return sign ? fmt::format("{:+.2g}", x) : fmt::format("{:.2g}", x);
  int digits = a >= 100 || a == 0 ? 0 : a >= 1 ? 1 : 2;
  return sign ? fmt::format("{:+.{}f}", x, digits) : fmt::format("{:.{}f}", x, digits);
}

std::size_t bytes_for_columns(std::string_view s, std::size_t cols) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (seen == cols) return i;
    ++seen;
  }
  return s.size();
}

}  // namespace

std::size_t columns(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string truncate(std::string_view s, std::size_t cols) {
  if (columns(s) <= cols) return std::string(s);
  if (cols == 0) return {};
  return std::string(s.substr(0, bytes_for_columns(s, cols - 1))) + "…";
}

std::string pad_right(std::string_view s, std::size_t cols) {
  std::size_t n = columns(s);
  return std::string(s) + std::string(n < cols ? cols - n : 0, ' ');
}

std::string pad_left(std::string_view s, std::size_t cols) {
  std::size_t n = columns(s);
  return std::string(n < cols ? cols - n : 0, ' ') + std::string(s);
}

std::vector<std::string> wrap(std::string_view text, std::size_t width, std::string_view first,
                              std::string_view rest, std::vector<Placed>* placed) {
  std::vector<std::string> lines;
  std::string cur(first);
  bool empty = true;  // no word on `cur` yet
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    std::size_t end = text.find(' ', i);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(i, end - i);
    i = end;
    std::size_t need = columns(cur) + (empty ? 0 : 1) + columns(word);
    if (!empty && need > width) {
      lines.push_back(std::move(cur));
      cur = std::string(rest);
      empty = true;
    }
    std::size_t room = width > columns(cur) + (empty ? 0 : 1) ? width - columns(cur) - !empty : 0;
    if (!empty) cur += ' ';
    std::string fitted = truncate(word, room);
    if (placed)
      placed->push_back({end - word.size(), word.size(), lines.size(), cur.size(), fitted != word});
    cur += fitted;
    empty = false;
  }
  if (!empty || lines.empty()) lines.push_back(std::move(cur));
  return lines;
}

std::string number(double v, const std::string& unit, double magnitude, bool sign) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (magnitude < 0) magnitude = std::fabs(v);
  double x = is_time(unit)    ? v / time_scale(magnitude).div
             : is_bytes(unit) ? v / byte_scale(magnitude).div
                              : v;
  return plain(x, sign);
}

std::string suffix(const std::string& unit, double magnitude) {
  if (is_time(unit)) return fmt::format(" {}{}", time_scale(magnitude).name, unit.substr(2));
  if (is_bytes(unit)) return fmt::format(" {}", byte_scale(magnitude).name);
  if (unit == "%" || unit.starts_with('/')) return unit;
  if (unit.empty()) return {};
  return " " + unit;
}

std::string value(double v, const std::string& unit, bool sign, double magnitude) {
  if (!std::isfinite(v)) return number(v, unit, magnitude, sign);
  if (magnitude < 0) magnitude = std::fabs(v);
  std::string n = number(v, unit, magnitude, sign);
  // Cells drop "/op" (the table says it once) and spell rates "/s".
  if (is_time(unit)) return fmt::format("{} {}", n, time_scale(magnitude).name);
  if (is_bytes(unit)) return fmt::format("{} {}", n, byte_scale(magnitude).name);
  if (unit == "%") return n + "%";
  if (unit == "ops/s") return n + "/s";
  return n;
}

namespace {

// B at least 11 times A reads better as a ratio: "87.0×", not "+8600%".
std::optional<std::string> times(double rel) {
  if (!(rel >= 10)) return std::nullopt;
  double x = rel + 1;
  return x >= 100 ? fmt::format("{:.0f}×", x) : fmt::format("{:.1f}×", x);
}

}  // namespace

std::string chain_text(const DeltaPath& p, std::size_t keep) {
  std::string s;
  std::size_t from = p.frames.size() > keep ? p.frames.size() - keep : 0;
  if (from > 0) s = "… → ";
  for (std::size_t i = from; i < p.frames.size(); ++i) s += (i > from ? " → " : "") + p.frames[i];
  return s;
}

std::string rel_short(const Comparison& c) {
  if (std::isnan(c.rel)) return c.sb.mean > 0 && c.sa.mean == 0 ? "new" : "-";
  if (auto t = times(c.rel)) return *t;
  double p = 100 * c.rel;
  return std::fabs(p) >= 10 ? fmt::format("{:+.0f}%", p) : fmt::format("{:+.1f}%", p);
}

std::string rel_cell(const Comparison& c) {
  if (std::isnan(c.rel)) return c.sb.mean > 0 && c.sa.mean == 0 ? "new" : "-";
  if (c.sb.mean == 0 && c.sa.mean > 0) return "gone";
  if (auto t = times(c.rel)) return *t;
  return fmt::format("{:+.1f}%", 100 * c.rel);
}

std::string q_text(double q) {
  if (std::isnan(q)) return "-";
  if (q < 0.001) return "<0.001";
  return fmt::format("{:.3f}", q);
}

char mark(const Comparison& c) { return c.significant() ? '*' : '~'; }

std::string run_counts(const Comparison& c) { return fmt::format("{} vs {}", c.sa.n, c.sb.n); }

}  // namespace fscost::diff_fmt
