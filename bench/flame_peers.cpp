#include "flame_peers.h"
#include "stages.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "io/profile_io.h"
#include "report/report.h"

namespace fs = std::filesystem;

namespace fscost::bench {

namespace {

// Wall seconds of `cmd` under /bin/sh; throws if it fails.
double run_seconds(const std::string& cmd) {
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) throw std::runtime_error("waitpid failed");
  std::chrono::duration<double> d = std::chrono::steady_clock::now() - t0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("failed: " + cmd);
  return d.count();
}

std::string sh_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string folded_of(const std::string& profile, const fs::path& out) {
  Profile p = take(read_profile(profile));
  std::string text = render_folded(p, ReportOptions{});
  std::ofstream f(out, std::ios::binary);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + out.string());
  return out.string();
}

struct Pair {
  std::string name, input;
  std::string peer, ours;  // commands
  double target;           // FlameGraph ÷ fscost at least
  std::vector<double> peer_s, ours_s;
};

std::string runs(const std::vector<double>& v) {
  std::string s;
  for (double x : v) s += fmt::format("{:.3f} ", x);
  return s;
}

// Why the rows cannot run here, or "".
std::string missing(const PeerOptions& o) {
  if (o.flamegraph_dir.empty())
    return "no FlameGraph directory given (--flamegraph-dir DIR or FLAMEGRAPH_DIR, a clone of "
           "github.com/brendangregg/FlameGraph)";
  for (const char* s : {"flamegraph.pl", "difffolded.pl"})
    if (!fs::exists(fs::path(o.flamegraph_dir) / s))
      return fmt::format("no {} in {}", s, o.flamegraph_dir);
  if (access(o.fscost.c_str(), X_OK) != 0) return fmt::format("no fscost binary at {}", o.fscost);
  return "";
}

}  // namespace

void flame_peer_rows(const PeerOptions& o, const PeerShape& shape, const std::string& a,
                     const std::string& b, const std::string& dir) {
  fmt::print(
      "Flame graphs against FlameGraph's scripts, {} (wall s, each command a process, "
      "interleaved, {} rounds; targets ≥ {}× for one graph, ≥ {}× for the "
      "differential):\n\n",
      shape.name, o.rounds, shape.single, shape.diff);
  fmt::print("| comparison | input | FlameGraph s (median) | runs | fscost s (median) | runs | "
             "FlameGraph ÷ fscost |\n|---|---|---|---|---|---|---|\n");
  if (auto why = missing(o); !why.empty()) {
    fmt::print("| flamegraph.pl, difffolded.pl -n \\| flamegraph.pl | – | – | – | – | – | not "
               "run: {} |\n\n",
               why);
    return;
  }
  fs::path d(dir);
  std::string fa = folded_of(a, d / "a.folded"), fb = folded_of(b, d / "b.folded");
  std::string pl = "perl " + sh_quoted((fs::path(o.flamegraph_dir) / "flamegraph.pl").string());
  std::string diffpl = "perl " + sh_quoted((fs::path(o.flamegraph_dir) / "difffolded.pl").string());
  std::string fscost = sh_quoted(o.fscost) + " flamegraph -q";
  auto svg = [&](const char* name) { return sh_quoted((d / name).string()); };
  std::string one = fmt::format("A, {:.1f} MB folded", fs::file_size(fa) / 1e6);
  std::string two = fmt::format("A and B, {:.1f} + {:.1f} MB folded", fs::file_size(fa) / 1e6,
                                fs::file_size(fb) / 1e6);
  std::string peer_one = fmt::format("{} {} > {}", pl, sh_quoted(fa), svg("pl.svg"));
  std::string peer_two = fmt::format("{} -n {} {} | {} > {}", diffpl, sh_quoted(fa), sh_quoted(fb), pl,
                                     svg("pl-diff.svg"));
  std::vector<Pair> pairs = {
      {"flamegraph.pl ÷ fscost flamegraph, folded", one, peer_one,
       fmt::format("{} {} -o {}", fscost, sh_quoted(fa), svg("fs.svg")), shape.single, {}, {}},
      {"flamegraph.pl (folded) ÷ fscost flamegraph, profile", "A: the profile beside its folded",
       peer_one, fmt::format("{} {} -o {}", fscost, sh_quoted(a), svg("fs-profile.svg")),
       shape.single, {}, {}},
      {"difffolded.pl -n \\| flamegraph.pl ÷ fscost flamegraph --diff, folded", two, peer_two,
       fmt::format("{} --diff {} {} -o {}", fscost, sh_quoted(fa), sh_quoted(fb), svg("fs-diff.svg")),
       shape.diff, {}, {}},
      {"difffolded.pl -n \\| flamegraph.pl (folded) ÷ fscost flamegraph --diff, profiles",
       "A and B: the profiles beside their folded", peer_two,
       fmt::format("{} --diff {} {} -o {}", fscost, sh_quoted(a), sh_quoted(b), svg("fs-diff-profile.svg")),
       shape.diff, {}, {}},
  };
  // The peer's command is shared by two rows: run once a round, for both.
  for (int r = 0; r < o.rounds; ++r) {
    double single = run_seconds(peer_one), diff = run_seconds(peer_two);
    for (auto& p : pairs) {
      p.peer_s.push_back(p.peer == peer_one ? single : diff);
      p.ours_s.push_back(run_seconds(p.ours));
    }
  }
  for (const auto& p : pairs) {
    double peer = median(p.peer_s), ours = median(p.ours_s);
    fmt::print("| {} | {} | {:.3f} | {}| {:.3f} | {}| {:.1f}× (≥ {:.0f}×{}) |\n", p.name, p.input,
               peer, runs(p.peer_s), ours, runs(p.ours_s), peer / ours, p.target,
               peer / ours >= p.target ? " met" : " **missed**");
  }
  fmt::print("\ncommands, for the last row of each kind:\n\n");
  for (const auto& p : pairs) fmt::print("- `{}`\n  against `{}`\n", p.peer, p.ours);
  fmt::print("\n");
}

}  // namespace fscost::bench
