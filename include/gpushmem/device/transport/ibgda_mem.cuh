/*
 * The memory operations gpushmem/ibgda_producer.hpp needs, for device producers (IBGDA, issue 14). The QP's
 * producer words are device memory shared by this GPU's warps (GPU scope); the send queue, the doorbell record,
 * the doorbell and the CQE are read or written by the NIC (system scope): in GPU memory for a real mlx5 NIC, in
 * pinned host memory mapped into the GPU for the NIC emulator. Compiled in CI (tests/unit/header_alone); not yet
 * run on a GPU: the device producer that uses it is still to come.
 */
#ifndef GPUSHMEM_DEVICE_TRANSPORT_IBGDA_MEM_CUH
#define GPUSHMEM_DEVICE_TRANSPORT_IBGDA_MEM_CUH

#include <stdint.h>

#include "gpushmem/ibgda_producer.hpp"

namespace gpushmem {
namespace device {

struct IbgdaMem {
  static __device__ __forceinline__ uint64_t load(const uint64_t *w) {
    uint64_t v;
    asm volatile("ld.acquire.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(w) : "memory");
    return v;
  }
  static __device__ __forceinline__ uint32_t load32(const uint32_t *w) {
    uint32_t v;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(w) : "memory");
    return v;
  }
  /* A word the NIC wrote (a fetched value in bounce memory, read after its completion): 4 or 8 bytes. */
  static __device__ __forceinline__ uint64_t load_fetched(const void *p, uint32_t width) {
    uint64_t v;
    if (width == 4) {
      uint32_t w;
      asm volatile("ld.relaxed.sys.b32 %0, [%1];" : "=r"(w) : "l"(p) : "memory");
      v = w;
    } else {
      asm volatile("ld.relaxed.sys.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    }
    return v;
  }
  static __device__ __forceinline__ void store(uint64_t *w, uint64_t v) {
    asm volatile("st.release.gpu.global.b64 [%0], %1;" ::"l"(w), "l"(v) : "memory");
  }

  static __device__ __forceinline__ uint64_t fetch_add(uint64_t *w, uint64_t n) {
    return atomicAdd(reinterpret_cast<unsigned long long *>(w), static_cast<unsigned long long>(n));
  }
  static __device__ __forceinline__ void raise(uint64_t *w, uint64_t v) {
    asm volatile("red.release.gpu.global.max.u64 [%0], %1;" ::"l"(w), "l"(v) : "memory");
  }
  static __device__ __forceinline__ bool try_lock(uint32_t *w) {
    uint32_t old;
    asm volatile("atom.acquire.gpu.global.cas.b32 %0, [%1], 0, 1;" : "=r"(old) : "l"(w) : "memory");
    return old == 0;
  }
  static __device__ __forceinline__ void unlock(uint32_t *w) {
    asm volatile("st.release.gpu.global.b32 [%0], 0;" ::"l"(w) : "memory");
  }
  /* One 16-byte store (weak): the record's system-scope release below publishes it. */
  static __device__ __forceinline__ void store_unit(uint8_t *dst, const gpushmem_mlx5_unit_t &u) {
    asm volatile("st.global.v2.b64 [%0], {%1, %2};" ::"l"(dst), "l"(u.words[0]), "l"(u.words[1]) : "memory");
  }
  /* Release at system scope, cumulative: the units other warps stored before they moved `ready` (which this
     thread acquired) are visible to the NIC before the record. */
  static __device__ __forceinline__ void store_dbrec(uint32_t *w, uint32_t v) {
    asm volatile("st.release.sys.global.b32 [%0], %1;" ::"l"(w), "r"(v) : "memory");
  }
  static __device__ __forceinline__ void store_doorbell(uint64_t *w, uint64_t v) {
    asm volatile("st.release.sys.global.b64 [%0], %1;" ::"l"(w), "l"(v) : "memory");
  }
  static __device__ __forceinline__ uint32_t load_cqe_tail(const uint8_t *cqe) {
    uint32_t v;
    asm volatile("ld.acquire.sys.global.b32 %0, [%1];" : "=r"(v) : "l"(cqe + 60) : "memory");
    return v;
  }
  static __device__ __forceinline__ uint8_t load_byte(const uint8_t *p) {
    uint32_t v;
    asm volatile("ld.relaxed.sys.global.u8 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return static_cast<uint8_t>(v);
  }
  static __device__ __forceinline__ void record_error(gpushmem_ibgda_qp_words_t *w, uint32_t syndrome, uint64_t index) {
    if (atomicCAS(&w->error, 0u, syndrome) == 0u) store(&w->error_index, index);
  }
  static __device__ __forceinline__ uint64_t now_ns() {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
  }
  static __device__ __forceinline__ void backoff(uint32_t *ns) {
    __nanosleep(*ns);
    *ns = *ns * 2 < 1024u ? *ns * 2 : 1024u;
  }
};

}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_TRANSPORT_IBGDA_MEM_CUH */
