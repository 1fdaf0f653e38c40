#!/usr/bin/env python3
# devab.py FILE: FILE holds lines "<variant> json: {...}" from the device benchmarks; prints, for every point
# (bench, scope, size, metric), the median over the rounds of each variant and its ratio to the last variant.
import collections, json, statistics as st, sys
d = collections.defaultdict(list); order = []
for line in open(sys.argv[1]):
    if ' json: ' not in line: continue
    who, js = line.split(' json: ', 1)
    if who not in order: order.append(who)
    j = json.loads(js)
    for m, v in j.items():
        if isinstance(v, dict) and 'median' in v and not m.startswith('raw'):
            d[(j['bench'], j.get('scope', ''), j.get('op', j.get('type', '')), j.get('size', 0), m)].append((who, v['median']))
base = order[-1] if order else None
for k in sorted(d):
    per = {w: [x for ww, x in d[k] if ww == w] for w in order}
    if not all(per.values()): print(k, 'missing', {w: len(v) for w, v in per.items()}); continue
    meds = {w: st.median(v) for w, v in per.items()}
    cols = ' '.join(f"{w} {meds[w]:10.3f}" for w in order)
    rat = ' '.join(f"{w}/{base} {meds[w]/meds[base]:.3f}" for w in order[:-1]) if meds[base] else ''
    print(f"{k[0]:26s} {k[1]:6s} {str(k[2]):10s} {k[3]:>9} {k[4]:9s} {cols}  {rat}  n={len(per[base])}")
