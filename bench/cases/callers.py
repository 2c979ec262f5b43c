#!/usr/bin/env python3
"""callers.py DIR FUNC [ndepth] -- aggregate the call chains leading to FUNC (last ndepth frames above it), µs/create A vs B"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from evidence import per_op  # noqa: E402
D, FN = sys.argv[1], sys.argv[2]; ND = int(sys.argv[3]) if len(sys.argv) > 3 else 8


def chain(f):
    if FN not in f:
        return []
    i = f.index(FN)
    return [f[0].split('/')[0] + ': ' + ';'.join(f[max(1, i - ND):i + 1])]


res = per_op(D, chain)
keys = set(res['A']) | set(res['B'])
for k in sorted(keys, key=lambda k: -max(res['A'].get(k, 0), res['B'].get(k, 0)))[:int(os.environ.get('TOPN', 6))]:
    print('%7.3f %7.3f  %s' % (res['A'].get(k, 0), res['B'].get(k, 0), k))
