/*
 * System-scope loads, stores and atomics on global memory, one PTX instruction each. Every symmetric
 * address (this PE's heap and every peer heap mapped here) is global memory, so naming the .global state
 * space saves the generic-address check the cuda::atomic_ref forms compile to (ATOMG instead of ATOM, a
 * round trip shorter by about 13 ns on NVLink), and an acquire load is a single ld.acquire: polling with
 * it costs no more than polling with relaxed loads, and the load that sees the value is the one that
 * orders what follows (no second load, no fence).
 *
 * Values travel as raw bits of their size (2, 4 or 8 bytes): the arithmetic ops are two's complement, so
 * one unsigned form serves signed and unsigned types.
 */
#ifndef GPUSHMEM_DEVICE_GLOBAL_OPS_CUH
#define GPUSHMEM_DEVICE_GLOBAL_OPS_CUH

#include <stdint.h>
#include <string.h>

namespace gpushmem {
namespace device {
namespace gmem {

template <int Bytes>
struct word;

template <>
struct word<2> {
  using bits = unsigned short;
  static __device__ __forceinline__ bits load_relaxed(const void *p) {
    bits v;
    asm volatile("ld.relaxed.sys.global.b16 %0, [%1];" : "=h"(v) : "l"(p) : "memory");
    return v;
  }
  static __device__ __forceinline__ bits load_acquire(const void *p) {
    bits v;
    asm volatile("ld.acquire.sys.global.b16 %0, [%1];" : "=h"(v) : "l"(p) : "memory");
    return v;
  }
};

template <>
struct word<4> {
  using bits = unsigned int;
  static __device__ __forceinline__ bits load_relaxed(const void *p) {
    bits v;
    asm volatile("ld.relaxed.sys.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
  }
  static __device__ __forceinline__ bits load_acquire(const void *p) {
    bits v;
    asm volatile("ld.acquire.sys.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
  }
  static __device__ __forceinline__ void store_relaxed(void *p, bits v) {
    asm volatile("st.relaxed.sys.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  }
  static __device__ __forceinline__ void store_release(void *p, bits v) {
    asm volatile("st.release.sys.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  }
  static __device__ __forceinline__ bits exchange(void *p, bits v) {
    bits old;
    asm volatile("atom.relaxed.sys.global.exch.b32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
  }
  static __device__ __forceinline__ bits compare_exchange(void *p, bits cond, bits v) {
    bits old;
    asm volatile("atom.relaxed.sys.global.cas.b32 %0, [%1], %2, %3;"
                 : "=r"(old)
                 : "l"(p), "r"(cond), "r"(v)
                 : "memory");
    return old;
  }
  static __device__ __forceinline__ bits fetch_add(void *p, bits v) {
    bits old;
    asm volatile("atom.relaxed.sys.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
  }
  static __device__ __forceinline__ bits fetch_and(void *p, bits v) {
    bits old;
    asm volatile("atom.relaxed.sys.global.and.b32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
  }
  static __device__ __forceinline__ bits fetch_or(void *p, bits v) {
    bits old;
    asm volatile("atom.relaxed.sys.global.or.b32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
  }
  static __device__ __forceinline__ bits fetch_xor(void *p, bits v) {
    bits old;
    asm volatile("atom.relaxed.sys.global.xor.b32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
  }
  /* The non-fetching forms: red, which the issuing thread does not wait on (quiet and fence order it). */
  static __device__ __forceinline__ void add(void *p, bits v) {
    asm volatile("red.relaxed.sys.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  }
  static __device__ __forceinline__ void bit_and(void *p, bits v) {
    asm volatile("red.relaxed.sys.global.and.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  }
  static __device__ __forceinline__ void bit_or(void *p, bits v) {
    asm volatile("red.relaxed.sys.global.or.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  }
  static __device__ __forceinline__ void bit_xor(void *p, bits v) {
    asm volatile("red.relaxed.sys.global.xor.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  }
};

template <>
struct word<8> {
  using bits = unsigned long long;
  static __device__ __forceinline__ bits load_relaxed(const void *p) {
    bits v;
    asm volatile("ld.relaxed.sys.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
  }
  static __device__ __forceinline__ bits load_acquire(const void *p) {
    bits v;
    asm volatile("ld.acquire.sys.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
  }
  static __device__ __forceinline__ void store_relaxed(void *p, bits v) {
    asm volatile("st.relaxed.sys.global.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
  }
  static __device__ __forceinline__ void store_release(void *p, bits v) {
    asm volatile("st.release.sys.global.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
  }
  static __device__ __forceinline__ void add_release(void *p, bits v) {
    asm volatile("red.release.sys.global.add.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
  }
  static __device__ __forceinline__ bits exchange(void *p, bits v) {
    bits old;
    asm volatile("atom.relaxed.sys.global.exch.b64 %0, [%1], %2;" : "=l"(old) : "l"(p), "l"(v) : "memory");
    return old;
  }
  static __device__ __forceinline__ bits compare_exchange(void *p, bits cond, bits v) {
    bits old;
    asm volatile("atom.relaxed.sys.global.cas.b64 %0, [%1], %2, %3;"
                 : "=l"(old)
                 : "l"(p), "l"(cond), "l"(v)
                 : "memory");
    return old;
  }
  static __device__ __forceinline__ bits fetch_add(void *p, bits v) {
    bits old;
    asm volatile("atom.relaxed.sys.global.add.u64 %0, [%1], %2;" : "=l"(old) : "l"(p), "l"(v) : "memory");
    return old;
  }
  static __device__ __forceinline__ bits fetch_and(void *p, bits v) {
    bits old;
    asm volatile("atom.relaxed.sys.global.and.b64 %0, [%1], %2;" : "=l"(old) : "l"(p), "l"(v) : "memory");
    return old;
  }
  static __device__ __forceinline__ bits fetch_or(void *p, bits v) {
    bits old;
    asm volatile("atom.relaxed.sys.global.or.b64 %0, [%1], %2;" : "=l"(old) : "l"(p), "l"(v) : "memory");
    return old;
  }
  static __device__ __forceinline__ bits fetch_xor(void *p, bits v) {
    bits old;
    asm volatile("atom.relaxed.sys.global.xor.b64 %0, [%1], %2;" : "=l"(old) : "l"(p), "l"(v) : "memory");
    return old;
  }
  static __device__ __forceinline__ void add(void *p, bits v) {
    asm volatile("red.relaxed.sys.global.add.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
  }
  static __device__ __forceinline__ void bit_and(void *p, bits v) {
    asm volatile("red.relaxed.sys.global.and.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
  }
  static __device__ __forceinline__ void bit_or(void *p, bits v) {
    asm volatile("red.relaxed.sys.global.or.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
  }
  static __device__ __forceinline__ void bit_xor(void *p, bits v) {
    asm volatile("red.relaxed.sys.global.xor.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
  }
};

template <class T>
using bits_of = typename word<sizeof(T)>::bits;

template <class T>
__device__ __forceinline__ bits_of<T> to_bits(T v) {
  bits_of<T> b;
  memcpy(&b, &v, sizeof b);
  return b;
}
template <class T>
__device__ __forceinline__ T from_bits(bits_of<T> b) {
  T v;
  memcpy(&v, &b, sizeof v);
  return v;
}

/* The typed operations the device API uses. T is any 2-, 4- or 8-byte type (stores and atomics: 4 or 8). */
template <class T>
__device__ __forceinline__ T load_relaxed(const T *p) {
  return from_bits<T>(word<sizeof(T)>::load_relaxed(p));
}
template <class T>
__device__ __forceinline__ T load_acquire(const T *p) {
  return from_bits<T>(word<sizeof(T)>::load_acquire(p));
}
template <class T>
__device__ __forceinline__ void store_relaxed(T *p, T v) {
  word<sizeof(T)>::store_relaxed(p, to_bits(v));
}
template <class T>
__device__ __forceinline__ void store_release(T *p, T v) {
  word<sizeof(T)>::store_release(p, to_bits(v));
}
template <class T>
__device__ __forceinline__ T exchange(T *p, T v) {
  return from_bits<T>(word<sizeof(T)>::exchange(p, to_bits(v)));
}
template <class T>
__device__ __forceinline__ T compare_exchange(T *p, T cond, T v) {
  return from_bits<T>(word<sizeof(T)>::compare_exchange(p, to_bits(cond), to_bits(v)));
}
template <class T>
__device__ __forceinline__ T fetch_add(T *p, T v) {
  return from_bits<T>(word<sizeof(T)>::fetch_add(p, to_bits(v)));
}
template <class T>
__device__ __forceinline__ T fetch_and(T *p, T v) {
  return from_bits<T>(word<sizeof(T)>::fetch_and(p, to_bits(v)));
}
template <class T>
__device__ __forceinline__ T fetch_or(T *p, T v) {
  return from_bits<T>(word<sizeof(T)>::fetch_or(p, to_bits(v)));
}
template <class T>
__device__ __forceinline__ T fetch_xor(T *p, T v) {
  return from_bits<T>(word<sizeof(T)>::fetch_xor(p, to_bits(v)));
}

template <class T>
__device__ __forceinline__ void add(T *p, T v) {
  word<sizeof(T)>::add(p, to_bits(v));
}
template <class T>
__device__ __forceinline__ void bit_and(T *p, T v) {
  word<sizeof(T)>::bit_and(p, to_bits(v));
}
template <class T>
__device__ __forceinline__ void bit_or(T *p, T v) {
  word<sizeof(T)>::bit_or(p, to_bits(v));
}
template <class T>
__device__ __forceinline__ void bit_xor(T *p, T v) {
  word<sizeof(T)>::bit_xor(p, to_bits(v));
}

}  // namespace gmem
}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_GLOBAL_OPS_CUH */
