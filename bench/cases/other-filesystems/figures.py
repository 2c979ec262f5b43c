#!/usr/bin/env python3
"""figures.py EVIDENCE N: the tables of docs/OTHER-FILESYSTEMS.md from
other-filesystems/truth.sh's evidence; a phase that did not run leaves its
section out. Lock offsets are named from BTF when $BTF_RAW holds bpftool's
raw dump (btfoff.py)."""
import collections
import functools
import glob
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from evidence import bt_text, kstack_frames, table  # noqa: E402

D, N = sys.argv[1], int(sys.argv[2])
BTF = os.environ.get('BTF_RAW', '')
FLAGS = [(1, 'SPIN'), (2, 'READ'), (4, 'WRITE'), (8, 'RT'), (16, 'PERCPU'), (32, 'MUTEX')]


def flags(x):
    return '|'.join(n for b, n in FLAGS if x & b) or 'SEM(0)'


@functools.lru_cache(maxsize=None)
def member(struct, off):
    """The member of struct at byte offset off, from BTF, if bpftool dumped it."""
    if not 0 <= off < 8192 or not BTF or not os.path.exists(BTF) or os.path.getsize(BTF) == 0:
        return ''
    r = subprocess.run([sys.executable, os.path.join(HERE, 'btfoff.py'), struct, str(off)],
                       capture_output=True, text=True, env=dict(os.environ, BTF_RAW=BTF))
    m = r.stdout.split('->', 1)[1].strip() if '->' in r.stdout else ''
    return '' if 'padding?' in m else m


print('ext4, btrfs and XFS under fs_mark creates, %d files a thread, one directory' % N)


def section(title):
    print('\n## %s\n' % title)


tsv = os.path.join(D, 'time.tsv')
if os.path.exists(tsv):
    section('sys time per file, 1 thread (GNU time on fs_mark; all four syscalls of a file)')
    t = collections.defaultdict(list)
    for line in open(tsv):
        f = line.rstrip('\n').split('\t')
        if f[1].isdigit():
            t[f[0]].append(float(f[7]))
    print(table(['fs', 'sys µs per file, each run', 'median'],
                [(fs, ', '.join('%.1f' % x for x in xs), '%.1f' % statistics.median(xs)) for fs, xs in t.items()]))

evs = sorted(glob.glob(os.path.join(D, 'events', '*.t[0-9].txt')))
if evs:
    section('events per create during fs_mark (bpftrace; the test device only, btrfs by its events)')
    fig = collections.defaultdict(dict)
    for path in evs:
        fs, t = re.match(r'(\w+)\.t(\d)\.txt', os.path.basename(path)).groups()
        txt = open(path).read()
        files = int(re.search(r'^files (\d+)$', txt, re.M)[1])
        own, other = collections.Counter(), collections.Counter()
        for k, v in bt_text(path)['@c'].items():
            tp, comm, phase = [x.strip() for x in k.rsplit(',', 2)]
            if phase != '0':
                continue
            (own if comm == 'fs_mark' else other)[tp.split(':')[-1]] += v
        for tp in set(own) | set(other):
            fig[fs, tp][t] = ((own[tp] + other[tp]) / files, own[tp] / max(own[tp] + other[tp], 1))
    rows = []
    for (fs, tp), by in sorted(fig.items()):
        rows.append((fs, tp) + tuple('%.3f (%.0f%% the creating task)' % (by[t][0], 100 * by[t][1]) if t in by
                                     else '-' for t in ('1', '2')))
    print(table(['fs', 'event', 'per create, 1 thread', '2 threads'], rows))

locks = sorted(glob.glob(os.path.join(D, 'locks', '*.t2.txt')))
if locks:
    section('contended locks, 2 threads (lock:contention_begin/end; lockpp.py tables beside the data)')
    for path in locks:
        fs = os.path.basename(path).split('.')[0]
        m = bt_text(path)
        agg = collections.defaultdict(lambda: [0, 0])
        for k, c in m['@n'].items():
            comm, fl, st = k.split(',', 2)
            fr = kstack_frames(st)
            site = next((x for x in fr if not re.match(r'(rwsem_|down|up_|__mutex|mutex_|_raw_|queued_|'
                                                        r'native_queued|__pv_queued|__down|percpu_|rt_|osq_|__rwsem)', x)),
                        fr[-1] if fr else '?')
            key = (re.sub(r'\d+', 'N', comm.strip()), flags(int(fl)), site)
            agg[key][0] += c
            agg[key][1] += m['@ns'].get(k, 0)
        rows = [(fs, c, f, n, '%.1f' % (ns / 1e6), s) for (c, f, s), (n, ns) in
                sorted(agg.items(), key=lambda kv: -kv[1][1])[:6]]
        for name, struct in (('@off_nd_dir_inode', 'inode'), ('@off_journal', 'journal_s')):
            # Offsets beyond any struct's size are other objects' locks.
            for k, n in sorted(((k, n) for k, n in m[name].items() if 0 <= int(k.split(',')[1]) < 8192),
                               key=lambda kv: -kv[1])[:3]:
                fl, off = [int(x) for x in k.split(',')]
                rows.append((fs, 'fs_mark', flags(fl), n, '', 'offset %d from the %s%s'
                             % (off, 'parent directory inode' if struct == 'inode' else 'journal',
                                (' = ' + member(struct, off)) if member(struct, off) else '')))
        print(table(['fs', 'comm', 'type', 'waits', 'ms', 'first frame above the lock code'], rows))
        print()

owners = sorted(glob.glob(os.path.join(D, 'owners', '*.t1.txt')))
if owners:
    section("whose code the create's frames are (by address; share of the openat samples, inclusive)")
    for path in owners:
        fs = os.path.basename(path).split('.')[0]
        lines = open(path).read().split('\n')
        top = [l.strip() for l in lines[lines.index('## fs-owned frames, inclusive % of openat samples (top 40)') + 1:]
               if l.startswith('  ')][:6]
        print('%s: %s; %s' % (fs, lines[0].lstrip('# '), '; '.join(re.sub(r'\s+', ' ', x) for x in top)))

dio = os.path.join(D, 'dio', 'ext4.txt')
if os.path.exists(dio):
    section('ext4, two threads writing O_DIRECT into one file: lock waits')
    m = bt_text(dio)
    by = collections.Counter()
    for k, n in m['@s'].items():
        fl, st = k.split(',', 1)
        fr = kstack_frames(st)
        by[flags(int(fl)), next((x for x in fr if x.startswith('ext4_')), fr[-1] if fr else '?')] += n
    print(table(['type', 'site', 'waits'], [(f, s, n) for (f, s), n in by.most_common(6)]) +
          '\n\ndistinct lock addresses: %d' % len({k.split(',')[1] for k in m['@addr']}))

cp = os.path.join(D, 'checkpoint', 'ext4.txt')
if os.path.exists(cp):
    section("ext4, the seed table's 64 fsyncing tasks: waits by offset from the journal")
    m = bt_text(cp)
    by = collections.Counter()
    for k, n in m['@off'].items():
        fl, off, st = k.split(',', 2)
        by[flags(int(fl)), int(off), ' <- '.join(kstack_frames(st)[:3])] += n
    print(table(['type', 'offset', 'member', 'stack', 'waits'],
                [(f, o, member('journal_s', o), s, n) for (f, o, s), n in by.most_common(5)]))
