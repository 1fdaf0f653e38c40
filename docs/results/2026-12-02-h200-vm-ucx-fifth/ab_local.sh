#!/bin/bash
# ab_local.sh ROUNDS "PROG ARGS": one node, NP PEs, NEW build against OLD build, alternating.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$1; shift; prog=($1); out=/tmp/abl.$$; : > $out
for i in $(seq $R); do
  for who in new old; do
    B=$NEW; [ $who = old ] && B=$OLD
    GPUSHMEM_BOOTSTRAP=mpi timeout 120 mpirun --oversubscribe -np ${NP:-2} $B/bin/${prog[0]} "${prog[@]:1}" 2>&1 | grep '^json:' | sed "s/^json: /$who /" >> $out
  done
done
python3 - $out <<'PY'
import sys,json,statistics as st,collections
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    who,js=l.split(' ',1); j=json.loads(js); m=j['metric']
    d[(j['op'],j.get('type',''),j['size'],j['npes'],who)].append(j[m]['median'])
for k in sorted({k[:4] for k in d}):
    o=d.get(k+('new',),[]); b=d.get(k+('old',),[])
    if not o or not b: print(k, 'missing'); continue
    mo=st.median(o); mb=st.median(b)
    print(f"{k[0]:14s} {k[2]:>8} np{k[3]} new {mo:9.3f} old {mb:9.3f} ratio {mo/mb:.3f}  new={['%.2f'%x for x in o]} old={['%.2f'%x for x in b]}")
PY
