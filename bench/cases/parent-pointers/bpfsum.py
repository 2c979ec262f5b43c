#!/usr/bin/env python3
"""bpfsum.py DIR COMM -- per-create event counts (events / xfs_create events of COMM), mean over runs A*, B*"""
import sys, re, glob, os, collections
D, COMM = sys.argv[1], sys.argv[2]
res = {}
for cfg in 'AB':
    per = collections.defaultdict(list)
    for f in sorted(glob.glob(os.path.join(D, cfg + '*.bt'))):
        c = {}
        for l in open(f):
            m = re.match(r'@\[tracepoint:xfs:(\S+), (\S+)\]: (\d+)', l)
            if m and m.group(2) == COMM: c[m.group(1)] = int(m.group(3))
        n = c.get('xfs_create', 1)
        for k in set(c) | set(per):
            per[k].append(c.get(k, 0) / n)
    res[cfg] = {k: sum(v) / len(v) for k, v in per.items()}
print('%-28s %8s %8s' % ('tracepoint (per create)', 'A', 'B'))
for k in sorted(set(res['A']) | set(res['B']), key=lambda k: -res['B'].get(k, 0)):
    print('%-28s %8.3f %8.3f' % (k, res['A'].get(k, 0), res['B'].get(k, 0)))
