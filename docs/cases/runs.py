"""Shared by callers.py, buckets.py and children.py: the folded stacks of a
perf_runs.sh directory (runs.tsv + <cfg><rep>.folded, values in ns),
summed per key and divided by the run's creates: µs per create, A and B."""
import collections
import os


def per_create(d, keys_of):
    """{'A': {key: µs/create}, 'B': {...}}; keys_of(frames) gives the keys
    a stack's value counts for (none: the stack is left out)."""
    runs = {}
    for line in open(os.path.join(d, 'runs.tsv')):
        f = line.split()
        runs[f[1] + f[0]] = int(f[2])
    res = {}
    for cfg in 'AB':
        c = collections.Counter()
        n = 0
        for k, creates in runs.items():
            if not k.startswith(cfg):
                continue
            n += creates
            for line in open(os.path.join(d, k + '.folded')):
                s, v = line.rstrip().rsplit(' ', 1)
                for key in keys_of(s.split(';')):
                    c[key] += float(v)
        res[cfg] = {k: v / 1000 / n for k, v in c.items()}
    return res
