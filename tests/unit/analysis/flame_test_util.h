// Helpers for the flame graph tests: reading frames back out of an SVG and
// checking that it is well-formed XML. Header-only.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace fscost::test {

struct SvgFrame {
  std::string cls;    // class of the frame's <g>, "" if none
  std::string title;  // tooltip, still XML-escaped
  double x = 0, y = 0, w = 0;
  std::string fill;
  std::optional<std::string> label;
};

// Frames in document order (pre-order: "all" first).
inline std::vector<SvgFrame> svg_frames(const std::string& svg) {
  static const std::regex frame_re(
      R"re(<g(?: class="([^"]*)")?><title>([^<]*)</title><rect x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="[0-9]+" rx="2" fill="([^"]*)"/>(?:<text[^>]*>([^<]*)</text>)?</g>)re");
  std::vector<SvgFrame> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), frame_re);
       it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    SvgFrame f{m[1], m[2], std::stod(m[3]), std::stod(m[4]), std::stod(m[5]), m[6], std::nullopt};
    if (m[7].matched) f.label = m[7];
    out.push_back(f);
  }
  return out;
}

// The frame whose tooltip starts with "NAME (", at the given depth-ordered
// occurrence; fails the test if there is none.
inline SvgFrame svg_frame(const std::string& svg, const std::string& name, std::size_t nth = 0) {
  for (const auto& f : svg_frames(svg))
    if (f.title.rfind(name + " (", 0) == 0 && nth-- == 0) return f;
  ADD_FAILURE() << "no frame " << name;
  return {};
}

// A small XML well-formedness check: every tag closed in order, attribute
// values quoted, and text and attribute values free of bare '<', '>' and
// '&' (entities and CDATA sections allowed). Returns "" or the problem.
inline std::string xml_problem(const std::string& doc) {
  std::vector<std::string> open;
  auto check_chars = [](std::string_view s) -> std::string {
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '<' || s[i] == '>')
        return "bare '" + std::string(1, s[i]) + "' in " + std::string(s);
      if (s[i] == '&') {
        static const std::regex entity("^&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);");
        std::string rest(s.substr(i, 12));
        if (!std::regex_search(rest, entity)) return "bare '&' in " + std::string(s);
      }
    }
    return {};
  };
  std::size_t i = 0;
  while (i < doc.size()) {
    std::size_t lt = doc.find('<', i);
    if (auto p = check_chars(std::string_view(doc).substr(i, lt - i)); !p.empty()) return p;
    if (lt == std::string::npos) break;
    auto skip_to = [&](const char* end) {
      std::size_t e = doc.find(end, lt);
      return e == std::string::npos ? e : e + std::strlen(end);
    };
    std::size_t next;
    if (doc.compare(lt, 9, "<![CDATA[") == 0) {
      next = skip_to("]]>");
    } else if (doc.compare(lt, 4, "<!--") == 0) {
      next = skip_to("-->");
    } else if (doc.compare(lt, 2, "<?") == 0) {
      next = skip_to("?>");
    } else {
      std::size_t gt = lt + 1;
      char quote = 0;
      for (; gt < doc.size(); ++gt) {
        if (quote) {
          if (doc[gt] == quote)
            quote = 0;
          else if (doc[gt] == '<')
            return "bare '<' in an attribute value near " + doc.substr(lt, 60);
        } else if (doc[gt] == '"' || doc[gt] == '\'') {
          quote = doc[gt];
        } else if (doc[gt] == '>') {
          break;
        }
      }
      if (gt >= doc.size()) return "unterminated tag " + doc.substr(lt, 60);
      std::string tag = doc.substr(lt + 1, gt - lt - 1);
      static const std::regex attrs(R"re(^/?[A-Za-z][-\w:.]*(\s+[-\w:.]+="[^"]*")*\s*/?$)re");
      if (!std::regex_match(tag, attrs)) return "malformed tag <" + tag + ">";
      std::string name =
          tag.substr(tag[0] == '/', tag.find_first_of(" \t\n/", 1) - (tag[0] == '/'));
      if (tag[0] == '/') {
        if (open.empty() || open.back() != name)
          return "</" + name + "> closes " + (open.empty() ? "nothing" : "<" + open.back() + ">");
        open.pop_back();
      } else if (tag.back() != '/') {
        open.push_back(name);
      }
      // Attribute values: entities only.
      static const std::regex value(R"re("([^"]*)")re");
      for (auto it = std::sregex_iterator(tag.begin(), tag.end(), value);
           it != std::sregex_iterator(); ++it)
        if (auto p = check_chars((*it)[1].str()); !p.empty()) return p;
      next = gt + 1;
    }
    if (next == std::string::npos) return "unterminated markup " + doc.substr(lt, 40);
    i = next;
  }
  if (!open.empty()) return "unclosed <" + open.back() + ">";
  return {};
}

// The SVG without the embedded script body, for golden files that should
// not change with every edit of flamegraph.js (one test checks the script
// is embedded verbatim instead).
inline std::string without_script(std::string svg) {
  std::size_t start = svg.find("<script");
  if (start == std::string::npos) return svg;
  start = svg.find("<![CDATA[", start);
  std::size_t end = svg.find("]]></script>", start);
  if (start == std::string::npos || end == std::string::npos) return svg;
  start += 9;
  return svg.replace(start, end - start, "\n/* analysis/assets/flamegraph.js */\n");
}

}  // namespace fscost::test
