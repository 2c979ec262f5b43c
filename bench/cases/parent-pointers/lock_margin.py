#!/usr/bin/env python3
"""lock_margin.py OP SUMMARY.json...: how far each compare's contention
verdict is from flipping. For OP in each fscost compare/diff summary.json:
the op's latency interval and its reach (the largest change it admits), and
its largest lock by |wait delta| with what that wait surely moved (its
interval's end nearest zero; 0 when the interval holds zero), as
analysis/diff/locks.cpp weighs_on reads them; sure/bar >= 1 weighs."""
import json
import sys

LOCK_SHARE = 0.05  # analysis/diff/diff.h kLockShare


def interval(c):
    if c.get('floor'):
        w = c['floor']
    elif c.get('test') == 'quasi-poisson':
        w = c['quasi_poisson']
    else:
        w = c['welch']
    return w['ci_lo'], w['ci_hi']


op_name = sys.argv[1]
for path in sys.argv[2:]:
    with open(path) as f:
        d = json.load(f)
    for op in d['ops']:
        if op['op'] != op_name:
            continue
        lo, hi = interval(op['latency'])
        reach = max(abs(lo), abs(hi))
        line = '%s: latency CI %+.0f..%+.0f ns/op, reach %.0f' % (path, lo, hi, reach)
        locks = sorted(op.get('locks', []), key=lambda l: -abs(l['wait']['delta']))
        if locks:
            l = locks[0]
            a, b = interval(l['wait'])
            sure = min(abs(a), abs(b)) if a > 0 or b < 0 else 0
            line += '; %s [%s] wait %+.0f (CI %+.0f..%+.0f), surely %.0f, sure/bar %.2f' % (
                l['name'], l['type'], l['wait']['delta'], a, b, sure, sure / (LOCK_SHARE * reach))
        print(line)
