#!/usr/bin/env python3
# Reference values for stats_test.cpp, computed from the textbook formulas
# with mpmath (40 digits) and by exhaustive enumeration, independently of
# Boost and of stats.cpp. Run: python3 stats_reference.py (needs mpmath).
from mpmath import mp, mpf, betainc, sqrt, findroot, erfc, tan, pi, binomial
from itertools import combinations
mp.dps = 40

def t_sf(t, df):  # P(T > t), t >= 0
    t = mpf(t); df = mpf(df)
    return betainc(df/2, mpf(1)/2, 0, df/(df+t*t), regularized=True) / 2

def t_q(p, df):
    p = mpf(p)
    return findroot(lambda t: (1 - t_sf(t, df)) - p, mpf(2))

print("tq df1", t_q('0.975', 1), tan(pi*mpf('0.475')))
print("tq df10", t_q('0.975', 10))
print("tq df4.5", t_q('0.975', '4.5'))
print("tq df4", t_q('0.975', 4))
print("tq df2 0.9", t_q('0.9', 2), (2*mpf('0.9')-1)/sqrt(2*mpf('0.9')*mpf('0.1')))
print("tq df3 0.05", -t_q('0.95', 3))

def mv(x):
    x = [mpf(v) for v in x]; n = len(x); m = sum(x)/n
    return n, m, sum((v-m)**2 for v in x)/(n-1)

def welch(a, b, level='0.95'):
    na, ma, va = mv(a); nb, mb, vb = mv(b)
    sa, sb = va/na, vb/nb
    se = sqrt(sa+sb); df = (sa+sb)**2/(sa**2/(na-1)+sb**2/(nb-1))
    d = mb-ma; t = d/se; p = 2*t_sf(abs(t), df)
    h = t_q((1+mpf(level))/2, df)*se
    return dict(diff=d, se=se, df=df, t=t, p=p, lo=d-h, hi=d+h)

def hedges(a, b):
    na, ma, va = mv(a); nb, mb, vb = mv(b)
    sp = sqrt(((na-1)*va+(nb-1)*vb)/(na+nb-2))
    return (mb-ma)/sp*(1-mpf(3)/(4*(na+nb)-9))

sleep1 = ['0.7','-1.6','-0.2','-1.2','-0.1','3.4','3.7','0.8','0.0','2.0']
sleep2 = ['1.9','0.8','1.1','0.1','-0.1','4.4','5.5','1.6','4.6','3.4']
print("welch sleep", welch(sleep1, sleep2))
print("hedges sleep", hedges(sleep1, sleep2))
wa = ['12.0','13.0','11.0','14.0']; wb = ['20.0','30.0','25.0']
print("welch small", welch(wa, wb, '0.9'))
print("hedges small", hedges(wa, wb))

def summ(x, level='0.95'):
    n, m, v = mv(x); h = t_q((1+mpf(level))/2, n-1)*sqrt(v)/sqrt(n)
    return m, sqrt(v), m-h, m+h
print("summ 1..5", summ([1,2,3,4,5]))
print("summ 1,3", summ([1,3]))
print("summ 1..5 0.9", summ([1,2,3,4,5], '0.9'))

def u_of_b(a, b):
    return sum((1 if y > x else mpf(1)/2 if y == x else 0) for x in a for y in b)

def mw_asym(a, b):  # scipy asymptotic, use_continuity=True
    n1, n2 = len(a), len(b); N = n1+n2
    u = u_of_b(a, b)
    vals = sorted(a+b); ties = {}
    for v in vals: ties[v] = ties.get(v, 0)+1
    ts = sum(t**3-t for t in ties.values())
    s = sqrt(mpf(n1*n2)/12*((N+1)-mpf(ts)/(N*(N-1))))
    mu = mpf(n1*n2)/2
    z = (max(u, n1*n2-u) - mu - mpf(1)/2)/s
    return u, min(1, erfc(z/sqrt(2)))

print("mw sleep", mw_asym([mpf(v) for v in sleep1], [mpf(v) for v in sleep2]))

def mw_exact_brute(a, b):
    # Enumerate which pooled ranks b occupies (no ties).
    pooled = sorted(a+b); n = len(pooled); nb = len(b)
    u = u_of_b(a, b)
    cnt_le = cnt_ge = tot = 0
    for c in combinations(range(n), nb):
        uu = sum(c) - nb*(nb-1)//2  # ranks from 0
        tot += 1; cnt_le += uu <= u; cnt_ge += uu >= u
    return u, min(1, 2*mpf(min(cnt_le, cnt_ge))/tot)

print("exact 123/456", mw_exact_brute([1,2,3],[4,5,6]))
print("exact 5v5", mw_exact_brute([1,2,3,4,5],[6,7,8,9,10]), mpf(2)/252)
print("exact mixed", mw_exact_brute([1,3,5,7],[2,4,6,8,9]))
print("exact 6v7", mw_exact_brute([1.5,2.5,4,8,9,13],[3,5,6,7,10,11,12]))

# Recurrence (a different algorithm from stats.cpp's q-binomial) for 20 v 20:
from functools import lru_cache
@lru_cache(None)
def f(m, n, u):
    if u < 0: return 0
    if m == 0 or n == 0: return 1 if u == 0 else 0
    return f(m-1, n, u-n) + f(m, n-1, u)
tot = binomial(40, 20)
for u in (130, 200):
    le = sum(f(20, 20, k) for k in range(u+1)); ge = sum(f(20, 20, k) for k in range(u, 401))
    print("exact 20v20 u", u, min(1, 2*mpf(min(le, ge))/tot), "total", int(tot), sum(f(20,20,k) for k in range(401)))
print("welch onesd", welch([5,5,5],[6,7,8]), 1-sqrt(mpf(6)/7))
a = [mpf(i) for i in range(1,21)]
b = [mpf(6)+mpf(i)/20 for i in range(1,11)] + [mpf(7)+mpf(i)/20 for i in range(1,11)]
print("u 20v20 data", u_of_b(a,b))
print("asym 21v3", mw_asym([mpf(i) for i in range(1,22)], [mpf('21.5'), mpf(22), mpf(23)]))
print("asym ties small", mw_asym([mpf(1),mpf(2),mpf(2)], [mpf(2),mpf(3),mpf(4)]))
