#include "stages.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>

#include "model/result.h"

namespace fscost::bench {
namespace {

// One line per stage, tab-separated; an error is one line starting "!".
std::string encode(const std::vector<StageResult>& stages) {
  std::string out;
  for (const auto& s : stages)
    out += s.name + '\t' + std::to_string(s.seconds) + '\t' + std::to_string(s.peak_rss_kb) + '\t' +
           s.note + '\n';
  return out;
}

std::vector<StageResult> decode(const std::string& text) {
  std::vector<StageResult> stages;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("!")) throw std::runtime_error(line.substr(1));
    std::istringstream f(line);
    StageResult s;
    std::string secs, rss;
    std::getline(f, s.name, '\t');
    std::getline(f, secs, '\t');
    std::getline(f, rss, '\t');
    std::getline(f, s.note);
    s.seconds = std::stod(secs);
    s.peak_rss_kb = std::stol(rss);
    stages.push_back(std::move(s));
  }
  return stages;
}

void write_all(int fd, const std::string& data) {
  for (std::size_t off = 0; off < data.size();) {
    ssize_t n = write(fd, data.data() + off, data.size() - off);
    if (n <= 0) return;
    off += static_cast<std::size_t>(n);
  }
}

[[noreturn]] void child(int fd, const std::function<void(StageRecorder&)>& pipeline) {
  int rc = 0;
  std::string out;
  try {
    StageRecorder rec;
    pipeline(rec);
    out = encode(rec.results());
  } catch (const UserError& e) {
    out = "!" + std::string(e.what()) + (e.hint().empty() ? "" : " (hint: " + e.hint() + ")");
    rc = 1;
  } catch (const std::exception& e) {
    out = "!" + std::string(e.what());
    rc = 1;
  }
  write_all(fd, out);
  close(fd);
  std::fflush(nullptr);
  _exit(rc);
}

}  // namespace

std::vector<StageResult> run_isolated(const std::function<void(StageRecorder&)>& pipeline) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    close(fds[0]);
    child(fds[1], pipeline);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  auto stages = decode(text);  // throws the child's error, if it sent one
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("pipeline child died (status " + std::to_string(status) +
                             "); out of memory?");
  return stages;
}

}  // namespace fscost::bench
