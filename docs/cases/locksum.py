#!/usr/bin/env python3
"""locksum.py FILE... -- summarize contention_begin bpftrace output: per flags count, wait, top stacks"""
import sys, re, collections
FL = {0: 'sem/rwsem-none(0)', 1: 'SPIN', 2: 'READ(rwsem)', 4: 'WRITE(rwsem)', 32: 'MUTEX', 33: 'MUTEX|SPIN'}
for fn in sys.argv[1:]:
    txt = open(fn).read()
    print('== %s' % fn.split('/')[-1])
    fl = {int(a): int(b) for a, b in re.findall(r'@flags\[(\d+)\]: (\d+)', txt)}
    wt = {int(a): int(b) for a, b in re.findall(r'@wait_us\[(\d+)\]: (\d+)', txt)}
    comm = collections.Counter()
    for f, c, n in re.findall(r'@cnt\[(\d+), ([^\]]+)\]: (\d+)', txt):
        comm[(int(f), re.sub(r'[/:].*', '', c))] += int(n)
    for f in sorted(fl):
        cs = ', '.join('%s=%d' % (c, n) for (ff, c), n in comm.most_common() if ff == f)
        print('  flags=%-3d %-18s events=%-6d wait=%9.1f ms  by comm: %s' % (f, FL.get(f, '?'), fl[f], wt.get(f, 0) / 1000, cs))
    st = re.findall(r'@st\[(\d+), \n(.*?)\]: (\d+)', txt, re.S)
    st = sorted(((int(n), int(f), [re.sub(r'\+\d+$', '', x.strip()) for x in s.strip().split('\n')]) for f, s, n in st), reverse=True)
    for n, f, s in st[:int(__import__('os').environ.get('TOPN', 7))]:
        print('    %6d flags=%d  %s' % (n, f, ' <- '.join(s)))
