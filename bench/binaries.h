// The fscost binaries themselves, end to end on the benchmark's profiles,
// beside another build's (bench/run --baseline): each command a process,
// the two builds interleaved round by round, wall time and peak RSS from
// wait4. The in-process stage rows time the library; these time what a
// user runs, so a baseline that predates a stage's name still compares.
#pragma once

#include <string>
#include <vector>

namespace fscost::bench {

struct BinaryCommand {
  std::string name;               // the row's name, e.g. "fscost diff -o"
  std::string input;              // what it reads, for the row
  std::vector<std::string> args;  // after the binary; "{out}" is a fresh output path
  double target_s = 0;            // 0: none
  double target_mb = 0;           // 0: none
};

struct BinaryOptions {
  std::string current;   // this build's fscost
  std::string baseline;  // another build's; "" = only the current one
  std::string scratch;   // directory for outputs, emptied per command
  std::string root;      // printed as DIR in the commands' list
  // The baseline reads its inputs here instead (paths under `root` moved):
  // the profiles in format version 2, which builds before format 3 read.
  std::string baseline_root;
  int rounds = 3;
};

// Prints a markdown table, one row per command.
void binary_rows(const BinaryOptions& o, const std::vector<BinaryCommand>& commands);

}  // namespace fscost::bench
