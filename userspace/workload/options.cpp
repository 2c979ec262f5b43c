// Hand-rolled parsing: the workload links nothing beyond libc/libstdc++ so
// that its own user-space cost stays negligible and easy to account for.
#include "options.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace fscost::workload {
namespace {

constexpr const char* kUsage =
    "usage: fscost-workload DIR [--workload create|mixed|random|remove|openclose]\n"
    "         [--files N] [--threads T] [--dirs shared|private] [--files-per-dir N]\n"
    "         [--write BYTES] [--fsync] [--syncfs] [--seed S] [--quiet]\n"
    "  --workload, --mode   what each thread does (default mixed; docs/WORKLOAD.md)\n"
    "  --files, --n         files, iterations or ops per thread (default 1000)\n"
    "  --threads            worker threads (default 1)\n"
    "  --dirs               one directory for all threads or one each (default: shared for\n"
    "                       create, remove, openclose; private for mixed, random)\n"
    "  --private-dirs       same as --dirs private\n"
    "  --files-per-dir      create/remove: roll over to a new subdirectory d0000, d0001, ...\n"
    "                       every N files (0: none, the default)\n"
    "  --write              bytes written to each new file (random: per write op, default 4096)\n"
    "  --fsync              create: fsync each file before closing it\n"
    "  --syncfs             after the timed phase, syncfs(DIR): writeback and log\n"
    "                       pushes the run caused, inside the run (not timed)\n"
    "  --seed               random: seed of the op sequence (default 1)\n"
    "  --quiet              no JSON result line\n";

[[noreturn]] void usage(const std::string& msg) {
  std::fprintf(stderr, "fscost-workload: %s\n%s", msg.c_str(), kUsage);
  std::exit(2);
}

long long number(const std::string& flag, const char* s, long long min) {
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s, &end, 10);
  if (errno || end == s || *end || v < min)
    usage("bad value for " + flag + ": " + s + " (an integer >= " + std::to_string(min) + ")");
  return v;
}

std::optional<Mode> mode_from(const std::string& s) {
  for (Mode m : {Mode::Create, Mode::Mixed, Mode::Random, Mode::Remove, Mode::OpenClose})
    if (s == mode_name(m)) return m;
  return std::nullopt;
}

struct Parser {
  Options o;
  bool dirs_given = false;

  // Applies the option at argv[i] (and its value); returns false if unknown.
  bool flag(const std::string& a, int& i, int argc, char** argv) {
    if (a == "--fsync") return o.fsync = true;
    if (a == "--syncfs") return o.syncfs = true;
    if (a == "--quiet") return o.quiet = true;
    if (a == "--private-dirs") return set_dirs("private");
    bool takes_value = a == "--workload" || a == "--mode" || a == "--files" || a == "--n" ||
                       a == "--threads" || a == "--dirs" || a == "--files-per-dir" ||
                       a == "--write" || a == "--seed";
    if (!takes_value) return false;
    if (i + 1 >= argc) usage("missing value for " + a);
    const char* v = argv[++i];
    if (a == "--workload" || a == "--mode") {
      auto m = mode_from(v);
      if (!m) usage(std::string("unknown workload: ") + v);
      o.mode = *m;
    } else if (a == "--files" || a == "--n") {
      o.files = long(number(a, v, 1));
    } else if (a == "--threads") {
      o.threads = int(number(a, v, 1));
      if (o.threads > 4096) usage("--threads: at most 4096");
    } else if (a == "--dirs") {
      set_dirs(v);
    } else if (a == "--files-per-dir") {
      o.files_per_dir = long(number(a, v, 0));
    } else if (a == "--write") {
      o.write_bytes = std::size_t(number(a, v, 0));
      if (o.write_bytes > (64u << 20)) usage("--write: at most 64 MiB");
    } else {
      o.seed = std::uint64_t(number(a, v, 0));
    }
    return true;
  }

  bool set_dirs(const std::string& v) {
    if (v == "shared")
      o.dirs = Dirs::Shared;
    else if (v == "private")
      o.dirs = Dirs::Private;
    else
      usage("--dirs: shared or private, not " + v);
    return dirs_given = true;
  }
};

}  // namespace

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::Create:
      return "create";
    case Mode::Mixed:
      return "mixed";
    case Mode::Random:
      return "random";
    case Mode::Remove:
      return "remove";
    case Mode::OpenClose:
      return "openclose";
  }
  return "?";
}

const char* dirs_name(Dirs d) { return d == Dirs::Shared ? "shared" : "private"; }

Options parse_options(int argc, char** argv) {
  Parser p;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (p.flag(a, i, argc, argv)) continue;
    if (a.rfind("-", 0) == 0 || !p.o.dir.empty()) usage("unexpected argument: " + a);
    p.o.dir = a;
  }
  Options& o = p.o;
  if (o.dir.empty()) usage("missing DIR");
  // fsops's defaults: create and openclose contend in one directory, mixed
  // works in one directory per thread.
  if (!p.dirs_given)
    o.dirs = (o.mode == Mode::Mixed || o.mode == Mode::Random) ? Dirs::Private : Dirs::Shared;
  if (o.files_per_dir > 0 && o.mode != Mode::Create && o.mode != Mode::Remove)
    usage("--files-per-dir applies to the create and remove workloads");
  if (o.fsync && o.mode != Mode::Create)
    usage("--fsync applies to the create workload (mixed always fsyncs, random has fsync ops)");
  if (o.write_bytes > 0 && o.mode == Mode::OpenClose)
    usage("--write does not apply to the openclose workload");
  return o;
}

}  // namespace fscost::workload
