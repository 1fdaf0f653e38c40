#!/bin/bash
# Experiment: do the 1 MiB puts of gpu.device_api.event (vhost) pass with UCX_TLS=tcp,self, or with every agent message eager?
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$PWD B=$R/build-dev O=${OUT:-/tmp/out}; mkdir -p $O; t0=$SECONDS
cmake -S . -B $B -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DGPUSHMEM_UCX_INCLUDE=$R/.deps/ucx/usr/include > $O/exp.txt 2>&1
cmake --build $B -j 16 --target gpu_device_api_event gpushmem_gpu_probe >> /tmp/b.log 2>&1 || { tail -30 /tmp/b.log >> $O/exp.txt; exit 1; }
echo "[$((SECONDS-t0)) s] built" >> $O/exp.txt
ucx_info -v >> $O/exp.txt 2>&1; ucx_info -d 2>/dev/null | grep -E "Transport:" | sort -u | tr '\n' ' ' >> $O/exp.txt; echo >> $O/exp.txt
for v in "UCX_TLS=tcp,self" "GPUSHMEM_UCX_RNDV_BYTES=8388608"; do
  (cd $B && env $v GPUSHMEM_PROXY_TIMEOUT=5 GPUSHMEM_DEVICE_TIMEOUT=10 timeout -k 3 30 ctest -V -R '^gpu\.device_api\.event\.mpi-vh2\.np2$' > /tmp/t.txt 2>&1)
  pkill -9 -f "$B/bin/" ; pkill -9 mpirun; for d in /tmp/gpushmem-mps.*/pipe; do echo quit | CUDA_MPS_PIPE_DIRECTORY=$d nvidia-cuda-mps-control; done 2>/dev/null; sleep 1
  echo "=== [$((SECONDS-t0)) s] $v: $(grep -oE 'Passed|\*\*\*Failed|Timeout' /tmp/t.txt | head -1)" >> $O/exp.txt
  grep -iE "ucx|gpushmem\[|error" /tmp/t.txt | cut -c1-300 | head -20 >> $O/exp.txt
done
