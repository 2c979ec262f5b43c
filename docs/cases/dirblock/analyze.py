#!/usr/bin/env python3
# inclusive/self ns per function for stacks under ROOT, averaged over reps, per op
import sys, collections, glob
N=int(sys.argv[1]); ROOT=sys.argv[2]
def load(f):
    inc=collections.Counter(); slf=collections.Counter(); tot=0
    for line in open(f):
        st,c=line.rsplit(' ',1); c=int(c); fr=st.split(';')
        if ROOT not in fr: continue
        i=fr.index(ROOT); sub=fr[i:]
        tot+=c
        for fn in set(sub): inc[fn]+=c
        slf[sub[-1]]+=c
    return inc,slf,tot
res={}
for cfg in 'AB':
    fs=sorted(glob.glob(cfg+'[0-9].folded'))
    L=[load(f) for f in fs]
    inc=collections.Counter(); slf=collections.Counter()
    for a,b,t in L: inc.update(a); slf.update(b)
    k=len(L)
    res[cfg]=({f:v/k/N/1000 for f,v in inc.items()},{f:v/k/N/1000 for f,v in slf.items()},[t/N/1000 for _,_,t in L])
print("ROOT",ROOT,"us/op per rep: A",["%.2f"%x for x in res['A'][2]],"B",["%.2f"%x for x in res['B'][2]])
fns=set(res['A'][0])|set(res['B'][0])
rows=sorted(fns,key=lambda f:-(res['B'][0].get(f,0)-res['A'][0].get(f,0)))
print("%-45s %8s %8s %8s | %7s %7s"%("function(inclusive us/op)","A","B","B-A","selfA","selfB"))
for f in rows[:int(sys.argv[3]) if len(sys.argv)>3 else 40]:
    a=res['A'][0].get(f,0); b=res['B'][0].get(f,0)
    print("%-45s %8.3f %8.3f %+8.3f | %7.3f %7.3f"%(f[:45],a,b,b-a,res['A'][1].get(f,0),res['B'][1].get(f,0)))
print("\nfunctions in B not in A with >=0.02 us/op:", [ (f,round(res['B'][0][f],3)) for f in res['B'][0] if f not in res['A'][0] and res['B'][0][f]>=0.02])
print("functions in A not in B with >=0.02 us/op:", [ (f,round(res['A'][0][f],3)) for f in res['A'][0] if f not in res['B'][0] and res['A'][0][f]>=0.02])
