/*
 * The memory operations gpushmem/proxy_producer.hpp needs, for device producers: the channel's head and
 * tail cache are device memory (atomics at GPU scope: every producer of the channel runs on this GPU); its
 * ring and control block are pinned host memory mapped into the GPU (system-scope loads and stores: the
 * reader is the proxy's CPU thread).
 */
#ifndef GPUSHMEM_DEVICE_TRANSPORT_PROXY_MEM_CUH
#define GPUSHMEM_DEVICE_TRANSPORT_PROXY_MEM_CUH

#include <stdint.h>

#include "gpushmem/device/global_ops.cuh"
#include "gpushmem/proxy_producer.hpp"

namespace gpushmem {
namespace device {

struct ProxyMem {
  static __device__ __forceinline__ uint64_t fetch_add(uint64_t *w, uint64_t n) {
    return atomicAdd(reinterpret_cast<unsigned long long *>(w), static_cast<unsigned long long>(n));
  }
  static __device__ __forceinline__ uint64_t load_relaxed(const uint64_t *w) {
    uint64_t v;
    asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(w) : "memory");
    return v;
  }
  static __device__ __forceinline__ void raise(uint64_t *w, uint64_t v) {
    asm volatile("red.release.gpu.global.max.u64 [%0], %1;" ::"l"(w), "l"(v) : "memory");
  }
  static __device__ __forceinline__ uint64_t load_acquire(const uint64_t *w) {
    uint64_t v;
    asm volatile("ld.acquire.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(w) : "memory");
    return v;
  }
  static __device__ __forceinline__ bool try_claim(uint64_t *w) {
    uint64_t old;
    asm volatile("atom.acquire.gpu.global.cas.b64 %0, [%1], %2, %3;"
                 : "=l"(old)
                 : "l"(w), "l"(uint64_t{0}), "l"(uint64_t{1})
                 : "memory");
    return old == 0;
  }
  static __device__ __forceinline__ void unclaim(uint64_t *w) {
    asm volatile("st.release.gpu.global.b64 [%0], %1;" ::"l"(w), "l"(uint64_t{0}) : "memory");
  }
  /* The proxy's tail: acquire, so slots it released are rewritten only after its copies of them. */
  static __device__ __forceinline__ uint64_t load_host(const uint64_t *w) { return gmem::load_acquire(w); }
  static __device__ __forceinline__ void store_host(uint64_t *w, uint64_t v) { gmem::store_relaxed(w, v); }
  /* Words 1..7: one 8-byte store, then three 16-byte stores (the slot is 64-byte aligned; global_ops.cuh has
     no 16-byte form). */
  static __device__ __forceinline__ void write_body(gpushmem_proxy_slot_t *s, const gpushmem_proxy_slot_t &v) {
    gmem::store_relaxed(&s->remote, v.remote);
    asm volatile("st.relaxed.sys.global.v2.b64 [%0], {%1, %2};" ::"l"(&s->local), "l"(v.local), "l"(v.size_event)
                 : "memory");
    asm volatile("st.relaxed.sys.global.v2.b64 [%0], {%1, %2};" ::"l"(&s->signal), "l"(v.signal), "l"(v.value)
                 : "memory");
    asm volatile("st.relaxed.sys.global.v2.b64 [%0], {%1, %2};" ::"l"(&s->compare), "l"(v.compare), "l"(v.cookie)
                 : "memory");
  }
  /* The header last, with release: the proxy that sees its seq sees the body. */
  static __device__ __forceinline__ void publish(gpushmem_proxy_slot_t *s, uint64_t header) {
    gmem::store_release(&s->header, header);
  }
  static __device__ __forceinline__ uint64_t now_ns() {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
  }
  static __device__ __forceinline__ void backoff(uint32_t *ns) {
    __nanosleep(*ns);
    *ns = *ns * 2 < 4096u ? *ns * 2 : 4096u;
  }
};

}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_TRANSPORT_PROXY_MEM_CUH */
