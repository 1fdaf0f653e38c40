#!/bin/bash
# ab_device.sh ROUNDS "PROG ARGS": the NEW build's perftest program against the OLD build's, alternating, 2 PEs on this
# node (P2P: the fast path), ENV in the environment of both; prints, for every figure of every json line, the
# median over the rounds of each build and new/old.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$1; shift; prog=($1); out=/tmp/abd.$$; : > $out
for i in $(seq $R); do
  for who in new old; do
    B=$NEW; [ $who = old ] && B=$OLD
    env ${ENV:-} GPUSHMEM_BOOTSTRAP=mpi timeout 120 mpirun -np 2 --bind-to none --oversubscribe $B/bin/${prog[0]} "${prog[@]:1}" 2>&1 |
      grep '^json:' | sed "s/^json: /$who /" >> $out
  done
done
python3 - $out <<'PY'
import sys, json, statistics as st, collections
d = collections.defaultdict(list)
for l in open(sys.argv[1]):
    who, js = l.split(' ', 1)
    j = json.loads(js)
    key = tuple((k, v) for k, v in j.items() if not isinstance(v, (dict, float)) and k not in ('library', 'ratio'))
    for k, v in j.items():
        if isinstance(v, dict) and 'median' in v:
            d[(key, k, who)].append(v['median'])
for (key, field) in sorted({(k[0], k[1]) for k in d}):
    n, o = d.get((key, field, 'new'), []), d.get((key, field, 'old'), [])
    if not n or not o: continue
    name = ' '.join(f'{k}={v}' for k, v in key if k not in ('npes', 'iters', 'warmup', 'repeats', 'metric', 'ref', 'check', 'count') and v != '')
    print(f"{name} {field}: new {st.median(n):.3f} old {st.median(o):.3f} ratio {st.median(n) / st.median(o):.3f}")
PY
