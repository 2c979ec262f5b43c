#!/usr/bin/env python3
"""figures.py OUT WL: case 1's table from parent-pointers/truth.sh's
evidence (OUT/time.tsv, OUT/bpf/*.bt, OUT/perf/), per create; a phase that
did not run leaves its rows out."""
import collections
import glob
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from evidence import bt_text, has_seq, per_op, table  # noqa: E402

OUT, WL = sys.argv[1], sys.argv[2]
rows = []


def add(name, a, b, digits=2):
    d = '%+.*f' % (digits, b - a) if a is not None and b is not None else '-'
    rows.append((name, '-' if a is None else '%.*f' % (digits, a), '-' if b is None else '%.*f' % (digits, b), d))


def med_mean(xs):
    return '%.2f / %.2f ± %.2f' % (statistics.median(xs), statistics.mean(xs), statistics.stdev(xs) if len(xs) > 1 else 0)


# GNU time: sys µs per create, each side's runs
tsv = os.path.join(OUT, 'time.tsv')
if os.path.exists(tsv):
    t = collections.defaultdict(list)
    for line in open(tsv):
        f = line.split('\t')
        if f[0].isdigit():
            t[f[1], 'sys'].append(float(f[6]))
            t[f[1], 'wide'].append(float(f[7]))
    if t['A', 'sys'] and t['B', 'sys']:
        a, b = statistics.median(t['A', 'sys']), statistics.median(t['B', 'sys'])
        rows.append(('%s sys µs (GNU time), median / mean ± sd of %d+%d runs' % (WL, len(t['A', 'sys']), len(t['B', 'sys'])),
                     med_mean(t['A', 'sys']), med_mean(t['B', 'sys']), '%+.2f (%+.0f%%)' % (b - a, 100 * (b - a) / a)))
        add('system-wide sys µs (/proc/stat, kworkers too), median',
            statistics.median(t['A', 'wide']), statistics.median(t['B', 'wide']))

# bpftrace: events per create of the workload's comm, mean over runs
bts = sorted(glob.glob(os.path.join(OUT, 'bpf', '[AB][0-9]*.bt')))
if bts:
    ev = {c: collections.defaultdict(list) for c in 'AB'}
    for f in bts:
        cfg = os.path.basename(f)[0]
        m = bt_text(f)['@']
        c = {k.split(', ')[0].split(':')[-1]: v for k, v in m.items() if k.endswith(', ' + WL)}
        n = c.get('xfs_create', 0) or 1
        for k in ('xfs_trans_commit', 'xfs_trans_roll', 'xfs_defer_create_intent', 'xfs_attr_defer_add',
                  'xfs_attr_sf_add', 'xfs_attr_leaf_add', 'xfs_cil_whiteout_mark'):
            ev[cfg][k].append(c.get(k, 0) / n)
    for k in ev['A']:
        add('%s per create (bpftrace, %s)' % (k, WL), statistics.mean(ev['A'][k]) if ev['A'][k] else None,
            statistics.mean(ev['B'][k]) if ev['B'][k] else None, 3)

# perf: inclusive µs per create of the chains case 1(c) names
perf = os.path.join(OUT, 'perf')
if os.path.exists(os.path.join(perf, 'runs.tsv')):
    ROLL = ['xfs_create', 'xfs_trans_commit', 'xfs_defer_finish_noroll', 'xfs_defer_trans_roll',
            'xfs_trans_roll', '__xfs_trans_commit']
    FINAL = ['xfs_create', 'xfs_trans_commit', '__xfs_trans_commit']

    def keys(f):
        k = []
        if f[0] == WL:
            k.append('on-CPU of %s' % WL)
            if 'rwsem_spin_on_owner' in f and 'path_openat' in f:
                k.append('of it rwsem_spin_on_owner under path_openat')
            if has_seq(f, ROLL):
                k.append('roll chain … xfs_trans_roll → __xfs_trans_commit')
            elif has_seq(f, FINAL):
                k.append('final commit xfs_trans_commit → __xfs_trans_commit')
        if f[0] in (WL, 'kworker'):
            if 'xlog_cil_commit' in f:
                k.append('xlog_cil_commit')
            if 'xlog_cil_push_work' in f:
                k.append('kworker xlog_cil_push_work')
            if any(x.startswith('xfs_attr_') for x in f):
                k.append('xfs_attr_* (inclusive)')
            if any(x.startswith('xfs_parent_') for x in f):
                k.append('xfs_parent_* (inclusive)')
        return k

    r = per_op(perf, keys)
    for k in ('on-CPU of %s' % WL, 'of it rwsem_spin_on_owner under path_openat', 'roll chain … xfs_trans_roll → __xfs_trans_commit',
              'final commit xfs_trans_commit → __xfs_trans_commit', 'xlog_cil_commit', 'kworker xlog_cil_push_work',
              'xfs_attr_* (inclusive)', 'xfs_parent_* (inclusive)'):
        add(k + ' µs (perf)', r['A'].get(k, 0), r['B'].get(k, 0), 3)

print('Case 1, parent=0 (A) vs parent=1 (B), workload %s: per create\n' % WL)
print(table(['per create', 'A parent=0', 'B parent=1', 'B−A'], rows))
