// One function per `fscost` subcommand; main.cpp is the table that parses
// options into these argument structs.
#pragma once

#include <sys/types.h>

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "collector/collector.h"

namespace fscost {

struct RecordArgs {
  std::string output = "fscost.profile";
  bool all = false;
  pid_t pid = 0;
  std::optional<double> duration_s;
  std::vector<std::string> command;
  std::string probes = "default";  // --probes, parsed into collector.groups
  std::string fs_dir;  // --fs: the test filesystem (XFS events, device writes by kind)
  bool sync_fs = false;  // --sync: syncfs(--fs) inside the recording after the command
  bool quiet = false;    // -q: no progress line, no summary unless something was dropped
  bool keep_addresses = false;  // --keep-addresses: lock addresses in the profile (not ids)
  CollectorConfig collector;
};

struct ReportArgs {
  std::string file;
  std::string format = "text";
  std::string view = "oncpu";
  std::optional<std::string> op;
  std::size_t top = 5;
};

int cmd_record(const RecordArgs& args);
int cmd_report(const ReportArgs& args);
int cmd_features();
// fscost cleanup (cli/cmd_cleanup.cpp).
void add_cleanup(CLI::App& app, std::function<int()>& run);

}  // namespace fscost
