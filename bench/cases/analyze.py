#!/usr/bin/env python3
"""analyze.py DIR  -- folded stacks (values = ns of cpu-clock, from perf -c 200000) per run,
runs.tsv gives creates per run. Reports µs/create by comm, by function family (inclusive,
each sample counted once), and top differential chains (B-A) of prefixes anchored at an op root."""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from evidence import folded, runs  # noqa: E402

D = sys.argv[1]; FAM = sys.argv[2].split(',') if len(sys.argv) > 2 else []
COMMS = ('fsstress', 'fs_mark', 'kworker')


def load(cfg):
    """the stacks of a side, ns summed over its runs, and its creates"""
    st = collections.Counter(); n = 0
    for c, rep, ops in runs(D):
        if c != cfg: continue
        n += ops
        for frames, v in folded(os.path.join(D, c + rep + '.folded')):
            st[';'.join(frames)] += v
    return st, n
data = {c: load(c) for c in 'AB'}
def us(cfg, pred):
    st, n = data[cfg]
    return sum(v for s, v in st.items() if pred(s.split(';'))) / 1000.0 / n
print('creates: A=%d B=%d (sum over runs)' % (data['A'][1], data['B'][1]))
print('\n## on-CPU µs/create by comm (system-wide samples)')
print('%-28s %8s %8s %8s' % ('comm', 'A', 'B', 'B-A'))
for cm in COMMS + ('ALL non-idle excl. cc1plus',):
    if cm.startswith('ALL'): p = lambda f: f[0] not in ('swapper', 'cc1plus', 'cc1', 'as', 'ld', 'c++')
    else: p = (lambda cm: lambda f: f[0] == cm)(cm)
    a, b = us('A', p), us('B', p); print('%-28s %8.3f %8.3f %+8.3f' % (cm, a, b, b - a))
WL = lambda f: f[0] in COMMS
print('\n## function family, inclusive µs/create (workload+kworker samples whose stack contains a frame matching)')
print('%-34s %8s %8s %8s' % ('family (regex)', 'A', 'B', 'B-A'))
for fam in FAM:
    rx = re.compile(fam)
    p = lambda f: WL(f) and any(rx.fullmatch(x) for x in f)
    a, b = us('A', p), us('B', p); print('%-34s %8.3f %8.3f %+8.3f' % (fam, a, b, b - a))
print('\n## self time (leaf) µs/create, top |B-A|')
leaf = {c: collections.Counter() for c in 'AB'}
for c in 'AB':
    st, n = data[c]
    for s, v in st.items():
        f = s.split(';')
        if WL(f): leaf[c][f[-1]] += v / 1000.0 / n
keys = set(leaf['A']) | set(leaf['B'])
for k in sorted(keys, key=lambda k: -abs(leaf['B'][k] - leaf['A'][k]))[:15]:
    print('%-40s %8.3f %8.3f %+8.3f' % (k, leaf['A'][k], leaf['B'][k], leaf['B'][k] - leaf['A'][k]))
# differential chains: inclusive time of every prefix (from the syscall / worker root)
ANCH = ('do_syscall_64', 'process_one_work')
pre = {c: collections.Counter() for c in 'AB'}
for c in 'AB':
    st, n = data[c]
    for s, v in st.items():
        f = s.split(';')
        if not WL(f): continue
        i = next((j for j, x in enumerate(f) if x in ANCH), None)
        if i is None: continue
        f = [f[0].split('/')[0]] + f[i:]
        for d in range(2, len(f) + 1): pre[c][';'.join(f[:d])] += v / 1000.0 / n
keys = set(pre['A']) | set(pre['B'])
delta = {k: pre['B'][k] - pre['A'][k] for k in keys}
print('\n## top differential chains (inclusive prefix Δ µs/create; a chain is listed only if no child carries >=80%% of its Δ)')
out = []
for k, dv in sorted(delta.items(), key=lambda kv: -abs(kv[1])):
    if abs(dv) < 0.05: break
    kids = [delta[x] for x in keys if x.startswith(k + ';') and x.count(';') == k.count(';') + 1]
    if kids and max(kids, key=abs) / dv >= 0.8: continue
    out.append((k, dv))
for k, dv in out[:int(os.environ.get('TOPN', 12))]:
    f = k.split(';'); sk = f[:2] + (['..'] + f[-7:] if len(f) > 9 else f[2:])
    print('%+7.3f  A=%.3f B=%.3f  %s' % (dv, pre['A'][k], pre['B'][k], ';'.join(sk)))
