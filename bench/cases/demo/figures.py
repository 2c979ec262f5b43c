#!/usr/bin/env python3
"""figures.py EVIDENCE: case 2's table from demo/truth.sh's evidence
(time.tsv, perf/, bpf/, lock/), per file; a phase that did not run leaves
its rows out."""
import collections
import glob
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
from evidence import bt_text, cell, folded, has_seq, kstack_frames, runs, table  # noqa: E402
from locksum import waits  # noqa: E402

D = sys.argv[1]
rows = []


def add(name, a, b, digits=2):
    """A row of two sides' per-run figures: mean (each run), and B−A."""
    d = '%+.*f' % (digits, statistics.mean(b) - statistics.mean(a)) if a and b else '-'
    rows.append((name, cell(a, digits), cell(b, digits), d))


def col(path, name, cast=float):
    """{cfg: [column name of each run]} of a tsv with a header."""
    out = collections.defaultdict(list)
    lines = open(path).read().split('\n')
    head = lines[0].split('\t')
    for line in lines[1:]:
        f = line.split('\t')
        if len(f) == len(head) and f[head.index(name)]:
            out[f[1]].append(cast(f[head.index(name)]))
    return out


tsv = os.path.join(D, 'time.tsv')
if os.path.exists(tsv):
    for name, c, dg in (('fs_mark files/s (thousands)', 'fsmark_files_per_s', 1),
                        ('fs_mark+sync sys µs/file (GNU time)', 'sys_us_per_file', 2),
                        ('system-wide sys µs/file (/proc/stat)', 'syswide_sys_us_per_file', 1),
                        ('wall s, fs_mark+sync', 'real_s', 2)):
        v = col(tsv, c)
        if c == 'fsmark_files_per_s':
            v = {k: [x / 1000 for x in xs] for k, xs in v.items()}
        add(name, v.get('A'), v.get('B'), dg)

perf = os.path.join(D, 'perf')
if os.path.exists(os.path.join(perf, 'runs.tsv')):
    WB = 'xfs_bmapi_convert_delalloc'
    FAM = ('xfs_rmap_', 'xfs_rmapbt_', 'xfs_btree_', 'xfs_defer_')

    def keys(f):
        k = []
        if f[0] in ('fs_mark', 'kworker'):
            k.append('%s on-CPU' % f[0])
            for p in FAM:
                if any(x.startswith(p) for x in f):
                    k.append(p + '* (inclusive)')
            for fn in ('wb_workfn', 'xfs_end_io'):
                if fn in f:
                    k.append(fn + ' (inclusive)')
            if 'xfs_rmap_finish_one' in f:
                k.append('xfs_rmap_finish_one under ' + (WB if WB in f else 'xfs_end_io' if 'xfs_end_io' in f
                                                         else f[0]))
        if f[0] == 'fs_mark' and 'rwsem_spin_on_owner' in f:
            k.append('spin')
            if has_seq(f, ['path_openat', 'down_write']):
                k.append('spin under path_openat')
        return k

    per = {c: collections.defaultdict(list) for c in 'AB'}
    for cfg, rep, n in runs(perf):
        c = collections.Counter()
        for frames, v in folded(os.path.join(perf, cfg + rep + '.folded')):
            for k in keys(frames):
                c[k] += v
        for k, v in c.items():
            per[cfg][k].append(v / 1e3 / n)
        per[cfg]['_runs'].append(1)
    names = ['fs_mark on-CPU', 'kworker on-CPU'] + [p + '* (inclusive)' for p in FAM] + \
        ['wb_workfn (inclusive)', 'xfs_end_io (inclusive)', 'xfs_rmap_finish_one under ' + WB,
         'xfs_rmap_finish_one under xfs_end_io', 'xfs_rmap_finish_one under fs_mark']
    def of(cfg, k):
        """Each run's figure, 0 where the run had none."""
        return per[cfg][k] + [0.0] * (len(per[cfg]['_runs']) - len(per[cfg][k]))

    for k in names:
        add(k + ' µs/file (perf)', of('A', k), of('B', k))
    for cfg in 'AB':
        s, u = per[cfg]['spin'], per[cfg]['spin under path_openat']
        per[cfg]['share'] = [100 * sum(u) / sum(s)] if s and sum(s) else []
    add('fs_mark rwsem_spin_on_owner µs/file (perf, §2.3)', of('A', 'spin'), of('B', 'spin'))
    add('… share of it under path_openat → down_write, %', per['A']['share'], per['B']['share'], 0)

bts = sorted(glob.glob(os.path.join(D, 'bpf', '[AB][0-9]*.bt')))
if bts:
    ev = {c: collections.defaultdict(list) for c in 'AB'}
    for f in bts:
        cfg = os.path.basename(f)[0]
        m = bt_text(f)
        n = int(re.search(r'^files (\d+)$', open(f).read(), re.M)[1])
        c = collections.Counter()
        for k, v in m['@'].items():
            c[k.split(', ')[0].split(':')[-1]] += v
        for k in ('xfs_rmap_map', 'xfs_rmap_convert', 'xfs_rmap_defer', 'xfs_trans_roll',
                  'xfs_cil_whiteout_mark', 'xfs_trans_commit', 'xfs_log_grant_sleep'):
            ev[cfg][k].append(c[k] / n)
        ev[cfg]['enospc'].append(sum(v for k, v in m['@wb_queue'].items()
                                     if 'xfs_flush_inodes_worker' in kstack_frames(k)))
    for k in ('xfs_rmap_map', 'xfs_rmap_convert', 'xfs_rmap_defer', 'xfs_trans_roll',
              'xfs_cil_whiteout_mark', 'xfs_trans_commit', 'xfs_log_grant_sleep'):
        add(k + ' per file (bpftrace, all tasks)', ev['A'][k], ev['B'][k], 3)
    add('ENOSPC flushes (writeback queued by xfs_flush_inodes_worker) per run', ev['A']['enospc'], ev['B']['enospc'], 0)

locks = sorted(glob.glob(os.path.join(D, 'lock', '[AB][0-9]*.bt')))
if locks:
    lk = {c: collections.defaultdict(list) for c in 'AB'}
    for f in locks:
        cfg = os.path.basename(f)[0]
        agf = [(n, ns) for fl, fr, n, ns in waits(f)
               if fl == 0 and ('xfs_read_agf' in fr or 'xfs_alloc_read_agf' in fr)]
        dirw = [(n, ns) for fl, fr, n, ns in waits(f) if fl & 4 and 'path_openat' in fr]
        lk[cfg]['agf_n'].append(sum(n for n, _ in agf))
        lk[cfg]['agf_s'].append(sum(ns for _, ns in agf) / 1e9)
        lk[cfg]['dir_n'].append(sum(n for n, _ in dirw))
        lk[cfg]['dir_ms'].append(sum(ns for _, ns in dirw) / 1e6)
    add('AGF buffer semaphore waits per run (xfs_buf_lock ← xfs_read_agf)', lk['A']['agf_n'], lk['B']['agf_n'], 0)
    add('… their summed wait, s per run', lk['A']['agf_s'], lk['B']['agf_s'], 1)
    add('rwsem WRITE waits under path_openat per run (what contention_begin sees, §2.3)',
        lk['A']['dir_n'], lk['B']['dir_n'], 0)
    add('… their summed wait, ms per run', lk['A']['dir_ms'], lk['B']['dir_ms'], 1)

print('Case 2, rmapbt=0 (A) vs rmapbt=1 (B), fs_mark 2 threads × 4 KiB files, then sync: '
      'mean of the runs (each run)\n')
print(table(['', 'A rmapbt=0', 'B rmapbt=1', 'B−A'], rows))
