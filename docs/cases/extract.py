#!/usr/bin/env python3
# key structured fields of fscost summary.json for one op
import json, sys
j=json.load(open(sys.argv[1])); opn=sys.argv[2] if len(sys.argv)>2 else 'create'
op=[o for o in j['ops'] if o['op']==opn][0]
f=lambda x: None if x is None else round(x,1)
for k in ['oncpu','offcpu']:
    m=op[k]; print(f"{k}: verdict={m['verdict']} delta={f(m['delta'])} ns/op rel={m['rel'] and round(m['rel'],3)} q={m['q']:.3g} A={f(m['a_summary']['mean'])} B={f(m['b_summary']['mean'])}")
for p in op.get('paths',[]):
    print(f"path: kind={p['kind']} lock={p.get('lock')!r} delta={f(p['inclusive']['delta'])} share={p.get('share') and round(p['share'],3)} sig={p['inclusive']['significant']} frames=…{'→'.join(p['frames'][-4:])}")
    for s in p.get('split',[])[:5]: print("   split:", {k:(round(v,1) if isinstance(v,float) else v) for k,v in s.items() if not isinstance(v,(dict,list))})
for fa in op.get('families',[]):
    i=fa['inclusive']; print(f"family: {fa['name']} delta={f(i['delta'])} verdict={i['verdict']} sig={i['significant']} new_in_b={fa.get('new_in_b')}")
for l in op.get('locks',[]):
    w=l.get('wait',{}); 
    print(f"lock: name={l['name']!r} type={l.get('type')!r} change={l['change']!r} detail={l.get('detail')!r} contentions A={f(l['contentions']['a_summary']['mean']*1e4)}e-4 B={f(l['contentions']['b_summary']['mean']*1e4)}e-4/op wait_delta={f(w.get('delta')) if w else None} sig={w.get('significant') if w else None}")
for p in op.get('offcpu_parts',[]):
    print("offcpu_part:", {k:(round(v,1) if isinstance(v,float) else v) for k,v in p.items()})
print("offcpu_by_class:", json.dumps(op.get('offcpu_by_class'))[:600])
