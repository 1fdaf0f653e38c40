#!/bin/bash
# ab.sh ROUNDS "PROG ARGS": gpushmem (2 virtual hosts) against Open MPI's oshrun, alternating; each op's
# median over the rounds. A run that prints no figures leaves its last lines in $O/failed-runs.txt.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ${UCX_TLS+UCX_TLS=$UCX_TLS} UCX_NET_DEVICES=lo SHMEM_SYMMETRIC_SIZE=256M
B=${B:-/work/main/build}; R=$1; shift; prog=($1); shift
out=/tmp/ab.$$; : > $out; log=/tmp/ab.$$.log
for i in $(seq $R); do
  GPUSHMEM_BOOTSTRAP=mpi timeout 120 mpirun --oversubscribe -np ${NP:-2} $B/bin/gpushmem-vhost --hosts 2 -- $B/bin/${prog[0]} "${prog[@]:1}" > $log 2>&1
  grep -q '^json:' $log || { echo "== ours np${NP:-2} ${prog[*]} (rc $?)"; tail -5 $log; } >> ${O:-/tmp}/failed-runs.txt
  grep '^json:' $log | sed 's/^json: /ours /' >> $out
  if [ -z "$NOOMPI" ]; then
    timeout 120 oshrun --oversubscribe --mca memory ^patcher $OMPI_EXTRA -np ${NP:-2} /tmp/ompi/${prog[0]} "${prog[@]:1}" > $log 2>&1
    grep -q '^json:' $log || { echo "== ompi np${NP:-2} ${prog[*]}"; tail -5 $log; } >> ${O:-/tmp}/failed-runs.txt
    grep '^json:' $log | sed 's/^json: /ompi /' >> $out
  fi
done
python3 - $out <<'PY'
import sys,json,statistics as st,collections
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    who,js=l.split(' ',1); j=json.loads(js); m=j['metric']
    d[(j['op'],j.get('type',''),j['size'],j['npes'],who)].append(j[m]['median'])
keys=sorted({k[:4] for k in d})
for k in keys:
    o=d.get(k+('ours',),[]); b=d.get(k+('ompi',),[])
    mo=st.median(o) if o else float('nan'); mb=st.median(b) if b else float('nan')
    print(f"{k[0]:14s} {k[1]:6s} {k[2]:>8} np{k[3]} ours {mo:9.3f} ompi {mb:9.3f} ratio {mo/mb if b and o else float('nan'):.3f}  ours={['%.1f'%x for x in o]} ompi={['%.1f'%x for x in b]}")
PY
