#!/usr/bin/env python3
"""children.py DIR FUNC [depth] -- inclusive µs/create of FUNC's callees (first occurrence of FUNC in stack), A vs B"""
import sys, os, collections
D, FN = sys.argv[1], sys.argv[2]; DEP = int(sys.argv[3]) if len(sys.argv) > 3 else 1
runs = {}
for l in open(os.path.join(D, 'runs.tsv')):
    f = l.split(); runs[f[1] + f[0]] = int(f[2])
res = {}
for cfg in 'AB':
    c = collections.Counter(); n = 0
    for k, cr in runs.items():
        if not k.startswith(cfg): continue
        n += cr
        for l in open(os.path.join(D, k + '.folded')):
            s, v = l.rstrip().rsplit(' ', 1); f = s.split(';')
            if FN not in f: continue
            i = f.index(FN); sub = f[i + 1:i + 1 + DEP]
            c[';'.join(sub) if sub else '(self)'] += float(v)
            c['<TOTAL>'] += float(v)
    res[cfg] = {k: v / 1000 / n for k, v in c.items()}
keys = set(res['A']) | set(res['B'])
for k in sorted(keys, key=lambda k: -max(res['A'].get(k, 0), res['B'].get(k, 0)))[:int(os.environ.get('TOPN', 14))]:
    a, b = res['A'].get(k, 0), res['B'].get(k, 0)
    print('%8.3f %8.3f %+8.3f  %s' % (a, b, b - a, k))
