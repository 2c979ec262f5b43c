#include "binaries.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>

#include "stages.h"

namespace fs = std::filesystem;

namespace fscost::bench {
namespace {

struct Run {
  double seconds = 0;
  double peak_mb = 0;
};

// `exe args...` with stdout and stderr discarded; throws if it fails.
Run run_command(const std::string& exe, const std::vector<std::string>& args) {
  std::vector<char*> argv{const_cast<char*>(exe.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  while (wait4(pid, &status, 0, &ru) < 0)
    if (errno != EINTR) throw std::runtime_error("wait4 failed");
  std::chrono::duration<double> d = std::chrono::steady_clock::now() - t0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string cmd = exe;
    for (const auto& a : args) cmd += " " + a;
    throw std::runtime_error("failed: " + cmd);
  }
  return {d.count(), ru.ru_maxrss / 1024.0};
}

std::string list(const std::vector<Run>& runs) {
  std::string s;
  for (const auto& r : runs) s += fmt::format("{:.3f} ", r.seconds);
  return s;
}

double peak(const std::vector<Run>& runs) {
  double m = 0;
  for (const auto& r : runs) m = std::max(m, r.peak_mb);
  return m;
}

std::vector<double> seconds(const std::vector<Run>& runs) {
  std::vector<double> v;
  for (const auto& r : runs) v.push_back(r.seconds);
  return v;
}

std::string verdict(const BinaryCommand& c, double s, double mb) {
  std::vector<std::string> parts;
  if (c.target_s > 0)
    parts.push_back(fmt::format("≤ {} s{}", c.target_s, s <= c.target_s ? " met" : " **missed**"));
  if (c.target_mb > 0)
    parts.push_back(
        fmt::format("≤ {} MB{}", c.target_mb, mb <= c.target_mb ? " met" : " **missed**"));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out.empty() ? "–" : out;
}

}  // namespace

void binary_rows(const BinaryOptions& o, const std::vector<BinaryCommand>& commands) {
  bool paired = !o.baseline.empty();
  fmt::print(
      "The fscost binaries end to end (each command a process{}, {} rounds; wall s, "
      "peak RSS from wait4):\n\n",
      paired ? ", the baseline build interleaved with this one" : "", o.rounds);
  fmt::print("| command | input | s (median) | runs | peak MB |{} target |\n",
             paired ? " baseline s (median) | runs | peak MB | ÷ baseline (paired) |" : "");
  fmt::print("|---|---|---|---|---|{}---|\n", paired ? "---|---|---|---|" : "");
  for (const auto& exe : {o.current, o.baseline}) {
    if (exe.empty() || access(exe.c_str(), X_OK) == 0) continue;
    fmt::print("| – | – | – | – | – |{} not run: no fscost binary at {} |\n\n",
               paired ? " – | – | – | – |" : "", exe);
    return;
  }
  for (const auto& c : commands) {
    std::vector<Run> ours, theirs;
    std::vector<double> ratios;
    auto once = [&](bool baseline) {
      fs::remove_all(o.scratch);
      fs::create_directories(o.scratch);
      std::vector<std::string> args;
      for (const auto& a : c.args) {
        fs::path under = fs::path(a).lexically_relative(o.root);
        if (a == "{out}")
          args.push_back(o.scratch + "/out");
        else if (baseline && !o.baseline_root.empty() && !under.empty() && *under.begin() != "..")
          args.push_back((fs::path(o.baseline_root) / under).string());
        else
          args.push_back(a);
      }
      return run_command(baseline ? o.baseline : o.current, args);
    };
    for (int r = 0; r < o.rounds; ++r) {
      // Alternate which build goes first, so neither always runs on a warm cache.
      if (paired && r % 2) theirs.push_back(once(true));
      ours.push_back(once(false));
      if (paired && !(r % 2)) theirs.push_back(once(true));
      if (paired) ratios.push_back(ours.back().seconds / theirs.back().seconds);
    }
    double s = median(seconds(ours));
    std::string base;
    if (paired)
      base = fmt::format(" {:.3f} | {}| {:.0f} | {:.3f}× |", median(seconds(theirs)), list(theirs),
                         peak(theirs), median(ratios));
    fmt::print("| {} | {} | {:.3f} | {}| {:.0f} |{} {} |\n", c.name, c.input, s, list(ours),
               peak(ours), base, verdict(c, s, peak(ours)));
  }
  fs::remove_all(o.scratch);
  fmt::print("\ncommands (after the binary; OUT a fresh path each run):\n\n");
  for (const auto& c : commands) {
    std::string line;
    for (auto a : c.args) {
      if (a == "{out}") a = "OUT";
      if (!o.root.empty() && a.starts_with(o.root)) a = "DIR" + a.substr(o.root.size());
      line += (line.empty() ? "" : " ") + a;
    }
    fmt::print("- {}: `fscost {}`\n", c.name, line);
  }
  fmt::print("\n");
}

}  // namespace fscost::bench
