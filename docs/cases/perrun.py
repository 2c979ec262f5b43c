#!/usr/bin/env python3
"""perrun.py DIR FUNC,FUNC,... -- per run: samples (200µs each) and inclusive µs/create of each FUNC (regex), workload+kworker"""
import sys, os, re
D = sys.argv[1]; FS = sys.argv[2].split(',')
rx = [re.compile(f) for f in FS]
print('run   creates ' + ' '.join('%22s' % f[:22] for f in FS))
for l in open(os.path.join(D, 'runs.tsv')):
    r, cfg, n = l.split()[:3]; n = int(n)
    tot = [0.0] * len(FS)
    for s in open(os.path.join(D, cfg + r + '.folded')):
        st, v = s.rstrip().rsplit(' ', 1); f = st.split(';')
        if f[0] not in ('fsstress', 'fs_mark', 'kworker'): continue
        for i, x in enumerate(rx):
            if any(x.fullmatch(y) for y in f): tot[i] += float(v)
    print('%s%s %7d ' % (cfg, r, n) + ' '.join('%9d smp %6.3fus' % (t / 200000, t / 1000 / n) for t in tot))
