// fscost's help and usage errors as a user meets them (cli/help_format.h):
// every command's --help names `fscost CMD` and is free of CLI11's type
// notation; an unknown command lists the commands; usage errors exit 2.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

namespace {

struct Outcome {
  int status = -1;
  std::string out;  // stdout and stderr
};

Outcome run(const std::string& args) {
  Outcome r;
  std::string cmd = std::string(FSCOST_BIN) + " " + args + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return r;
  std::array<char, 4096> buf;
  while (std::size_t n = fread(buf.data(), 1, buf.size(), f)) r.out.append(buf.data(), n);
  int st = pclose(f);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

const std::vector<std::string> kCommands = {
    "record",        "report",        "flamegraph",   "features", "import",
    "import folded", "import pprof",  "import perf-script",       "convert", "cleanup",
    "html",          "diff",          "compare",      "calibrate"};

TEST(CliHelp, EveryCommandsHelpIsPlain) {
  for (const auto& c : kCommands) {
    Outcome r = run(c + " --help");
    EXPECT_EQ(r.status, 0) << c;
    EXPECT_NE(r.out.find("Usage: fscost " + c), std::string::npos) << r.out;
    for (const char* noise : {"UINT", "INT:", "TEXT", "FLOAT", "Excludes:", "Needs:", " in [",
                              "REQUIRED", ":POSITIVE", ":{"})
      EXPECT_EQ(r.out.find(noise), std::string::npos) << c << " help shows '" << noise << "':\n" << r.out;
  }
}

TEST(CliHelp, DefaultsAndProbeGroupsAreShown) {
  Outcome r = run("record --help");
  EXPECT_NE(r.out.find("-F,--freq HZ"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(default: 997)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("offcpu,wakers,locks,xfs,xfsbuf,block"), std::string::npos) << r.out;
}

TEST(CliHelp, UnknownCommandListsTheCommands) {
  Outcome r = run("bogus");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("fscost: unknown command 'bogus'"), std::string::npos) << r.out;
  for (const char* c : {"record", "report", "diff", "compare", "convert"})
    EXPECT_NE(r.out.find(std::string("   ") + c), std::string::npos) << r.out;
}

TEST(CliHelp, UsageErrorsExitTwoWithAHint) {
  Outcome r = run("report --no-such-option x");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("hint: see 'fscost report --help'"), std::string::npos) << r.out;
  EXPECT_EQ(run("record -F 0 -- true").status, 2);
  EXPECT_EQ(run("").status, 2);
  EXPECT_EQ(run("--version").status, 0);
}

}  // namespace
