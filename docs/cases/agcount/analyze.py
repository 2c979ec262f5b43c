#!/usr/bin/env python3
# lock contention + off-CPU per create, by lock identity (from stack) and flags
import sys, json, glob, re, collections
TAG=sys.argv[1]; NOPS=int(sys.argv[2])   # total creates per run (files*threads)
FL={0:'sem/none',1:'SPIN',2:'READ',4:'WRITE',32:'MUTEX',33:'MUTEX|SPIN',3:'SPIN|READ',5:'SPIN|WRITE'}
def fns(st): return [re.sub(r'\+\d+$','',l.split()[-1]) for l in st.strip().split('\n') if l.strip()]
def ident(fr):
    s=set(fr)
    if 'xfs_read_agi' in s or 'xfs_ialloc_read_agi' in s: return 'AGI buf (xfs_read_agi)'
    if 'xfs_read_agf' in s or 'xfs_alloc_read_agf' in s: return 'AGF buf (xfs_read_agf)'
    if 'xfs_alloc_read_agfl' in s: return 'AGFL buf'
    if 'xfs_buf_lock' in s: return 'other xfs_buf_lock: '+next((f for f in fr if f.startswith('xfs_') and f not in('xfs_buf_lock','xfs_buf_find_lock','xfs_buf_get_map','xfs_buf_read_map','xfs_trans_read_buf_map','xfs_buf_lookup')), '?')
    for k in ['xfs_ilock','xlog_grant','xlog_cil','xfs_log','mutex_lock','rwsem','spin','queued_spin_lock_slowpath','_raw_spin_lock']:
        m=[f for f in fr if f.startswith(k)]
        if m: return m[0]+' <- '+next((f for f in fr if f.startswith('xfs_') or f.startswith('xlog')), fr[min(3,len(fr)-1)])
    return fr[1] if len(fr)>1 else '?'
for cfg in 'AB':
    files=sorted(glob.glob(f'{TAG}.{cfg}[0-9].bt.json')); reps=len(files)
    W=collections.Counter(); C=collections.Counter(); OFF=collections.Counter(); OFFk=collections.Counter(); tw=tn=0; per=[]
    for f in files:
        d={}
        for line in open(f):
            if line.startswith('{"type"'):
                j=json.loads(line)
                if j['type']=='map': d.update(j['data'])
        tw+=d.get('@tot_wait_ns',0); tn+=d.get('@tot_n',0); per.append((d.get('@tot_n',0)/NOPS, d.get('@tot_wait_ns',0)/NOPS/1000))
        wn=d.get('@wait_ns',{}); wc=d.get('@wait_n',{})
        # keys may be "stack,flags" composite; bpftrace json gives list-like key strings
        for k,v in wn.items():
            st,fl=k.rsplit(',',1) if isinstance(k,str) else (k[0],k[1])
            fr=fns(st); key=(ident(fr),FL.get(int(fl),str(fl))); W[key]+=v; C[key]+=wc[k]
        for st,v in d.get('@off_ns',{}).items():
            fr=fns(st)
            if 'futex_wait' in ' '.join(fr) or 'do_futex' in fr: continue
            OFF['total']+=v; OFFk[ident(fr) if 'xfs_buf_lock' in fr or 'down' in fr else ('log: '+next(f for f in fr if f.startswith('xlog') or f.startswith('xfs_log')) if any(f.startswith('xlog_') for f in fr) else 'other: '+next((f for f in fr[3:] if f.startswith('xfs_') ), fr[min(4,len(fr)-1)]))]+=v
    print(f"== {TAG} {cfg}: per rep (contentions/op, wait us/op) {[('%.3f'%a,'%.2f'%b) for a,b in per]}; mean {tn/reps/NOPS:.4f} contentions/op, {tw/reps/NOPS/1000:.3f} us/op wait; off-CPU (excl futex join) {OFF['total']/reps/NOPS/1000:.3f} us/op")
    for k,v in W.most_common(8): print(f"   lock {k[0]:45s} {k[1]:11s} n/op {C[k]/reps/NOPS:.4f} wait {v/reps/NOPS/1000:.3f} us/op  avg {v/C[k]/1000:.1f} us")
    for k,v in OFFk.most_common(6): print(f"   offcpu {k:60s} {v/reps/NOPS/1000:.3f} us/op")
