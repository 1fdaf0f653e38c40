#!/usr/bin/env bash
# gpushmem-vhost [--hosts K] [--uts] [--] program [args...]
#
# Runs one PE of a job as if the job's PEs were spread over K hosts ("virtual hosts"), to try multi-node
# runs on one machine: put it between the launcher and the program,
#   mpirun -np 4 gpushmem-vhost --hosts 2 ./prog        gpushmemrun -n 4 gpushmem-vhost --hosts 2 ./prog
# PE r of n (read from OMPI_COMM_WORLD_RANK/SIZE, PMIX_RANK, GPUSHMEMRUN_RANK/SIZE, PMI_RANK/SIZE) is on
# virtual host vhost<r*K/n>: PEs 0..n/K-1 on vhost0, and so on. PEs on different virtual hosts share no
# memory: every byte between them goes through the network transport (UCX).
#   default  sets GPUSHMEM_HOSTNAME=vhost<i> (gpushmem's testing knob)
#   --uts    runs the program in a UTS namespace of its own whose hostname is vhost<i> (unshare -u; as
#            root, else through a user namespace), which shows a real hostname is honoured without a knob
# K defaults to 2. Exit status: the program's; 64 on a usage error; 69 when --uts cannot make a namespace.
set -u
me=gpushmem-vhost
hosts=2
uts=0
while [ $# -gt 0 ]; do
  case $1 in
    --hosts)
      [ $# -ge 2 ] || { echo "$me: --hosts needs a number" >&2; exit 64; }
      hosts=$2
      shift 2
      ;;
    --uts) uts=1; shift ;;
    -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    -*) echo "$me: unknown option $1 (see --help)" >&2; exit 64 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "$me: no program given (see --help)" >&2; exit 64; }
case $hosts in '' | *[!0-9]* | 0) echo "$me: --hosts '$hosts' is not a positive number" >&2; exit 64 ;; esac

rank=${OMPI_COMM_WORLD_RANK:-${GPUSHMEMRUN_RANK:-${PMIX_RANK:-${PMI_RANK:-}}}}
size=${OMPI_COMM_WORLD_SIZE:-${GPUSHMEMRUN_SIZE:-${PMI_SIZE:-}}}
if [ -z "$rank" ] || [ -z "$size" ]; then
  echo "$me: cannot tell this PE's rank and the job's size: start it under mpirun or gpushmemrun" >&2
  exit 64
fi
name=vhost$((rank * hosts / size))

if [ "$uts" -eq 0 ]; then
  export GPUSHMEM_HOSTNAME=$name
  exec "$@"
fi
unset GPUSHMEM_HOSTNAME
ns=(unshare -u)
[ "$(id -u)" -eq 0 ] || ns=(unshare -r -u)
# The hostname is set inside the new namespace only; the machine's own stays as it is.
exec "${ns[@]}" sh -c 'hostname "$0" || { echo "gpushmem-vhost: cannot set the hostname in a new UTS namespace" >&2; exit 69; }; exec "$@"' "$name" "$@"
