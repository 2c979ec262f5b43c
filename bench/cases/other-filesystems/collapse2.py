#!/usr/bin/env python3
"""usage: collapse2.py PERF_SCRIPT FS FSRANGES_JSON -- fs-owned frames (by the kallsyms address range of
fs/<dir> text, from fsranges.py) in `perf script -F comm,tid,ip,sym` output"""
import sys, re, collections, json
_r=sorted((int(a,16),int(b,16),k) for k,(a,b) in json.load(open(sys.argv[3])).items())
R={k:(a, min(b+0x2000, _r[i+1][0] if i+1<len(_r) else b+0x2000)) for i,(a,b,k) in enumerate(_r)}
OWN={'ext4':('ext4','jbd2'),'btrfs':('btrfs',),'xfs':('xfs',)}
PRE={'ext4':('ext4_','__ext4_','jbd2_','__jbd2_','jbd2__'),'btrfs':('btrfs_','__btrfs_'),'xfs':('xfs_','__xfs_','xlog_')}
def owner(ip):
    for k,(a,b) in R.items():
        if a<=ip<b: return k
    return None
def read(path):
    S=[]; cur=None
    for line in open(path, errors='replace'):
        if not line.strip():
            if cur: S.append(cur); cur=None
            continue
        if not line[0].isspace(): cur=(line.split()[0], [])
        else:
            p=line.split(None,1)
            try: ip=int(p[0],16)
            except: ip=0
            sym=re.sub(r'\+0x[0-9a-f]+$','',p[1].strip()) if len(p)>1 else '?'
            cur[1].append((ip,sym))
    if cur: S.append(cur)
    return S
path, fs = sys.argv[1], sys.argv[2]
S=read(path)
fsm=[st for c,st in S if c.startswith('fs_mark')]
op=[st for st in fsm if any(s=='__x64_sys_openat' for _,s in st)]
mk=[st for st in fsm if any(s=='__x64_sys_mkdir' for _,s in st)]
own=OWN[fs]
inc=collections.Counter(); owner_of={}
selfin=0; anyin=0
for st in op:
    seen=set()
    for ip,s in st:
        o=owner(ip)
        if o in own:
            owner_of[s]=o
            if s not in seen: inc[s]+=1; seen.add(s)
    if owner(st[0][0]) in own: selfin+=1
    if seen: anyin+=1
N=len(op)
spin=sum(1 for st in op if any(s=='rwsem_spin_on_owner' for _,s in st))
print(f"# rwsem_spin_on_owner in {100*spin/max(N,1):.1f}% of openat samples")
print(f"# fs_mark samples={len(fsm)} openat={N} mkdir(EEXIST)={len(mk)}; openat samples with a {'/'.join(own)} frame: {100*anyin/max(N,1):.1f}%, leaf (self) in {'/'.join(own)} text: {100*selfin/max(N,1):.1f}%")
print("## fs-owned frames, inclusive % of openat samples (top 40)")
for s,n in inc.most_common(40): print(f"  {100*n/N:5.1f}%  {s:45s} [{owner_of[s]}]{'' if s.startswith(PRE[fs]) else '  <-- not fs-prefixed'}")
nonp=[(s,n) for s,n in inc.most_common() if not s.startswith(PRE[fs])]
print("## ALL fs-owned frames without the fs prefix (inclusive count):", ', '.join(f"{s}({owner_of[s]})={n}" for s,n in nonp))
# fs-owned frames in other comms (kworkers, jbd2 thread)
oc=collections.Counter(); tot=collections.Counter()
for c,st in S:
    cc=re.sub(r'\d+','N',c)
    if any(owner(ip) in own for ip,_ in st): oc[cc]+=1
print("## samples with fs-owned frames by comm:", dict(oc.most_common(8)))
# leaf frames in bg threads
bg=collections.Counter()
for c,st in S:
    if not c.startswith('fs_mark') and any(owner(ip) in own for ip,_ in st):
        top=[s for ip,s in st if owner(ip) in own]
        bg[top[-1] if top else '?']+=1
print("## outermost fs frame in non-fs_mark samples:", dict(bg.most_common(8)))
