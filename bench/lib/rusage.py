#!/usr/bin/env python3
"""rusage.py OUT CMD...: run CMD, then write its resource usage to OUT as JSON.

Like /usr/bin/time, with microsecond CPU times (GNU time prints 10 ms) and
the wrapper's own usage alongside, so a caller can subtract it:
  user_s, sys_s, maxrss_kb  CMD and its reaped descendants (wait4); maxrss
                            is the largest single process of that tree
  wall_s                    elapsed
  self_user_s, self_sys_s   this wrapper (the Python interpreter)
stdin, stdout and stderr pass through; exits with CMD's status.
"""
import json
import os
import resource
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, cmd = sys.argv[1], sys.argv[2:]
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    me = resource.getrusage(resource.RUSAGE_SELF)
    with open(out, "w") as f:
        json.dump({"user_s": ru.ru_utime, "sys_s": ru.ru_stime, "maxrss_kb": ru.ru_maxrss,
                   "wall_s": wall, "self_user_s": me.ru_utime, "self_sys_s": me.ru_stime}, f)
    sys.exit(os.waitstatus_to_exitcode(status) & 0xff)


if __name__ == "__main__":
    main()
