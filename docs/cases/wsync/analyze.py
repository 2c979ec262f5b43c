#!/usr/bin/env python3
# summarize bpftrace off-CPU maps: us/op total, sleep vs preempt, by key frame and top stacks
import sys, json, glob, re, collections
N=int(sys.argv[1])
KEYS=['xlog_wait_on_iclog','xlog_cil_force_seq','xfs_log_force_seq','xlog_wait','xfs_log_force','xfs_buf_iowait','xfs_buf_lock','down','rwsem_down','mutex_lock','io_schedule','__cond_resched','preempt','exit_to_user_mode','xfs_trans_commit','xfs_create','do_mkdirat','do_sys_openat2','__x64_sys_close','xfs_fs_fsync', 'xfs_file_fsync','xfs_file_release']
def fns(st): return [re.sub(r'\+\d+$','',l.split()[-1]) for l in st.strip().split('\n') if l.strip()]
for cfg in 'AB':
    tot=collections.Counter(); byk=collections.Counter(); st_all=collections.Counter(); stn=collections.Counter(); reps=0; per=[]
    for f in sorted(glob.glob(cfg+'[0-9].bt.json')):
        reps+=1; d={}
        for line in open(f):
            if line.startswith('{"type"'):
                j=json.loads(line)
                if j['type']=='map': d.update(j['data'])
        per.append(d.get('@total_ns',0)/N/1000)
        for k in ['@total_ns','@sleep_ns','@preempt_ns','@total_n']: tot[k]+=d.get(k,0)
        for st,v in d.get('@off_ns',{}).items():
            fr=fns(st); key=';'.join(reversed(fr[:14])); st_all[key]+=v; stn[key]+=d['@off_n'][st]
            for k in KEYS:
                if any(x==k or x.startswith(k) for x in fr): byk[k]+=v
    print(f"== {cfg}: reps={reps} off-CPU us/op per rep {['%.1f'%x for x in per]}; mean total {tot['@total_ns']/reps/N/1000:.2f} us/op, sleep {tot['@sleep_ns']/reps/N/1000:.2f}, preempted {tot['@preempt_ns']/reps/N/1000:.2f}, switches/op {tot['@total_n']/reps/N:.2f}")
    for k in KEYS:
        if byk[k]: print(f"   stacks containing {k:22s} {byk[k]/reps/N/1000:8.2f} us/op")
    print("   top stacks (leaf-first trimmed, us/op, switches/op):")
    for k,v in st_all.most_common(6): print(f"   {v/reps/N/1000:8.2f} {stn[k]/reps/N:6.3f}  {k}")
