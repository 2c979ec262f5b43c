#!/usr/bin/env python3
"""callers.py DIR FUNC [ndepth] -- aggregate the call chains leading to FUNC (last ndepth frames above it), µs/create A vs B"""
import sys, os, collections
D, FN = sys.argv[1], sys.argv[2]; ND = int(sys.argv[3]) if len(sys.argv) > 3 else 8
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
            i = f.index(FN)
            c[f[0].split('/')[0] + ': ' + ';'.join(f[max(1, i - ND):i + 1])] += float(v)
    res[cfg] = {k: v / 1000 / n for k, v in c.items()}
keys = set(res['A']) | set(res['B'])
for k in sorted(keys, key=lambda k: -max(res['A'].get(k, 0), res['B'].get(k, 0)))[:int(os.environ.get('TOPN', 6))]:
    print('%7.3f %7.3f  %s' % (res['A'].get(k, 0), res['B'].get(k, 0), k))
