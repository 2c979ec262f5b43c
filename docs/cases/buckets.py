#!/usr/bin/env python3
"""buckets.py DIR B1,B2,... -- exclusive attribution: each workload/kworker sample goes to the DEEPEST frame
matching one of the bucket regexes (else 'other <comm>'); µs/create A, B, B-A. Buckets sum to the total."""
import sys, os, re, collections
D = sys.argv[1]; BK = sys.argv[2].split(','); rx = [(b, re.compile(b)) for b in BK]
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
            if f[0] not in ('fsstress', 'fs_mark', 'kworker'): continue
            b = 'other ' + f[0]
            for x in reversed(f):
                m = next((name for name, r in rx if r.fullmatch(x)), None)
                if m: b = m; break
            c[b] += float(v); c['TOTAL'] += float(v)
    res[cfg] = {k: v / 1000 / n for k, v in c.items()}
keys = sorted(set(res['A']) | set(res['B']), key=lambda k: -(res['B'].get(k, 0) - res['A'].get(k, 0)))
for k in keys:
    a, b = res['A'].get(k, 0), res['B'].get(k, 0)
    print('%8.3f %8.3f %+8.3f  %s' % (a, b, b - a, k))
