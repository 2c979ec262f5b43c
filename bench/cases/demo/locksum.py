#!/usr/bin/env python3
"""locksum.py FILE...: demo/truth.sh's lock phase outputs (bpftrace
@n/@ns[flags, kstack] of lock:contention_begin to _end), per file: waits
and wait time by flags, then the stacks that waited longest."""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from evidence import bt_text, kstack_frames  # noqa: E402

FL = {0: 'semaphore(0)', 1: 'SPIN', 2: 'READ(rwsem)', 4: 'WRITE(rwsem)', 32: 'MUTEX', 33: 'MUTEX|SPIN'}
TOPN = int(os.environ.get('TOPN', 7))


def waits(path):
    """[(flags, frames leaf first, count, ns)] of one run."""
    m = bt_text(path)
    out = []
    for k, n in m['@n'].items():
        fl, st = k.split(',', 1)
        out.append((int(fl), kstack_frames(st), n, m['@ns'].get(k, 0)))
    return out


if __name__ == '__main__':
    for fn in sys.argv[1:]:
        w = waits(fn)
        print('== %s' % os.path.basename(fn))
        by = collections.defaultdict(lambda: [0, 0])
        for fl, _, n, ns in w:
            by[fl][0] += n
            by[fl][1] += ns
        for fl in sorted(by):
            print('  flags=%-3d %-14s waits=%-7d wait=%10.1f ms' % (fl, FL.get(fl, '?'), by[fl][0], by[fl][1] / 1e6))
        for fl, fr, n, ns in sorted(w, key=lambda x: -x[3])[:TOPN]:
            print('    %8.1f ms %6d flags=%d  %s' % (ns / 1e6, n, fl, ' <- '.join(fr)))
