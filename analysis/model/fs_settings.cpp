// Parsing of mkfs.xfs/xfs_info geometry and mount options (fs_settings.h).
#include "model/fs_settings.h"

#include <cctype>
#include <map>
#include <sstream>

namespace fscost {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool is_section(std::string_view word) {
  for (std::string_view s : {"meta-data", "data", "naming", "log", "realtime"})
    if (word == s) return true;
  return false;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    auto at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

// mkfs.xfs option letter → the geometry sections its suboptions print in.
const std::map<char, std::vector<std::string_view>>& option_sections() {
  static const std::map<char, std::vector<std::string_view>> m = {
      {'b', {"data"}},      {'d', {"meta-data", "data"}}, {'i', {"meta-data"}},
      {'m', {"meta-data"}}, {'n', {"naming"}},            {'l', {"log"}},
      {'r', {"realtime"}},  {'s', {"meta-data", "log"}}};
  return m;
}

// Suboptions printed under another name.
std::string_view printed_as(char option, std::string_view sub) {
  if (sub == "size") {
    switch (option) {
      case 'i': return "isize";
      case 'b': case 'n': return "bsize";
      case 'l': case 'd': case 'r': return "blocks";
      case 's': return "sectsz";
    }
  }
  if (option == 'd' && (sub == "su" || sub == "sunit")) return "sunit";
  if (option == 'd' && (sub == "sw" || sub == "swidth")) return "swidth";
  if (option == 'r' && sub == "extsize") return "extsz";
  if (option == 'l' && sub == "lazy-count") return "lazy-count";
  return sub;
}

}  // namespace

Settings parse_xfs_geometry(std::string_view text) {
  Settings out;
  std::string section;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string_view head = trim(std::string_view(line).substr(0, eq));
    if (is_section(head))
      section = head;
    else if (!head.empty() || section.empty())
      continue;  // not a line of the geometry block
    std::string_view rest = std::string_view(line).substr(eq + 1);
    // The section's own value runs up to the first key=value token.
    std::istringstream ws{std::string(rest)};
    std::vector<std::string> tokens;
    for (std::string w; ws >> w;) tokens.push_back(w);
    std::string own;
    std::size_t i = 0;
    for (; i < tokens.size() && tokens[i].find('=') == std::string::npos; ++i)
      own += (own.empty() ? "" : " ") + tokens[i];
    if (!head.empty() && !own.empty() && section != "meta-data") out.emplace_back(section, own);
    for (; i < tokens.size(); ++i) {
      std::string t = tokens[i];
      if (!t.empty() && t.back() == ',') t.pop_back();
      auto at = t.find('=');
      if (at == std::string::npos || at == 0) continue;  // a unit ("blks")
      out.emplace_back(section + "." + t.substr(0, at), t.substr(at + 1));
    }
  }
  return out;
}

Settings parse_mount_options(std::string_view options) {
  Settings out;
  for (std::string_view o : split(trim(options), ',')) {
    if (o.empty()) continue;
    auto at = o.find('=');
    out.emplace_back("mount." + std::string(o.substr(0, at)),
                     at == std::string_view::npos ? "" : std::string(o.substr(at + 1)));
  }
  return out;
}

std::set<std::string> asked_settings(std::string_view mkfs_command,
                                     std::string_view mount_options) {
  std::set<std::string> out;
  std::istringstream in{std::string(mkfs_command)};
  std::vector<std::string> args;
  for (std::string a; in >> a;) args.push_back(a);
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() != 2 || a[0] != '-') continue;
    auto sections = option_sections().find(a[1]);
    if (sections == option_sections().end()) continue;
    for (std::string_view sub : split(args[i + 1], ',')) {
      std::string_view name = sub.substr(0, sub.find('='));
      if (name.empty()) continue;
      for (std::string_view s : sections->second)
        out.insert(std::string(s) + "." + std::string(printed_as(a[1], name)));
    }
    ++i;
  }
  for (const auto& [name, value] : parse_mount_options(mount_options)) out.insert(name);
  return out;
}

}  // namespace fscost
