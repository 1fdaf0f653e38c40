// Symmetric-address translation for global and static variables (api_common.hpp's remote_addr hands
// addresses inside the program's data segment here, so the heap path stays a few instructions).
#include "api/api_common.hpp"
#include "net/net.hpp"

namespace gpushmem::api {

char *data_peer_or_null(const char *p, int pe) {
  const Runtime &r = rt();
  char *base = r.p2p.globals_base(pe);
  return base == nullptr ? nullptr : base + (p - r.data.start());
}

Remote remote_data_addr(const char *call, const char *arg, const char *p, size_t bytes, int pe) {
  Runtime &r = rt();
  if constexpr (GPUSHMEM_BUILT_WITH_ERROR_CHECKS) {
    if (r.error_checks) {
      if (pe < 0 || pe >= r.n_pes)
        fail(call, "pe=%d is out of range: the job has %d PEs (0..%d)", pe, r.n_pes, r.n_pes - 1);
      if (!r.data.contains(p, bytes))
        fail(call, "%s=%p (%zu bytes) runs past the end of the program's global and static variables [%p, %p) on PE %d",
             arg, static_cast<const void *>(p), bytes, static_cast<const void *>(r.data.start()),
             static_cast<const void *>(r.data.start() + r.data.size()), r.my_pe);
    }
  }
  char *peer = data_peer_or_null(p, pe);
  // Checked even without error checks: the translation has no other answer.
  if (peer == nullptr) [[unlikely]] {
    if (pe >= 0 && pe < r.n_pes && net::kind(pe) == net::Kind::network) {
      if (r.data_everywhere) return {const_cast<char *>(p), false, true};
      fail(call,
           "%s=%p is a global or static variable, and PE %d reaches PE %d only through the network, where globals "
           "are symmetric only when every PE runs the same executable with GPUSHMEM_SYMMETRIC_DATA=1; use "
           "shmem_malloc",
           arg, static_cast<const void *>(p), r.my_pe, pe);
    }
    fail(call,
         "%s=%p is a global or static variable, and PE %d's copy is not mapped in PE %d: globals are symmetric "
         "only when every PE of the node runs the same executable with GPUSHMEM_SYMMETRIC_DATA=1; use "
         "shmem_malloc",
         arg, static_cast<const void *>(p), pe, r.my_pe);
  }
  // In GPU mode the other buffer of a put or get may be device memory (shmem_malloc returns it): the copy
  // goes through CUDA, which handles every pairing. AMOs still reach the word directly (host_amo.hpp).
  return {peer, r.gpu.base != nullptr};
}

Remote remote_net_addr(const char *call, const char *, const char *sym, size_t, int pe) {
  Runtime &r = rt();
  // Checked always: without a mapping there is no address to fall back on.
  if (pe < 0 || pe >= r.n_pes) [[unlikely]]
    fail(call, "pe=%d is out of range: the job has %d PEs (0..%d)", pe, r.n_pes, r.n_pes - 1);
  if (net::kind(pe) != net::Kind::network) [[unlikely]]
    fail(call, "PE %d cannot be reached from PE %d (%s)", pe, r.my_pe, net::describe(pe).c_str());
  return {const_cast<char *>(sym), false, true};
}

}  // namespace gpushmem::api
