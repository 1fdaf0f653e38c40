// Device shmem_ptr, shmem_my_pe and shmem_n_pes. Every PE gets, inside a kernel, the address of a
// symmetric array on every PE and writes its own slot there with plain stores; after a device barrier
// each PE finds every PE's value in its array. shmem_ptr must be NULL for a PE out of range and for an
// address outside the symmetric heap, must give the local address for this PE, and must agree with the
// host's shmem_ptr; the device's my_pe / n_pes must match the host's.
#include <vector>

#include "device_api_common.cuh"

namespace {

// ptrs[0..npes): shmem_ptr(sym, pe); then (sym, -1), (sym, npes), (not_symmetric, my pe).
__global__ void ptr_kernel(int *sym, int *not_symmetric, void **ptrs, int *ids, device_report *report) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  ids[0] = me;
  ids[1] = npes;
  for (int pe = 0; pe < npes; ++pe) {
    int *p = static_cast<int *>(shmem_ptr(sym, pe));
    ptrs[pe] = p;
    if (p == nullptr)
      report_failure(report, 0, pe, 1, 0);
    else
      p[me] = 1000 * me + pe;
  }
  ptrs[npes] = shmem_ptr(sym, -1);
  ptrs[npes + 1] = shmem_ptr(sym, npes);
  ptrs[npes + 2] = shmem_ptr(not_symmetric, me);
  shmem_barrier_all();
  for (int pe = 0; pe < npes; ++pe)
    if (sym[pe] != 1000 * pe + me) report_failure(report, 1, pe, 1000 * pe + me, sym[pe]);
}

}  // namespace

int main() {
  const int skip = gpu_skip_status("device_api_ptr");
  if (skip != 0) return skip;
  shmem_init();
  if (device_state_ready("device_api_ptr")) {
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    int *sym = static_cast<int *>(shmem_calloc(static_cast<size_t>(npes), sizeof(int)));
    int *not_symmetric = nullptr;
    void **ptrs = nullptr;
    int *ids = nullptr;
    CUDA_CHECK(cudaMalloc(&not_symmetric, sizeof(int)));
    CUDA_CHECK(cudaMalloc(&ptrs, (npes + 3) * sizeof(void *)));
    CUDA_CHECK(cudaMalloc(&ids, 2 * sizeof(int)));
    device_report *report = new_device_report();
    device_sync_barrier();
    ptr_kernel<<<1, 1>>>(sym, not_symmetric, ptrs, ids, report);
    device_sync_barrier();
    check_device_report(report,
                        "shmem_ptr stores (round 0: shmem_ptr returned NULL for a P2P peer, 1: a value "
                        "missing after the barrier; element = PE)");
    std::vector<void *> got(npes + 3);
    int host_ids[2];
    CUDA_CHECK(cudaMemcpy(got.data(), ptrs, got.size() * sizeof(void *), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(host_ids, ids, sizeof host_ids, cudaMemcpyDeviceToHost));
    PE_CHECK(host_ids[0] == me && host_ids[1] == npes, "device shmem_my_pe / shmem_n_pes gave %d / %d, host %d / %d",
             host_ids[0], host_ids[1], me, npes);
    PE_CHECK(got[me] == sym, "device shmem_ptr(sym, my pe) = %p, expected the local address %p", got[me],
             static_cast<void *>(sym));
    for (int pe = 0; pe < npes; ++pe)
      PE_CHECK(got[pe] == shmem_ptr(sym, pe), "shmem_ptr(sym, %d): device %p, host %p", pe, got[pe],
               shmem_ptr(sym, pe));
    PE_CHECK(got[npes] == nullptr, "device shmem_ptr(sym, -1) = %p, expected NULL", got[npes]);
    PE_CHECK(got[npes + 1] == nullptr, "device shmem_ptr(sym, n_pes) = %p, expected NULL", got[npes + 1]);
    PE_CHECK(got[npes + 2] == nullptr, "device shmem_ptr(cudaMalloc'd address, me) = %p, expected NULL", got[npes + 2]);
    CUDA_CHECK(cudaFree(report));
    CUDA_CHECK(cudaFree(ids));
    CUDA_CHECK(cudaFree(ptrs));
    CUDA_CHECK(cudaFree(not_symmetric));
    shmem_free(sym);
  }
  return pe_finish("device_api_ptr");
}
