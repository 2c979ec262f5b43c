#!/usr/bin/env python3
"""btfoff.py STRUCT OFFSET... -> member path at byte offset (from `bpftool btf dump file /sys/kernel/btf/vmlinux format raw` in $BTF_RAW)"""
import os, re, sys
T={}; cur=None
for line in open(os.environ['BTF_RAW']):
    m=re.match(r"\[(\d+)\] (\w+) '([^']*)'(.*)", line)
    if m:
        tid=int(m[1]); kind=m[2]; name=m[3]; rest=m[4]
        d={'kind':kind,'name':name,'members':[]}
        for k,v in re.findall(r'(\w+)=(\S+)', rest): d[k]=v
        T[tid]=d; cur=d; continue
    m=re.match(r"\s+'([^']*)' type_id=(\d+) bits_offset=(\d+)", line)
    if m and cur is not None: cur['members'].append((m[1],int(m[2]),int(m[3])))
def strip(t):
    while T[t]['kind'] in ('TYPEDEF','CONST','VOLATILE','RESTRICT','TYPE_TAG'): t=int(T[t]['type_id'])
    return t
def size(t):
    t=strip(t); d=T[t]
    if d['kind'] in ('STRUCT','UNION','INT','ENUM','ENUM64','FLOAT'): return int(d['size'])
    if d['kind']=='PTR': return 8
    if d['kind']=='ARRAY': return size(int(d['type_id']))*int(d['nr_elems'])
    return 0
def resolve(t, off, path=''):
    t=strip(t); d=T[t]
    if d['kind'] in ('STRUCT','UNION'):
        best=None
        for name,mt,bo in d['members']:
            b=bo//8; s=size(mt)
            if b<=off<b+max(s,1):
                r=resolve(mt, off-b, f"{path}.{name}" if name else path)
                if best is None or (name and 'lock' in (r or '')): best=r
        return best if best is not None else f"{path}+{off}(padding?)"
    if d['kind']=='ARRAY':
        es=size(int(d['type_id'])); i=off//es
        return resolve(int(d['type_id']), off-i*es, f"{path}[{i}]")
    return path+(f"+{off}" if off else '')+f" ({T[t]['name'] or T[t]['kind']})"
def find(name):
    for tid,d in T.items():
        if d['kind']=='STRUCT' and d['name']==name: return tid
if __name__=='__main__':
    sid=find(sys.argv[1])
    for o in sys.argv[2:]: print(sys.argv[1], o, '->', resolve(sid, int(o)))
