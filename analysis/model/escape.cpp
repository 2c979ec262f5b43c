// XML escaping for every SVG and HTML fscost writes.
#include "model/escape.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace fscost {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Bytes copied as they are: ASCII from space up (DEL too, as XML allows it)
// but the five XML specials, and tab.
constexpr std::array<bool, 256> kPlain = [] {
  std::array<bool, 256> t{};
  for (int c = 0x20; c < 0x80; ++c) t[c] = true;
  for (char c : {'&', '<', '>', '"', '\''}) t[static_cast<unsigned char>(c)] = false;
  t['\t'] = true;
  return t;
}();

bool plain(char c) { return kPlain[static_cast<unsigned char>(c)]; }

// The `len`-byte UTF-8 character at s[i] is a C1 control, U+0080..U+009F
// (0xC2 0x9B is CSI, as ESC [ is).
bool is_c1(std::string_view s, std::size_t i, std::size_t len) {
  return len == 2 && static_cast<unsigned char>(s[i]) == 0xC2 &&
         static_cast<unsigned char>(s[i + 1]) <= 0x9F;
}

// Escapes s[i], which is not plain, into `out`; returns the bytes consumed.
std::size_t escape_one(std::string& out, std::string_view s, std::size_t i) {
  switch (s[i]) {
    case '&':
      out += "&amp;";
      return 1;
    case '<':
      out += "&lt;";
      return 1;
    case '>':
      out += "&gt;";
      return 1;
    case '"':
      out += "&quot;";
      return 1;
    case '\'':
      out += "&apos;";
      return 1;
    default:
      break;
  }
  std::size_t len = static_cast<unsigned char>(s[i]) >= 0x80 ? valid_utf8(s, i) : 0;
  if (len == 0 || is_c1(s, i, len)) {
    out += kReplacement;
    return std::max<std::size_t>(len, 1);
  }
  out.append(s.substr(i, len));
  return len;
}

}  // namespace

// Bytes in the UTF-8 sequence starting at s[i] if it is valid and a
// character XML allows, else 0.
std::size_t valid_utf8(std::string_view s, std::size_t i) {
  auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = at(i);
  std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
  if (c < 0xC2 || c > 0xF4 || i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k)
    if ((at(i + k) & 0xC0) != 0x80) return 0;
  unsigned char c1 = at(i + 1);
  if (c == 0xE0 && c1 < 0xA0) return 0;                        // overlong
  if (c == 0xED && c1 > 0x9F) return 0;                        // UTF-16 surrogate
  if (c == 0xF0 && c1 < 0x90) return 0;                        // overlong
  if (c == 0xF4 && c1 > 0x8F) return 0;                        // beyond U+10FFFF
  if (c == 0xEF && c1 == 0xBF && at(i + 2) >= 0xBE) return 0;  // U+FFFE, U+FFFF
  return len;
}

// Runs of plain bytes are copied whole: most frame names are all plain.
void append_escaped(std::string& out, std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t run = i;
    while (run < s.size() && plain(s[run])) ++run;
    out.append(s.data() + i, run - i);
    if (run < s.size()) run += escape_one(out, s, run);
    i = run;
  }
}

void append_escaped_lines(std::string& out, std::string_view s) {
  for (std::size_t start = 0; start <= s.size();) {
    std::size_t end = std::min(s.find('\n', start), s.size());
    append_escaped(out, s.substr(start, end - start));
    if (end < s.size()) out += '\n';
    start = end + 1;
  }
}

std::string escaped(std::string_view s) {
  std::string out;
  append_escaped(out, s);
  return out;
}

std::string escaped_lines(std::string_view s) {
  std::string out;
  append_escaped_lines(out, s);
  return out;
}

std::size_t escaped_size(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && plain(s[i])) ++i;
  if (i == s.size()) return s.size();
  std::string tail;
  append_escaped(tail, s.substr(i));
  return i + tail.size();
}

std::string terminal_safe(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      std::size_t len = valid_utf8(s, i);
      if (is_c1(s, i, len)) {
        out += fmt::format("\\u{:04x}", static_cast<unsigned char>(s[i + 1]));
      } else if (len > 0) {
        out.append(s.substr(i, len));
      } else {
        // Not UTF-8: a lone 0x80..0x9F is a C1 control to a terminal that
        // reads 8-bit controls; other bytes are text in some encoding.
        len = 1;
        if (c <= 0x9F)
          out += fmt::format("\\x{:02x}", c);
        else
          out += static_cast<char>(c);
      }
      i += len;
      continue;
    }
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F)
      out += fmt::format("\\x{:02x}", c);
    else
      out += static_cast<char>(c);
    ++i;
  }
  return out;
}

}  // namespace fscost
