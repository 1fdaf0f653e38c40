// Symmetric-address translation for the GPU heap (api_common.hpp's remote_addr hands GPU-heap addresses
// here, so the host-heap path stays a few instructions).
#include "api/api_common.hpp"
#include "net/net.hpp"

namespace gpushmem::api {

void fail_gpu_unreachable(const char *call, int pe) {
  Runtime &r = rt();
  if (r.topology.local_index_of[pe] < 0)
    fail(call, "PE %d cannot be reached from PE %d: it runs on another node and no network transport is available yet",
         pe, r.my_pe);
  fail(call,
       "PE %d's GPU heap is not mapped in PE %d: the two GPUs have no peer access (cudaDeviceCanAccessPeer is 0), "
       "or PE %d's GPU is hidden from this process (CUDA_VISIBLE_DEVICES); no other transport reaches it yet "
       "(shmem_pe_accessible(%d) is 0)",
       pe, r.my_pe, pe, pe);
}

Remote remote_gpu_addr(const char *call, const char *arg, const char *p, size_t bytes, int pe) {
  Runtime &r = rt();
  const char *base = r.gpu.base;
  if constexpr (GPUSHMEM_BUILT_WITH_ERROR_CHECKS) {
    if (r.error_checks) {
      if (pe < 0 || pe >= r.n_pes)
        fail(call, "pe=%d is out of range: the job has %d PEs (0..%d)", pe, r.n_pes, r.n_pes - 1);
      const uint64_t mapped = r.gpu.mapped.load(std::memory_order_relaxed);
      if (p < base + heap::kInternalAreaBytes || p >= base + mapped || bytes > static_cast<size_t>(base + mapped - p))
        fail(call,
             "%s=%p (%zu bytes) is not a symmetric address: it is not inside the allocated part [%p, %p) of PE %d's "
             "GPU symmetric heap; pass memory from shmem_malloc",
             arg, static_cast<const void *>(p), bytes, static_cast<const void *>(base + heap::kInternalAreaBytes),
             static_cast<const void *>(base + mapped), r.my_pe);
    }
  }
  char *peer = r.gpu.peer_base[pe];
  if (peer == nullptr) [[unlikely]] {
    // Another node (or a GPU pair without peer access on a job that uses the network): the network reaches
    // the peer's GPU heap through its agent. `gpu` stays set: the local buffer may be device memory, which
    // net:: stages through host memory.
    if (net::kind(pe) == net::Kind::network) return {const_cast<char *>(p), true, true};
    // Checked even without error checks: a null peer would otherwise surface as an obscure CUDA error.
    fail_gpu_unreachable(call, pe);
  }
  return {peer + (p - base), true};
}

}  // namespace gpushmem::api
