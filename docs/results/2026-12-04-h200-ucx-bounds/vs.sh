#!/bin/bash
# vs.sh ROUNDS "PROG ARGS" VARIANT...: runs PROG once per variant per round, alternating, NP PEs on 2
# virtual hosts (UCX_TLS=tcp,self over lo), and prints each figure's median per variant and its ratio to the
# last variant's. A variant is NAME=ENV (ENV: space-separated VAR=VALUE for a gpushmem run of build $B) or
# ompi (Open MPI's oshrun running /tmp/ompi/PROG). A run that prints no figures leaves its tail in
# $O/failed-runs.txt.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 UCX_TLS=${UCX_TLS:-tcp,self} UCX_NET_DEVICES=lo SHMEM_SYMMETRIC_SIZE=256M
B=${B:-/work/main/build}; R=$1; shift; prog=($1); shift; out=/tmp/vs.$$; : > $out; log=/tmp/vs.$$.log
for i in $(seq $R); do
  for v in "$@"; do
    name=${v%%=*}
    if [ "$v" = ompi ]; then
      timeout 120 oshrun --oversubscribe --mca memory ^patcher $OMPI_EXTRA -np ${NP:-2} /tmp/ompi/${prog[0]} "${prog[@]:1}" > $log 2>&1
    else
      env ${v#*=} GPUSHMEM_BOOTSTRAP=mpi timeout 120 mpirun --oversubscribe -np ${NP:-2} $B/bin/gpushmem-vhost --hosts 2 -- $B/bin/${prog[0]} "${prog[@]:1}" > $log 2>&1
    fi
    grep -q '^json:' $log || { echo "== $name np${NP:-2} ${prog[*]}"; grep -v "^-\{10\}" $log | tail -12; } >> ${O:-/tmp}/failed-runs.txt
    grep '^json:' $log | sed "s/^json: /$name /" >> $out
  done
done
python3 - $out "$@" <<'PY'
import sys,json,statistics as st,collections
names=[v.split('=',1)[0] for v in sys.argv[2:]]
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    who,js=l.split(' ',1); j=json.loads(js); m=j['metric']
    d[(j['op'],j.get('type',''),j['size'],j['npes'],m,who)].append(j[m]['median'])
for k in sorted({k[:5] for k in d}):
    meds={n:st.median(d[k+(n,)]) for n in names if d.get(k+(n,))}
    ref=meds.get(names[-1])
    cols=' '.join(f"{n} {meds[n]:9.3f}" + (f" ({meds[n]/ref:.2f})" if ref else "") for n in names if n in meds)
    print(f"{k[0]:14s} {k[1]:5s} {k[2]:>8} np{k[3]} {k[4]:8s} {cols}  runs={ {n:['%.2f'%x for x in d[k+(n,)]] for n in names} }")
PY
