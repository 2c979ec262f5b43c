// The runs of one configuration: a profile file, or a directory of them.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <system_error>

#include "diff/diff.h"
#include "io/profile_io.h"
#include "model/parallel.h"

namespace fs = std::filesystem;

namespace fscost {

namespace {

// *.profile regular files directly in `dir`, sorted by name.
Result<std::vector<std::string>> profiles_in(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (it->path().extension() == ".profile" && it->is_regular_file(type_ec))
      files.push_back(it->path().string());
  }
  if (ec)
    return Error{fmt::format("{}: cannot list the directory: {}", dir, ec.message()),
                 "check the path and its permissions"};
  if (files.empty())
    return Error{fmt::format("{}: no *.profile files in the directory", dir),
                 "record each run with `fscost record -o DIR/runN.profile ...`, or name a "
                 "profile file"};
  if (files.size() > kMaxRunsPerSide)
    return Error{fmt::format("{}: {} *.profile files; fscost diff takes at most {} runs a side",
                             dir, files.size(), kMaxRunsPerSide),
                 "move some runs to another directory (a few dozen runs are plenty for the "
                 "tests), or diff subsets"};
  std::sort(files.begin(), files.end());
  return files;
}

Result<std::vector<std::string>> run_files(const std::string& path) {
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st))
    return Error{fmt::format("{}: no such file or directory", path),
                 "give a profile file, or a directory of *.profile files (one per run)"};
  if (fs::is_directory(st)) return profiles_in(path);
  return std::vector<std::string>{path};
}

}  // namespace

Result<RunSet> load_runs(const std::string& path, const std::string& label) {
  auto files = run_files(path);
  if (!files) return files.error();
  // The files are independent and reading is most of a diff's time on
  // large runs: read them in parallel (frames intern under a lock, ordered
  // by text, so the result does not depend on which thread read what).
  const auto& names = files.value();
  std::vector<std::optional<Result<Profile>>> read(names.size());
  parallel_for(names.size(), [&](std::size_t i) { read[i].emplace(read_profile(names[i])); });
  release_profile_parser();  // the workers' went with their threads; this is the caller's
  RunSet set;
  set.label = label.empty() ? path : label;
  for (std::size_t i = 0; i < names.size(); ++i) {
    Result<Profile>& p = *read[i];
    if (!p) return p.error();  // read_profile's message names the file; the first in order
    set.runs.push_back(std::move(p).value());
    set.sources.push_back(names[i]);
  }
  return set;
}

}  // namespace fscost
