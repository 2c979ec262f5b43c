// Help text like perf's: `fscost record`, not the build path; an option's
// value named once (`-o, --output FILE`), its default in the description,
// none of CLI11's type and constraint notation. The man pages and the bash
// completion are generated from the same App tree (cli/docs_gen.cpp).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace fscost {

class HelpFormatter : public CLI::Formatter {
 public:
  HelpFormatter() { column_width(32); }
  std::string make_option_opts(const CLI::Option* opt) const override;
  std::string make_option_desc(const CLI::Option* opt) const override;
};

// A flag takes none.
inline bool takes_value(const CLI::Option* opt) { return opt->get_expected_max() > 0; }
// The value's name: the option_text given where it was declared, else the
// long name in capitals (--max-locks → MAX_LOCKS).
std::string metavar(const CLI::Option* opt);
// "(default: 997)", or "" when the option has no default worth showing.
std::string default_note(const CLI::Option* opt);
// The subcommands right under `app` that help shows; the hidden ones
// (group "") left out.
std::vector<const CLI::App*> shown_subcommands(const CLI::App* app);
// Every subcommand of `app` that is shown in help, nested ones after their
// parent.
std::vector<const CLI::App*> visible_subcommands(const CLI::App* app);

// "fscost bogus": exit 2 with the commands listed, as git and perf say it.
int unknown_command(const CLI::App& app, const std::string& word);

// The hidden `fscost generate-docs`: man pages and bash completion for the
// package (CMake runs it at build time).
void add_generate_docs(CLI::App& app, std::function<int()>& run);

}  // namespace fscost
