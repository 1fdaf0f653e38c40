// Host-initiated RMA over load/store reach (same-node shared heaps). Each operation is written once as a
// template over the element type; the API files only stamp names. No system call, lock or allocation here.
#pragma once

#include <cstring>

#include "api/api_common.hpp"

namespace gpushmem::rma {

// Puts and gets are plain copies into / out of the peer's mapping: they are complete locally when the copy
// returns, and visible remotely after the next quiet's fence.
inline void put_bytes(const char *call, void *dest, const void *source, size_t bytes, int pe) {
  api::require_running(call);
  if (bytes == 0) return;
  char *remote = api::remote_addr(call, "dest", dest, bytes, pe);
  std::memcpy(remote, source, bytes);
}

inline void get_bytes(const char *call, void *dest, const void *source, size_t bytes, int pe) {
  api::require_running(call);
  if (bytes == 0) return;
  const char *remote = api::remote_addr(call, "source", source, bytes, pe);
  std::memcpy(dest, remote, bytes);
}

template <class T>
void put(const char *call, T *dest, const T *source, size_t nelems, int pe) {
  put_bytes(call, dest, source, nelems * sizeof(T), pe);
}

template <class T>
void get(const char *call, T *dest, const T *source, size_t nelems, int pe) {
  get_bytes(call, dest, source, nelems * sizeof(T), pe);
}

template <class T>
void p(const char *call, T *dest, T value, int pe) {
  api::require_running(call);
  T *remote = reinterpret_cast<T *>(api::remote_addr(call, "dest", dest, sizeof(T), pe));
  *remote = value;
}

template <class T>
T g(const char *call, const T *source, int pe) {
  api::require_running(call);
  const T *remote = reinterpret_cast<const T *>(api::remote_addr(call, "source", source, sizeof(T), pe));
  return *remote;
}

}  // namespace gpushmem::rma
