// Queries: PE numbers, thread level, accessibility, shmem_ptr, library info.
#include <cstring>

#include "api/api_common.hpp"
#include "net/net.hpp"
#include "shmem.h"

using namespace gpushmem;

GPUSHMEM_EXPORT int shmem_my_pe(void) {
  api::require_running("shmem_my_pe");
  return rt().my_pe;
}

GPUSHMEM_EXPORT int shmem_n_pes(void) {
  api::require_running("shmem_n_pes");
  return rt().n_pes;
}

GPUSHMEM_EXPORT int _my_pe(void) {
  return shmem_my_pe();
}
GPUSHMEM_EXPORT int _num_pes(void) {
  return shmem_n_pes();
}

GPUSHMEM_EXPORT void shmem_query_thread(int *provided) {
  if (provided == nullptr) api::fail("shmem_query_thread", "provided=NULL: pass the address of an int");
  // Safe before init (reports SINGLE) although the specification leaves that undefined.
  *provided = running() ? rt().thread_level : SHMEM_THREAD_SINGLE;
}

// In GPU mode "accessible" means the PE's GPU heap is mapped here (the host API and kernels reach it).
GPUSHMEM_EXPORT int shmem_pe_accessible(int pe) {
  api::require_running("shmem_pe_accessible");
  Runtime &r = rt();
  if (pe < 0 || pe >= r.n_pes) return 0;
  // Through the network is accessible too: every RMA, AMO and collective reaches it (in GPU mode its GPU heap
  // through the peer's memory agent, and device code through the CPU proxy).
  if (r.gpu.base != nullptr) return r.gpu.peer_base[pe] != nullptr || net::kind(pe) == net::Kind::network ? 1 : 0;
  return r.p2p.reaches(pe) || net::kind(pe) == net::Kind::network ? 1 : 0;
}

namespace {

// PE pe's address for the symmetric `addr`, or nullptr when it is not a symmetric address or pe's heap is not
// mapped here. GPU-heap addresses give device addresses (for kernels and cudaMemcpy); a global or static
// variable gives PE pe's copy of it.
char *peer_address(const void *addr, int pe) {
  Runtime &r = rt();
  if (pe < 0 || pe >= r.n_pes) return nullptr;
  const char *p = static_cast<const char *>(addr);
  if (r.data.contains(p, 1)) return api::data_peer_or_null(p, pe);
  if (const char *gpu_base = r.gpu.base; gpu_base != nullptr) {
    const uint64_t mapped = r.gpu.mapped.load(std::memory_order_relaxed);
    if (p >= gpu_base + heap::kInternalAreaBytes && p < gpu_base + mapped && r.gpu.peer_base[pe] != nullptr)
      return r.gpu.peer_base[pe] + (p - gpu_base);
    return nullptr;
  }
  char *peer = r.p2p.heap_base(pe);
  if (peer == nullptr) return nullptr;
  if (p < r.heap.base() + heap::kInternalAreaBytes || p >= r.heap.base() + r.heap.size()) return nullptr;
  return peer + (p - r.heap.base());
}

}  // namespace

GPUSHMEM_EXPORT int shmem_addr_accessible(const void *addr, int pe) {
  api::require_running("shmem_addr_accessible");
  if (peer_address(addr, pe) != nullptr) return 1;
  // A host-heap address (or a global everybody shares) on a PE reached through the network.
  Runtime &r = rt();
  if (r.gpu.base != nullptr || net::kind(pe) != net::Kind::network) return 0;
  const char *p = static_cast<const char *>(addr);
  if (r.data.contains(p, 1)) return r.data_everywhere ? 1 : 0;
  return p >= r.heap.base() + heap::kInternalAreaBytes && p < r.heap.base() + r.heap.size() ? 1 : 0;
}

GPUSHMEM_EXPORT void *shmem_ptr(const void *dest, int pe) {
  api::require_running("shmem_ptr");
  return peer_address(dest, pe);
}

GPUSHMEM_EXPORT void shmem_info_get_version(int *major, int *minor) {
  if (major == nullptr || minor == nullptr)
    api::fail("shmem_info_get_version", "%s=NULL: pass the address of an int", major == nullptr ? "major" : "minor");
  *major = SHMEM_MAJOR_VERSION;
  *minor = SHMEM_MINOR_VERSION;
}

GPUSHMEM_EXPORT void shmem_info_get_name(char *name) {
  if (name == nullptr) api::fail("shmem_info_get_name", "name=NULL: pass a buffer of SHMEM_MAX_NAME_LEN bytes");
  static_assert(sizeof(SHMEM_VENDOR_STRING) <= SHMEM_MAX_NAME_LEN, "vendor string too long");
  std::memcpy(name, SHMEM_VENDOR_STRING, sizeof(SHMEM_VENDOR_STRING));
}

GPUSHMEM_EXPORT void shmem_pcontrol(int, ...) {}
