#!/usr/bin/env python3
"""buckets.py DIR B1,B2,... -- exclusive attribution: each workload/kworker sample goes to the DEEPEST frame
matching one of the bucket regexes (else 'other <comm>'); µs/create A, B, B-A. Buckets sum to the total."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from evidence import per_op  # noqa: E402
D = sys.argv[1]; BK = sys.argv[2].split(','); rx = [(b, re.compile(b)) for b in BK]


def bucket(f):
    if f[0] not in ('fsstress', 'fs_mark', 'kworker'):
        return []
    b = 'other ' + f[0]
    for x in reversed(f):
        m = next((name for name, r in rx if r.fullmatch(x)), None)
        if m:
            b = m
            break
    return [b, 'TOTAL']


res = per_op(D, bucket)
keys = sorted(set(res['A']) | set(res['B']), key=lambda k: -(res['B'].get(k, 0) - res['A'].get(k, 0)))
for k in keys:
    a, b = res['A'].get(k, 0), res['B'].get(k, 0)
    print('%8.3f %8.3f %+8.3f  %s' % (a, b, b - a, k))
