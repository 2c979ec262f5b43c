#include "model/json_writer.h"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

namespace fscost {

namespace {

// Bytes nlohmann writes unchanged: printable ASCII but the quote and the
// backslash. Frame names, the bulk of the strings, are all such bytes.
bool plain(std::string_view s) {
  for (unsigned char c : s)
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
  return true;
}

}  // namespace

void escape_c1(std::string& json) {
  std::size_t at = json.find('\xC2');
  if (at == std::string::npos) return;  // the common case: one scan, no copy
  std::string out(json, 0, at);
  for (std::size_t i = at; i < json.size(); ++i) {
    auto next = i + 1 < json.size() ? static_cast<unsigned char>(json[i + 1]) : 0;
    if (json[i] == '\xC2' && next >= 0x80 && next <= 0x9F) {
      constexpr std::string_view kHex = "0123456789abcdef";
      out += "\\u00";
      out += kHex[next >> 4];
      out += kHex[next & 0xF];
      ++i;
    } else {
      out += json[i];
    }
  }
  json = std::move(out);
}

std::string dump_json(const nlohmann::json& v, int indent) {
  std::string out = v.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
  escape_c1(out);
  return out;
}

std::string dump_json(const nlohmann::ordered_json& v, int indent) {
  std::string out = v.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  escape_c1(out);
  return out;
}

void JsonWriter::open(char c) {
  comma();
  out_ += c;
  need_comma_ = false;
}

void JsonWriter::close(char c) {
  out_ += c;
  need_comma_ = true;
}

void JsonWriter::string(std::string_view s) {
  if (plain(s)) {
    out_ += '"';
    out_ += s;
    out_ += '"';
    return;
  }
  // Escapes, UTF-8 and its errors: nlohmann's own serializer, so the bytes
  // are the ones dump(..., error_handler_t::replace) always wrote, C1
  // controls escaped.
  out_ += dump_json(nlohmann::json(std::string(s)));
}

void JsonWriter::key(std::string_view k) {
  comma();
  string(k);
  out_ += ':';
  need_comma_ = false;
}

void JsonWriter::value(std::string_view s) {
  comma();
  string(s);
}

void JsonWriter::value(double v) {
  comma();
  if (!std::isfinite(v)) {
    out_ += "null";
    return;
  }
  // The shortest text that reads back as the same double.
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string_view text(buf, static_cast<std::size_t>(end - buf));
  out_ += text;
  if (text.find_first_of(".e") == std::string_view::npos) out_ += ".0";
}

void JsonWriter::value(bool v) {
  comma();
  out_ += v ? "true" : "false";
}

void JsonWriter::value(std::nullptr_t) {
  comma();
  out_ += "null";
}

void JsonWriter::value(const nlohmann::json& v) {
  comma();
  out_ += dump_json(v);
}

void JsonWriter::signed_value(long long v) {
  comma();
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, end);
}

void JsonWriter::unsigned_value(unsigned long long v) {
  comma();
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, end);
}

}  // namespace fscost
