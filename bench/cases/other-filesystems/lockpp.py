#!/usr/bin/env python3
"""Post-process bpftrace lock_<fs>.bt output: table of contended locks."""
import sys, re, collections
F=[(1,'SPIN'),(2,'READ'),(4,'WRITE'),(8,'RT'),(16,'PERCPU'),(32,'MUTEX')]
def fl(x):
    s='|'.join(n for b,n in F if x&b); return s or 'SEM(0)'
txt=open(sys.argv[1]).read()
def maps(name):
    out={}
    for m in re.finditer(r'@'+name+r'\[(.*?)\]: (\d+)', txt, re.S):
        out[m[1]]=int(m[2])
    return out
n=maps('n'); ns=maps('ns')
rows=[]
for k,c in n.items():
    parts=k.split(',',2)
    comm=parts[0].strip(); flags=int(parts[1]); stack=[re.sub(r'\+\d+$','',s.strip()) for s in parts[2].strip().split('\n') if s.strip()]
    rows.append((ns.get(k,0),c,comm,flags,stack))
agg=collections.defaultdict(lambda:[0,0])
for t,c,comm,flags,stack in rows:
    # drop lock-implementation frames for the call-site key
    st=[s for s in stack if not re.match(r'(rwsem_down|down_|up_|__mutex|mutex_|_raw_|queued_|native_queued|__pv_queued|__down|down$|percpu_down|__percpu_down|rt_|osq_|__rwsem)', s)]
    impl=[s for s in stack if s not in st]
    key=(comm if comm=='fs_mark' else re.sub(r'\d+','N',comm), fl(flags), ' <- '.join(impl[-1:]+st[:5]))
    agg[key][0]+=c; agg[key][1]+=t
print(f"{'comm':14s} {'flags':12s} {'count':>6s} {'total_ms':>9s} {'avg_us':>8s}  lock-impl <- call site (innermost first)")
for (comm,f,site),(c,t) in sorted(agg.items(), key=lambda kv:-kv[1][1]):
    print(f"{comm:14s} {f:12s} {c:6d} {t/1e6:9.2f} {t/1e3/max(c,1):8.1f}  {site}")
# distinct lock addresses per (flags, 3-frame stack)
addr=maps('addr'); da=collections.defaultdict(set); dc=collections.Counter()
for k,c in addr.items():
    parts=k.split(',',3); comm=parts[0].strip(); f=int(parts[1]); a=parts[2].strip()
    st=' <- '.join(re.sub(r'\+\d+$','',s.strip()) for s in parts[3].strip().split('\n') if s.strip())
    key=(re.sub(r'\d+','N',comm), fl(f), st); da[key].add(a); dc[key]+=c
print("\n# distinct lock addresses per (comm, flags, 3-frame stack)")
for key in sorted(da, key=lambda k:-dc[k]):
    print(f"  {key[0]:14s} {key[1]:12s} events={dc[key]:5d} distinct_addrs={len(da[key]):4d}  {key[2]}  e.g. {sorted(da[key])[0]}")
for m in re.finditer(r'@(off_\w+)\[(\d+), (-?\d+)\]: (\d+)', txt):
    print(f"  {m[1]} flags={fl(int(m[2]))} offset={m[3]} count={m[4]}")
