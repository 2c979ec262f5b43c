// The bench tools that attach something and then run a command under it
// (empty_hooks, empty_syscall_tp): fork, exec, wait.
#pragma once

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace fscost::bench {

// Runs argv[0] with argv (null-terminated) and waits for it: its wait
// status, or -1 if it could not be started (said on stderr as `tool`).
inline int run_child(const char* tool, char** argv) {
  pid_t pid = ::fork();
  if (pid < 0) {
    std::fprintf(stderr, "%s: fork: %s\n", tool, std::strerror(errno));
    return -1;
  }
  if (pid == 0) {
    ::execvp(argv[0], argv);
    std::fprintf(stderr, "%s: %s: %s\n", tool, argv[0], std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// A wait status as an exit code: the command's, or 128 + its signal.
inline int exit_code(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace fscost::bench
