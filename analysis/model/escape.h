// XML escaping, shared by the flame graphs, the HTML reports and the
// comparison's charts: text and attribute values in every SVG and HTML page.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fscost {

// Appends `s` with &, <, >, " and ' escaped; control characters (C0 but
// tab, and C1: an SVG or a page may be printed to a terminal) and invalid
// UTF-8 become U+FFFD, which XML allows everywhere.
void append_escaped(std::string& out, std::string_view s);
// As append_escaped, but newlines stay: text for a <pre>, whose lines would
// otherwise run into one line of U+FFFD.
void append_escaped_lines(std::string& out, std::string_view s);
// The same, returned: for a page's text and attribute values.
std::string escaped(std::string_view s);
std::string escaped_lines(std::string_view s);
// The bytes append_escaped would add.
std::size_t escaped_size(std::string_view s);

// Text for a terminal: control characters other than newline and tab (ESC
// above all: a thread name or frame with escape sequences, from any user's
// process under -a, must not reach root's terminal as commands) and DEL
// become "\x1b"-style escapes, the C1 controls "\u009b" (U+0080..U+009F in
// UTF-8) or "\x9b" (a byte 0x80..0x9F outside any UTF-8 character, which a
// terminal reading 8-bit controls obeys); everything else stays, UTF-8 and
// other bytes alike.
std::string terminal_safe(std::string_view s);

// Bytes in the UTF-8 sequence starting at s[i] if it is valid and a
// character XML allows, else 0.
std::size_t valid_utf8(std::string_view s, std::size_t i);

}  // namespace fscost
