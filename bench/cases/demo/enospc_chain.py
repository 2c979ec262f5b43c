#!/usr/bin/env python3
"""bench/cases/demo/enospc_chain.py BT_OUTPUT [SUMMARY_JSON]: one line per
workload run of enospc_chain.bt's output (docs/CASES.md §2.0a): the flush
worker's time and who queued it, the i_rwsem (path_openat) waits by what
their owner slept in, the CIL context lock (xlog_cil_commit) waits, and
when the first workload thread exited against when the flush was queued.
With the compare's summary.json the runs are named (warm-ups first, then
compare.order)."""
import json
import re
import sys

text = open(sys.argv[1]).read()
labels = []
if len(sys.argv) > 2:
    n = {'A': 0, 'B': 0}
    labels = ['warm-up A', 'warm-up B']
    for r in json.load(open(sys.argv[2]))['compare']['order']:
        n[r['config']] += 1
        labels.append('%s run-%02d' % (r['config'], n[r['config']]))
# The events printed before a '=== workload exit' line belong to that run;
# its maps follow the line.
parts = text.split('=== workload exit')
for i in range(1, len(parts)):
    before, maps = parts[i - 1], parts[i]
    w = {'flush': 0, 'other': 0, 'never': 0, 'cil': 0}
    queued_from = []
    for m in re.finditer(r'@(\w+)\[(.*?)\]: (\d+)\n', maps, re.S):
        name, key, val = m.group(1), m.group(2), int(m.group(3))
        if name == 'flush_queued_from':
            queued_from.append('xfs_create' if 'xfs_create' in key else
                               'xfs_file_buffered_write' if 'xfs_file_buffered_write' in key else '?')
        elif name.startswith('wait_') and 'path_openat' in key.split(',')[1]:
            owner = ','.join(key.split(',')[2:])
            w['flush' if name == 'wait_holder_slept' and '__flush_work' in owner else
              'other' if name == 'wait_holder_slept' else 'never'] += val
        elif name.startswith('wait_') and 'xlog_cil_commit' in key:
            w['cil'] += val
    worker = re.search(r'@flush_worker_ns: (\d+)', maps)
    exits = [int(x) for x in re.findall(r'thread \d+ exits at (\d+) ms', before)]
    queued = [int(x) for x in re.findall(r'flush queued by .* at (\d+) ms', before)]
    gap = '%+d ms' % (min(exits) - queued[0]) if exits and queued else '-'
    label = labels[i - 1] if i - 1 < len(labels) else 'run %d' % i
    print(f"{label:10s} flush worker {int(worker.group(1)) / 1e6 if worker else 0:7.1f} ms "
          f"(queued from {','.join(queued_from) or '-'}; first thread exit {gap} after it); "
          f"i_rwsem waits, owner in the flush {w['flush'] / 1e6:.1f} ms, in another sleep "
          f"{w['other'] / 1e6:.1f}, never asleep {w['never'] / 1e6:.1f}; CIL context lock waits "
          f"{w['cil'] / 1e6:.1f} ms")
