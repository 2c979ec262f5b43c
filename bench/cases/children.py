#!/usr/bin/env python3
"""children.py DIR FUNC [depth] -- inclusive µs/create of FUNC's callees (first occurrence of FUNC in stack), A vs B"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from evidence import per_op  # noqa: E402
D, FN = sys.argv[1], sys.argv[2]; DEP = int(sys.argv[3]) if len(sys.argv) > 3 else 1


def callees(f):
    if FN not in f:
        return []
    i = f.index(FN)
    sub = f[i + 1:i + 1 + DEP]
    return [';'.join(sub) if sub else '(self)', '<TOTAL>']


res = per_op(D, callees)
keys = set(res['A']) | set(res['B'])
for k in sorted(keys, key=lambda k: -max(res['A'].get(k, 0), res['B'].get(k, 0)))[:int(os.environ.get('TOPN', 14))]:
    a, b = res['A'].get(k, 0), res['B'].get(k, 0)
    print('%8.3f %8.3f %+8.3f  %s' % (a, b, b - a, k))
