#!/usr/bin/env python3
"""fsranges.py OUT.json [SYMBOL...]: the contiguous .text ranges of fs/ext4,
fs/jbd2, fs/btrfs, fs/xfs in /proc/kallsyms (a built-in kernel links the
objects of one directory together), written to OUT.json for collapse2.py;
then which range each SYMBOL is in."""
GAP=400
import sys, json
syms=[]
for l in open('/proc/kallsyms'):
    a,t,n=l.split()[:3]
    if t in 'tT' and len(l.split())==3: syms.append((int(a,16),n))
syms.sort()
names=[n for a,n in syms]
def runs(pred):
    # maximal runs of consecutive symbols where pred-matching ones dominate: take index span between
    # first and last matching symbol of the largest cluster (gap < 200 non-matching symbols)
    idx=[i for i,n in enumerate(names) if pred(n)]
    clusters=[]; cur=[idx[0]]
    for i in idx[1:]:
        if i-cur[-1] > GAP: clusters.append(cur); cur=[i]
        else: cur.append(i)
    clusters.append(cur)
    clusters.sort(key=len, reverse=True)
    return clusters
P={'ext4':lambda n:('ext4' in n) and 'jbd2' not in n,
   'jbd2':lambda n:'jbd2' in n,
   'btrfs':lambda n:'btrfs' in n,
   'xfs':lambda n:('xfs' in n) or n.startswith(('xlog','__pfx_xlog'))}
out={}
for fs,p in P.items():
    cl=runs(p)
    c=cl[0]; lo,hi=c[0],c[-1]
    # extend run: include neighbours until next cluster boundary symbol isn't ours? keep simple
    out[fs]=(syms[lo][0], syms[hi][0])
    inside=names[lo:hi+1]
    nonp=[n for n in inside if not p(n)]
    print(f"{fs}: {hex(syms[lo][0])}-{hex(syms[hi][0])} first={names[lo]} last={names[hi]} symbols={hi-lo+1} prefixed={sum(map(p,inside))} nonprefixed={len(nonp)}; other clusters sizes={[len(x) for x in cl[1:6]]}")
    print("   neighbours before:", names[lo-3:lo], " after:", names[hi+1:hi+4])
# fix-ups: jbd2 starts right after ext4 ends (fs/Makefile link order ext4 -> jbd2); ext4 starts after devpts
# (6.18's first ext4 symbol has no ext4 in its name). Another kernel may differ: then say so and keep the clusters.
ehi=max(i for i,(a,n) in enumerate(syms) if a==out['ext4'][1])
jlo=ehi+1
print('jbd2 range start fixed to', names[jlo], '(after', names[ehi], ')')
out['jbd2']=(syms[jlo][0], out['jbd2'][1])
e_lo=names.index('__pfx_num_clusters_in_group') if '__pfx_num_clusters_in_group' in names else None
if e_lo is not None and 'devpts' in names[e_lo-1]: out['ext4']=(syms[e_lo][0], out['ext4'][1])
else: print('ext4 range start not fixed: no __pfx_num_clusters_in_group after devpts in this kernel')
json.dump({k:[hex(a),hex(b)] for k,(a,b) in out.items()}, open(sys.argv[1],'w'))
if len(sys.argv)>2:
    for n in sys.argv[2:]:
        i=names.index(n) if n in names else None
        if i is None: print(n,'not found'); continue
        a=syms[i][0]; own=[fs for fs,(lo,hi) in out.items() if lo<=a<=hi]
        print(f"  {n}: {own or 'not in ext4/jbd2/btrfs/xfs text range'}")
