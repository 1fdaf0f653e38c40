#!/bin/bash
# ab_builds.sh ROUNDS "PROG ARGS": NEW build against OLD build, alternating, NP PEs; VHOSTS=2 runs each PE
# in its own virtual host (UCX between them, on UCX_TLS=tcp,self over lo), else one node.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 UCX_TLS=${UCX_TLS:-tcp,self} UCX_NET_DEVICES=lo SHMEM_SYMMETRIC_SIZE=256M
R=$1; shift; prog=($1); out=/tmp/abb.$$; : > $out
for i in $(seq $R); do
  for who in new old; do
    B=$NEW; [ $who = old ] && B=$OLD
    wrap=(); [ -n "${VHOSTS:-}" ] && wrap=($B/bin/gpushmem-vhost --hosts $VHOSTS --)
    GPUSHMEM_BOOTSTRAP=mpi timeout 120 mpirun --oversubscribe -np ${NP:-2} "${wrap[@]}" $B/bin/${prog[0]} "${prog[@]:1}" 2>&1 | grep '^json:' | sed "s/^json: /$who /" >> $out
  done
done
python3 - $out <<'PY'
import sys,json,statistics as st,collections
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    who,js=l.split(' ',1); j=json.loads(js); m=j['metric']
    d[(j['op'],j.get('type',''),j['size'],j['npes'],who,m)].append(j[m]['median'])
for k in sorted({k[:4]+(k[5],) for k in d}):
    o=d.get(k[:4]+('new',k[4]),[]); b=d.get(k[:4]+('old',k[4]),[])
    if not o or not b: print(k, 'missing'); continue
    mo=st.median(o); mb=st.median(b)
    print(f"{k[0]:14s} {k[2]:>8} np{k[3]} {k[4]:10s} new {mo:9.3f} old {mb:9.3f} ratio {mo/mb:.3f}  new={['%.2f'%x for x in o]} old={['%.2f'%x for x in b]}")
PY
