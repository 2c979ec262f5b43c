"""Shared by the truth.sh analyzers of bench/cases: reading what perf
(folded stacks), bpftrace (text and JSON maps) and the workloads left in
$EVIDENCE, and printing the short table of figures."""
import collections
import json
import os
import re
import statistics


def func(sym):
    """A kernel symbol without its offset and compiler suffix
    (xlog_cil_push_now.isra.0+12 -> xlog_cil_push_now)."""
    return re.sub(r'(\.(isra|constprop|part|cold|llvm)\.\d+)*(\+(0x)?[0-9a-f]+)?$', '', sym)


def kstack_frames(st):
    """A bpftrace kstack / kstack(perf) key as function names, leaf first."""
    return [func(l.split()[-1]) for l in st.strip().split('\n') if l.strip()]


def bt_json(path):
    """Every map a `bpftrace -f json` run printed, merged, and the
    workload's own JSON result line (fscost-workload) if it printed one."""
    maps, result = {}, None
    for line in open(path):
        if line.startswith('{"type"'):
            j = json.loads(line)
            if j['type'] == 'map':
                maps.update(j['data'])
        elif line.startswith('{"workload"'):
            result = json.loads(line)
    return maps, result


def bt_text(path):
    """A bpftrace text output's maps: {'@name': {key: value}}, the key the
    text between the brackets (stacks keep their newlines), '' for a scalar."""
    txt = open(path, errors='replace').read()
    maps = collections.defaultdict(dict)
    for m in re.finditer(r'^(@\w*)(?:\[(.*?)\])?: (-?\d+)$', txt, re.S | re.M):
        maps[m[1]][m[2] or ''] = int(m[3])
    return maps


def runs(d):
    """runs.tsv of a truth.sh (rep, cfg, ops, ...) as [(cfg, rep, ops)]."""
    out = []
    for line in open(os.path.join(d, 'runs.tsv')):
        f = line.split()
        if f and f[0].isdigit():
            out.append((f[1], f[0], int(f[2])))
    return out


def folded(path):
    """(frames, ns) of a stackcollapse-perf.pl file."""
    for line in open(path):
        s, v = line.rstrip().rsplit(' ', 1)
        yield s.split(';'), float(v)


def per_op(d, keys_of, cfgs='AB'):
    """{cfg: {key: µs per op}} over every run of a perf_folded directory:
    keys_of(frames) gives the keys a stack's time counts for; summed over
    the runs of a side and divided by their ops."""
    res = {}
    for cfg in cfgs:
        c, n = collections.Counter(), 0
        for k, rep, ops in runs(d):
            if k != cfg:
                continue
            n += ops
            for frames, v in folded(os.path.join(d, cfg + rep + '.folded')):
                for key in keys_of(frames):
                    c[key] += v
        res[cfg] = {k: v / 1000 / n for k, v in c.items()} if n else {}
    return res


def has_seq(frames, seq):
    """Whether seq occurs in frames as consecutive frames."""
    n = len(seq)
    return any(frames[i:i + n] == seq for i in range(len(frames) - n + 1))


def mean(xs):
    return statistics.mean(xs) if xs else float('nan')


def fmt(x, digits=2):
    return '-' if x is None or x != x else '%.*f' % (digits, x)


def cell(xs, digits=2):
    """The mean of the runs, and each run's figure in parentheses."""
    xs = list(xs)
    if len(xs) < 2:
        return fmt(xs[0] if xs else None, digits)
    return '%s (%s)' % (fmt(mean(xs), digits), ', '.join(fmt(x, digits) for x in xs))


def table(header, rows):
    """A markdown table."""
    lines = ['| ' + ' | '.join(header) + ' |', '|' + '---|' * len(header)]
    lines += ['| ' + ' | '.join(str(c) for c in r) + ' |' for r in rows]
    return '\n'.join(lines)
