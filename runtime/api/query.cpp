// Queries: PE numbers, thread level, accessibility, shmem_ptr, library info.
#include <cstring>

#include "api/api_common.hpp"
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

GPUSHMEM_EXPORT int shmem_pe_accessible(int pe) {
  api::require_running("shmem_pe_accessible");
  Runtime &r = rt();
  return pe >= 0 && pe < r.n_pes && r.peer_base[pe] != nullptr ? 1 : 0;
}

GPUSHMEM_EXPORT int shmem_addr_accessible(const void *addr, int pe) {
  api::require_running("shmem_addr_accessible");
  Runtime &r = rt();
  if (pe < 0 || pe >= r.n_pes || r.peer_base[pe] == nullptr) return 0;
  const char *p = static_cast<const char *>(addr);
  return p >= r.heap.base() + heap::kInternalAreaBytes && p < r.heap.base() + r.heap.size() ? 1 : 0;
}

GPUSHMEM_EXPORT void *shmem_ptr(const void *dest, int pe) {
  api::require_running("shmem_ptr");
  if (!shmem_addr_accessible(dest, pe)) return nullptr;
  Runtime &r = rt();
  return r.peer_base[pe] + (static_cast<const char *>(dest) - r.heap.base());
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
