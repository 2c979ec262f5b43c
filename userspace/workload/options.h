// fscost-workload's command line: what to run, how many threads, where.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace fscost::workload {

enum class Mode { Create, Mixed, Random, Remove, OpenClose };
enum class Dirs { Shared, Private };

struct Options {
  std::string dir;
  Mode mode = Mode::Mixed;
  long files = 1000;  // per thread: files (create, remove), iterations or ops (the others)
  int threads = 1;
  Dirs dirs = Dirs::Private;  // default depends on the mode, see parse()
  long files_per_dir = 0;     // 0: no subdirectories
  std::size_t write_bytes = 0;
  bool fsync = false;
  bool syncfs = false;  // after the timed phase, syncfs(DIR): the run's writeback in the run
  std::uint64_t seed = 1;
  bool quiet = false;
};

const char* mode_name(Mode m);
const char* dirs_name(Dirs d);

// Parses argv; bad options print the usage to stderr and exit 2, --help
// prints it to stdout and exits 0.
Options parse_options(int argc, char** argv);

}  // namespace fscost::workload
