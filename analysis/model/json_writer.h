// A streaming JSON writer: compact output appended to a string, for the
// large documents (the diff's summary.json) that building one nlohmann DOM
// of made slow and memory-hungry (docs/DIFF.md, "JSON").
// nlohmann-json has no streaming writer (its SAX interface reads), so this
// one is written by hand; strings are escaped exactly as nlohmann's dump()
// with error_handler_t::replace (invalid UTF-8 becomes U+FFFD), and small
// nlohmann values can be embedded whole.
#pragma once

#include <concepts>
#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace fscost {

// nlohmann's dump() with invalid UTF-8 replaced by U+FFFD, as every fscost
// JSON output writes it: the strict default throws type_error 316, and one
// non-UTF-8 byte in an argv or a file name must not abort a run's output.
// `indent` as dump()'s: -1 compact.
// C1 controls (U+0080..U+009F: U+009B is CSI, as ESC [) are written as
// \u0080..\u009f, as nlohmann writes C0 ones: a frame or thread name that
// any user sets must not reach a terminal that shows the JSON as commands.
std::string dump_json(const nlohmann::json& v, int indent = -1);
std::string dump_json(const nlohmann::ordered_json& v, int indent = -1);

// Rewrites the C1 controls in `json`, dump() output (so valid UTF-8, where
// 0xC2 is always a lead byte), as \u0080..\u009f: what dump_json does.
void escape_c1(std::string& json);

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  // An object's key; the next call writes its value.
  void key(std::string_view k);

  void value(std::string_view s);
  void value(const char* s) { value(std::string_view(s)); }
  void value(const std::string& s) { value(std::string_view(s)); }
  // Non-finite numbers are null (JSON has neither NaN nor infinity), as
  // nlohmann writes them. Integral doubles keep a ".0", as nlohmann does.
  void value(double v);
  void value(bool v);
  void value(std::nullptr_t);
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  void value(T v) {
    if constexpr (std::signed_integral<T>)
      signed_value(v);
    else
      unsigned_value(v);
  }
  // A DOM value, dumped compact with invalid UTF-8 replaced.
  void value(const nlohmann::json& v);

  // key(k) then value(v).
  template <typename T>
  void member(std::string_view k, const T& v) {
    key(k);
    value(v);
  }

 private:
  void open(char c);
  void close(char c);
  void comma() {
    if (need_comma_) out_ += ',';
    need_comma_ = true;
  }
  void string(std::string_view s);
  void signed_value(long long v);
  void unsigned_value(unsigned long long v);

  std::string& out_;
  bool need_comma_ = false;  // a value came before, in the same object or array
};

}  // namespace fscost
