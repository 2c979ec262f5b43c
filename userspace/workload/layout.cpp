#include "layout.h"

#include <fcntl.h>

#include <string>

#include "names.h"

namespace fscost::workload {
namespace {

Dir make_dir(const Dir& parent, const std::string& name, Counts& c) {
  mkdir_name(parent, name.c_str(), c);
  Dir d{open_file(parent, name.c_str(), O_RDONLY | O_DIRECTORY, c), parent.path + "/" + name};
  return d;
}

long subdirs_needed(const Options& o) {
  if (o.files_per_dir <= 0) return 0;
  long files = o.dirs == Dirs::Shared ? o.files * o.threads : o.files;
  return (files + o.files_per_dir - 1) / o.files_per_dir;
}

}  // namespace

Layout make_layout(const Options& o, Counts& c) {
  Layout l;
  l.root.path = o.dir;
  l.root.fd = ::open(o.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (l.root.fd < 0) fail("open", Dir{}, o.dir.c_str());
  c.n[Open]++;
  if (o.dirs == Dirs::Shared)
    l.bases.push_back(make_dir(l.root, "shared", c));
  else
    for (int t = 0; t < o.threads; t++)
      l.bases.push_back(make_dir(l.root, "t" + std::to_string(t), c));
  l.subdirs = subdirs_needed(o);
  for (const Dir& base : l.bases)
    for (long j = 0; j < l.subdirs; j++) {
      char name[24];
      FileNames::subdir(name, j);
      mkdir_name(base, name, c);
    }
  return l;
}

void close_layout(Layout& l, Counts& c) {
  for (Dir& d : l.bases) close_file(d.fd, d, ".", c);
  close_file(l.root.fd, l.root, ".", c);
  l.bases.clear();
  l.root.fd = -1;
}

}  // namespace fscost::workload
