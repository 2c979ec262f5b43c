#!/usr/bin/env python3
"""analyze.py EVIDENCE: case 3's figures from dir-block-size/truth.sh's runs
(runs.tsv, <cfg><rep>.folded of the workload alone), in µs per create:
the whole process per run, then inclusive time of the functions CASES.md
names, over the stacks under xfs_create. Every function's inclusive and
self time under xfs_create, largest B−A first, goes to
EVIDENCE/functions.txt."""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from evidence import cell, folded, runs, table  # noqa: E402

D = sys.argv[1]
ROOT = 'xfs_create'
MEMCPY = re.compile(r'(__pi_)?_*memcpy.*')
MEMMOVE = re.compile(r'(__pi_)?_*memmove.*')


def under(frames, fn, leaf=None):
    """Whether the stack passes through fn (and ends in a leaf matching leaf)."""
    return fn in frames and (leaf is None or leaf.fullmatch(frames[-1]))


# (row, predicate on the frames below xfs_create)
ROWS = [
    ('xfs_create', lambda f: True),
    ('xfs_trans_commit → xlog_cil_commit', lambda f: under(f, 'xlog_cil_commit')),
    ('xfs_buf_item_format', lambda f: under(f, 'xfs_buf_item_format')),
    ('… of it memcpy (self)', lambda f: under(f, 'xfs_buf_item_format', MEMCPY)),
    ('xfs_dir_create_child → xfs_dir_createname', lambda f: under(f, 'xfs_dir_createname')),
    ('xfs_dir3_leaf_find_entry', lambda f: under(f, 'xfs_dir3_leaf_find_entry')),
    ('… of it memmove (self)', lambda f: under(f, 'xfs_dir3_leaf_find_entry', MEMMOVE)),
    ('xfs_dabuf_map', lambda f: under(f, 'xfs_dabuf_map')),
    ('xfs_icreate', lambda f: under(f, 'xfs_icreate')),
    ('xfs_dialloc', lambda f: under(f, 'xfs_dialloc')),
]

per = {c: collections.defaultdict(list) for c in 'AB'}
inc = {c: collections.Counter() for c in 'AB'}
slf = {c: collections.Counter() for c in 'AB'}
ops = collections.Counter()
wall = {}
for line in open(os.path.join(D, 'runs.tsv')):
    f = line.split()
    if f and f[0].isdigit():
        wall[f[1] + f[0]] = float(f[3])
for cfg, rep, n in runs(D):
    total, rows = 0.0, collections.Counter()
    ops[cfg] += n
    for frames, v in folded(os.path.join(D, cfg + rep + '.folded')):
        total += v
        if ROOT not in frames:
            continue
        sub = frames[frames.index(ROOT):]
        for name, pred in ROWS:
            if pred(sub):
                rows[name] += v
        for fn in set(sub):
            inc[cfg][fn] += v
        slf[cfg][sub[-1]] += v
    per[cfg]['process'].append(total / 1e3 / n)
    per[cfg]['wall'].append(wall[cfg + rep] * 1e6 / n)
    for name, _ in ROWS:
        per[cfg][name].append(rows[name] / 1e3 / n)

with open(os.path.join(D, 'functions.txt'), 'w') as out:
    u = {c: {k: v / 1e3 / ops[c] for k, v in inc[c].items()} for c in 'AB'}
    s = {c: {k: v / 1e3 / ops[c] for k, v in slf[c].items()} for c in 'AB'}
    out.write('%-45s %8s %8s %8s | %7s %7s\n' % ('under xfs_create, inclusive µs/create', 'A', 'B', 'B-A', 'selfA', 'selfB'))
    for fn in sorted(set(u['A']) | set(u['B']), key=lambda k: -(u['B'].get(k, 0) - u['A'].get(k, 0)))[:40]:
        a, b = u['A'].get(fn, 0), u['B'].get(fn, 0)
        out.write('%-45s %8.3f %8.3f %+8.3f | %7.3f %7.3f\n' % (fn[:45], a, b, b - a, s['A'].get(fn, 0), s['B'].get(fn, 0)))
    for x, y in ('BA', 'AB'):
        out.write('\nin %s, not in %s, >= 0.02 µs/create: %s\n' % (
            x, y, ', '.join('%s %.3f' % (k, v) for k, v in sorted(u[x].items(), key=lambda kv: -kv[1])
                            if k not in u[y] and v >= 0.02)))

print('Case 3, %d creates a run, 1 thread, one directory: µs per create, mean of the runs (each run)\n'
      % (ops['A'] // max(len(per['A']['wall']), 1)))
rows = [('wall', 'wall'), ('the whole process, CPU', 'process')] + [(n, n) for n, _ in ROWS]
print(table(['µs per create (inclusive)', 'A -n size=4096', 'B -n size=65536', 'B−A'],
            [(name, cell(per['A'][k]), cell(per['B'][k]),
              '%+.2f' % (sum(per['B'][k]) / len(per['B'][k]) - sum(per['A'][k]) / len(per['A'][k]))
              if per['A'][k] and per['B'][k] else '-') for name, k in rows]))
