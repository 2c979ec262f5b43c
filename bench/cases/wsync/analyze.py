#!/usr/bin/env python3
"""analyze.py EVIDENCE N: case 4's figures from wsync/truth.sh's runs
(<cfg><rep>.bt.json: offcpu.bt's maps and the workload's result line),
per create. Off-CPU counts the stretches that began inside a create
(path_openat on the stack), not the main thread's wait for its worker;
the top stacks of all of it go to EVIDENCE/stacks.txt."""
import collections
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from evidence import bt_json, cell, kstack_frames, table  # noqa: E402

D, N = sys.argv[1], int(sys.argv[2])


def site(frames):
    """Where a create waited: on the iclog write, or for the CIL push it
    queued and flushed."""
    if 'xlog_wait_on_iclog' in frames:
        return 'iclog'
    if '__flush_workqueue' in frames and 'xlog_cil_push_now' in frames:
        return 'cil'
    return 'other'


fig = {}
stacks = {}
for cfg in 'AB':
    per = collections.defaultdict(list)
    st = collections.Counter()
    for f in sorted(glob.glob(os.path.join(D, cfg + '[0-9]*.bt.json'))):
        m, res = bt_json(f)
        per['wall'].append(res['elapsed_s'] * 1e6 / N if res else float('nan'))
        per['sys'].append(res['sys_s'] * 1e6 / N if res else float('nan'))
        per['kthread'].append(m.get('@kthread_ns', 0) / 1e6)
        by = collections.Counter()
        for s, v in m.get('@off_ns', {}).items():
            fr = kstack_frames(s)
            st[' <- '.join(fr[:14])] += v
            if 'path_openat' not in fr:
                continue
            by['off'] += v
            by['switches'] += m['@off_n'][s]
            by[site(fr)] += v
            by[site(fr) + '_n'] += m['@off_n'][s]
            for k in ('sleep', 'rq', 'preempt'):
                by[k] += m.get('@%s_ns' % k, {}).get(s, 0)
        for k in ('off', 'iclog', 'cil', 'sleep', 'rq', 'preempt'):
            per[k].append(by[k] / N / 1e3)
        for k in ('switches', 'iclog_n', 'cil_n'):
            per[k].append(by[k] / N)
    fig[cfg] = per
    stacks[cfg] = (st, len(per['wall']))

with open(os.path.join(D, 'stacks.txt'), 'w') as out:
    for cfg in 'AB':
        st, reps = stacks[cfg]
        out.write('== %s: top off-CPU stacks of the whole process, µs per create (leaf first)\n' % cfg)
        for k, v in st.most_common(8):
            out.write('%9.2f  %s\n' % (v / max(reps, 1) / N / 1e3, k))

ROWS = [('wall µs', 'wall', 1), ('process sys CPU µs', 'sys', 1),
        ('off-CPU inside create µs', 'off', 1), ('… switches', 'switches', 2),
        ('… in xlog_wait_on_iclog µs', 'iclog', 1), ('… … switches', 'iclog_n', 2),
        ('… in xlog_cil_push_now → __flush_workqueue µs', 'cil', 1), ('… … switches', 'cil_n', 2),
        ('… asleep µs', 'sleep', 1), ('… run-queue wait after the wakeup µs', 'rq', 1),
        ('… preempted µs', 'preempt', 1)]
print('Case 4, %d creates a run, 1 thread: per create, mean of the runs (each run)\n' % N)
print(table(['per create', 'A defaults', 'B wsync'],
            [(name, cell(fig['A'][k], dg), cell(fig['B'][k], dg)) for name, k, dg in ROWS] +
            [('kernel threads\' CPU, ms per run (system-wide)', cell(fig['A']['kthread'], 1),
              cell(fig['B']['kthread'], 1))]))
