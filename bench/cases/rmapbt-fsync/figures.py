#!/usr/bin/env python3
"""figures.py EVIDENCE N: the rmapbt + fsync table from
rmapbt-fsync/truth.sh's evidence (perf/, bpf/), per file (N a run);
a phase that did not run leaves its rows out."""
import collections
import glob
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from evidence import bt_text, cell, folded, runs, table  # noqa: E402

D, N = sys.argv[1], int(sys.argv[2])
rows = []


def add(name, a, b, digits=2):
    d = '%+.*f' % (digits, statistics.mean(b) - statistics.mean(a)) if a and b else '-'
    rows.append((name, cell(a, digits), cell(b, digits), d))


perf = os.path.join(D, 'perf')
if os.path.exists(os.path.join(perf, 'runs.tsv')):
    NAMES = ['the whole process', 'xfs_file_fsync', 'xfs_bmapi_convert_delalloc', 'xfs_rmap_*',
             'xfs_rmapbt_*', 'xfs_defer_*']
    per = {c: collections.defaultdict(list) for c in 'AB'}
    for cfg, rep, n in runs(perf):
        c = collections.Counter()
        for f, v in folded(os.path.join(perf, cfg + rep + '.folded')):
            c['the whole process'] += v
            if 'xfs_file_fsync' not in f:
                continue
            sub = f[f.index('xfs_file_fsync'):]
            c['xfs_file_fsync'] += v
            for k in NAMES[2:]:
                if any(x == k or (k.endswith('*') and x.startswith(k[:-1])) for x in sub):
                    c[k] += v
        for k in NAMES:
            per[cfg][k].append(c[k] / 1e3 / n)
    for k in NAMES:
        add(('%s µs per file' if k == NAMES[0] else 'inside fsync: %s µs per file') % k
            if k != 'xfs_file_fsync' else 'fsync (xfs_file_fsync) µs per file', per['A'][k], per['B'][k])

bts = sorted(glob.glob(os.path.join(D, 'bpf', '[AB][0-9]*.bt')))
if bts:
    ev = {c: collections.defaultdict(list) for c in 'AB'}
    EV = ('xfs_rmap_map', 'xfs_rmap_defer', 'xfs_rmap_convert', 'xfs_defer_trans_roll', 'xfs_trans_roll',
          'xfs_trans_commit')
    for f in bts:
        cfg = os.path.basename(f)[0]
        m = bt_text(f)
        own = {k.split(':')[-1]: v for k, v in m['@own'].items()}
        other = collections.Counter()
        for k, v in m['@other'].items():
            other[k.split(', ')[0].split(':')[-1]] += v
        for k in EV:
            ev[cfg][k].append(own.get(k, 0) / N)
            ev[cfg][k + ' other'].append(other[k] / N)
    for k in EV:
        add('%s per file, in the workload (bpftrace)' % k, ev['A'][k], ev['B'][k], 3)
    for k in EV:
        add('%s per file, in other tasks' % k, ev['A'][k + ' other'], ev['B'][k + ' other'], 3)

print('rmapbt + fsync, rmapbt=0 (A) vs rmapbt=1 (B), %d files of 4 KiB, each fsynced, 1 thread: '
      'mean of the runs (each run)\n' % N)
print(table(['per file', 'A rmapbt=0', 'B rmapbt=1', 'B−A'], rows))
