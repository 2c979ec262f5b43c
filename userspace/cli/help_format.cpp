#include "cli/help_format.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdio>

namespace fscost {

std::string metavar(const CLI::Option* opt) {
  if (!opt->get_option_text().empty()) return opt->get_option_text();
  std::string name = opt->get_lnames().empty() ? opt->get_name(false, true) : opt->get_lnames()[0];
  // perf's habits for the common kinds of value.
  if (name == "output") return "FILE";
  if (name == "freq") return "HZ";
  if (name == "duration") return "SECONDS";
  if (name.starts_with("max-") || name.ends_with("-size")) return "N";
  for (char& c : name) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

std::string default_note(const CLI::Option* opt) {
  const std::string& d = opt->get_default_str();
  if (!takes_value(opt) || d.empty() || d == "[]") return "";
  return fmt::format("(default: {})", d);
}

std::string HelpFormatter::make_option_opts(const CLI::Option* opt) const {
  if (!takes_value(opt)) return "";
  if (opt->get_positional()) return opt->get_expected_max() > 1 ? " ..." : "";
  std::string out = " " + metavar(opt);
  if (opt->get_expected_max() > 1) out += " ...";
  return out;
}

std::string HelpFormatter::make_option_desc(const CLI::Option* opt) const {
  std::string desc = opt->get_description();
  if (auto d = default_note(opt); !d.empty()) desc += (desc.empty() ? "" : " ") + d;
  if (opt->get_required() && !opt->get_positional()) desc += " (required)";
  return desc;
}

std::vector<const CLI::App*> shown_subcommands(const CLI::App* app) {
  return app->get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); });
}

std::vector<const CLI::App*> visible_subcommands(const CLI::App* app) {
  std::vector<const CLI::App*> out;
  for (const CLI::App* sub : shown_subcommands(app)) {
    out.push_back(sub);
    for (const CLI::App* nested : visible_subcommands(sub)) out.push_back(nested);
  }
  return out;
}

int unknown_command(const CLI::App& app, const std::string& word) {
  fmt::print(stderr, "fscost: unknown command '{}'\n\nThe commands are:\n", word);
  for (const CLI::App* sub : shown_subcommands(&app))
    fmt::print(stderr, "   {:<12} {}\n", sub->get_name(), sub->get_description());
  fmt::print(stderr, "\nSee 'fscost COMMAND --help' for a command's options.\n");
  return 2;
}

}  // namespace fscost
