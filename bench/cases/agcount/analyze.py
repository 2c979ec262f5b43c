#!/usr/bin/env python3
"""analyze.py EVIDENCE NOPS: case 5's figures from agcount/truth.sh's runs
(<cfg><rep>.bt.json, locks.bt's maps), per create (NOPS creates a run):
lock waits by lock, the lock named from the stack (the AGI by xfs_read_agi,
the AGF by xfs_read_agf), and off-CPU time without the main thread's wait
for its workers. Every lock and off-CPU class goes to EVIDENCE/locks.txt."""
import collections
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from evidence import bt_json, cell, kstack_frames, table  # noqa: E402

D, NOPS = sys.argv[1], int(sys.argv[2])
FL = {0: 'sem/none', 1: 'SPIN', 2: 'READ', 4: 'WRITE', 32: 'MUTEX', 33: 'MUTEX|SPIN', 3: 'SPIN|READ', 5: 'SPIN|WRITE'}
BUF = ('xfs_buf_lock', 'xfs_buf_find_lock', 'xfs_buf_get_map', 'xfs_buf_read_map', 'xfs_trans_read_buf_map', 'xfs_buf_lookup')


def ident(fr):
    """Which lock a wait's stack is on."""
    s = set(fr)
    if 'xfs_read_agi' in s or 'xfs_ialloc_read_agi' in s:
        return 'AGI buf (xfs_read_agi)'
    if 'xfs_read_agf' in s or 'xfs_alloc_read_agf' in s:
        return 'AGF buf (xfs_read_agf)'
    if 'xfs_alloc_read_agfl' in s:
        return 'AGFL buf'
    if 'xfs_buf_lock' in s:
        return 'other xfs_buf_lock: ' + next((f for f in fr if f.startswith('xfs_') and f not in BUF), '?')
    for k in ('xfs_ilock', 'xlog_grant', 'xlog_cil', 'xfs_log', 'mutex_lock', 'rwsem', 'spin',
              'queued_spin_lock_slowpath', '_raw_spin_lock'):
        m = [f for f in fr if f.startswith(k)]
        if m:
            return m[0] + ' <- ' + next((f for f in fr if f.startswith(('xfs_', 'xlog'))), fr[min(3, len(fr) - 1)])
    return fr[1] if len(fr) > 1 else '?'


def offcpu_class(fr):
    if 'xfs_buf_lock' in fr or 'down' in fr:
        return ident(fr)
    if any(f.startswith('xlog_') for f in fr):
        return 'log: ' + next(f for f in fr if f.startswith(('xlog', 'xfs_log')))
    return 'other: ' + next((f for f in fr[3:] if f.startswith('xfs_')), fr[min(4, len(fr) - 1)])


fig, detail = {}, []
for cfg in 'AB':
    per = collections.defaultdict(list)
    W, C, OFF = collections.Counter(), collections.Counter(), collections.Counter()
    files = sorted(glob.glob(os.path.join(D, cfg + '[0-9]*.bt.json')))
    for f in files:
        m, _ = bt_json(f)
        run = collections.Counter()
        wn, wc = m.get('@wait_ns', {}), m.get('@wait_n', {})
        for k, v in wn.items():
            st, fl = k.rsplit(',', 1)
            key = (ident(kstack_frames(st)), FL.get(int(fl), fl))
            W[key] += v
            C[key] += wc[k]
            run[key[0] + ' n'] += wc[k]
            run[key[0] + ' ns'] += v
        off = 0
        for st, v in m.get('@off_ns', {}).items():
            fr = kstack_frames(st)
            if 'futex_wait' in fr or 'do_futex' in fr:
                continue       # the main thread joining its workers
            off += v
            OFF[offcpu_class(fr)] += v
        per['agi_n'].append(run['AGI buf (xfs_read_agi) n'] / NOPS)
        per['agi_us'].append(run['AGI buf (xfs_read_agi) ns'] / NOPS / 1e3)
        per['agi_each'].append(run['AGI buf (xfs_read_agi) ns'] / run['AGI buf (xfs_read_agi) n'] / 1e3
                               if run['AGI buf (xfs_read_agi) n'] else float('nan'))
        per['agf_n'].append(run['AGF buf (xfs_read_agf) n'] / NOPS)
        per['all_n'].append(m.get('@tot_n', 0) / NOPS)
        per['all_us'].append(m.get('@tot_wait_ns', 0) / NOPS / 1e3)
        per['off'].append(off / NOPS / 1e3)
    fig[cfg] = per
    reps = max(len(files), 1)
    detail.append('== %s (%d runs): lock waits, per create' % (cfg, len(files)))
    for k, v in W.most_common(8):
        detail.append('   %-45s %-11s n/op %.4f wait %.3f µs/op, %.1f µs each'
                      % (k[0], k[1], C[k] / reps / NOPS, v / reps / NOPS / 1e3, v / C[k] / 1e3))
    for k, v in OFF.most_common(6):
        detail.append('   off-CPU %-60s %.3f µs/op' % (k, v / reps / NOPS / 1e3))
with open(os.path.join(D, 'locks.txt'), 'w') as out:
    out.write('\n'.join(detail) + '\n')

ROWS = [('AGI buffer lock waits (semaphore) per create', 'agi_n', 3), ('… their wait µs per create', 'agi_us', 1),
        ('… µs per wait', 'agi_each', 0), ('AGF buffer lock waits per create', 'agf_n', 3),
        ('all lock waits per create', 'all_n', 3), ('… their wait µs per create', 'all_us', 1),
        ('off-CPU µs per create (without the join)', 'off', 1)]
print('Case 5, %d creates a run: per create, mean of the runs (each run)\n' % NOPS)
print(table(['per create', 'A agcount=4', 'B agcount=1'],
            [(name, cell(fig['A'][k], dg), cell(fig['B'][k], dg)) for name, k, dg in ROWS]))
