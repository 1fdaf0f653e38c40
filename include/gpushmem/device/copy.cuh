/*
 * Data movement for put and get: every lane of the scope copies a share, consecutive lanes touch
 * consecutive words (coalesced), with the widest access both pointers allow. When source and destination
 * are congruent modulo 16 the copy peels the unaligned head and moves the body in 16-byte vectors; else
 * 8-, 4- or 1-byte words. Four loads are in flight per lane before their stores, which is what hides the
 * NVLink latency of a get (remote loads) and keeps enough stores queued for a put.
 *
 * The source is deliberately not __restrict__: a const __restrict__ pointer lets the compiler use the
 * non-coherent read-only path, which could serve a get stale data that a peer wrote during the kernel.
 */
#ifndef GPUSHMEM_DEVICE_COPY_CUH
#define GPUSHMEM_DEVICE_COPY_CUH

#include <stddef.h>
#include <stdint.h>

#include <type_traits>

#include "gpushmem/device/scope.cuh"

namespace gpushmem {
namespace device {

/* Copies `bytes` bytes; dst and src are congruent modulo sizeof(V). The body moves whole words; the head
   (up to the first aligned word) and the tail are under sizeof(V) bytes each, so in a group of at least
   sizeof(V) lanes each lane moves at most one byte of each, with no loop to set up. */
template <class V, class Scope>
__device__ __forceinline__ void copy_words(char *dst, const char *src, size_t bytes) {
  const size_t lane = Scope::rank(), lanes = Scope::size();
  size_t head = (sizeof(V) - reinterpret_cast<uintptr_t>(dst) % sizeof(V)) % sizeof(V);
  if (head > bytes) head = bytes;
  const size_t words = (bytes - head) / sizeof(V);
  const size_t body_end = head + words * sizeof(V);

  V *d = reinterpret_cast<V *>(dst + head);
  const V *s = reinterpret_cast<const V *>(src + head);
  size_t i = lane;
  for (; i + 3 * lanes < words; i += 4 * lanes) {
    const V a = s[i], b = s[i + lanes], c = s[i + 2 * lanes], e = s[i + 3 * lanes];
    d[i] = a;
    d[i + lanes] = b;
    d[i + 2 * lanes] = c;
    d[i + 3 * lanes] = e;
  }
  for (; i < words; i += lanes) d[i] = s[i];

  if (lanes >= sizeof(V)) {
    if (lane < head) dst[lane] = src[lane];
    if (body_end + lane < bytes) dst[body_end + lane] = src[body_end + lane];
  } else {
    for (size_t j = lane; j < head; j += lanes) dst[j] = src[j];
    for (size_t j = body_end + lane; j < bytes; j += lanes) dst[j] = src[j];
  }
}

/* A warp or block copy of 16-byte-aligned buffers in which each lane moves at most one vector, plus a
   tail of under 16 bytes (lanes >= 16): no loop, no call. */
__device__ __forceinline__ void copy_small_vectors(void *dst, const void *src, size_t bytes, unsigned lane) {
  const size_t body = bytes & ~static_cast<size_t>(15);
  if (16u * static_cast<size_t>(lane) < body) static_cast<uint4 *>(dst)[lane] = static_cast<const uint4 *>(src)[lane];
  if (body + lane < bytes) static_cast<char *>(dst)[body + lane] = static_cast<const char *>(src)[body + lane];
}

/* Out of line: one copy routine per scope serves every call site (inlining four unrolled loops at each
   site bloats kernels, their compile time and their register count).
   A warp or block copy in which each lane moves at most one aligned vector is done first, without loops:
   every warp of the group runs the copy's set-up, so when the warps of an SM each move a few hundred bytes,
   the set-up instructions and not the bytes bound the rate. */
template <class Scope>
__device__ __noinline__ void copy_bytes(void *dst, const void *src, size_t bytes) {
  char *d = static_cast<char *>(dst);
  const char *s = static_cast<const char *>(src);
  if constexpr (!std::is_same_v<Scope, thread_scope>) {
    const unsigned lanes = Scope::size();
    if (((reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s)) & 15u) == 0 && lanes >= 16u &&
        bytes < 16u * static_cast<size_t>(lanes) + 16u) {
      copy_small_vectors(d, s, bytes, Scope::rank());
      return;
    }
  }
  const uintptr_t skew = reinterpret_cast<uintptr_t>(d) ^ reinterpret_cast<uintptr_t>(s);
  // The widest word both the pointers' congruence and the length allow: an 8-byte put is one 8-byte store,
  // not a 16-byte head done byte by byte.
  if ((skew & 15u) == 0 && bytes >= 16)
    copy_words<uint4, Scope>(d, s, bytes);
  else if ((skew & 7u) == 0 && bytes >= 8)
    copy_words<uint2, Scope>(d, s, bytes);
  else if ((skew & 3u) == 0 && bytes >= 4)
    copy_words<unsigned int, Scope>(d, s, bytes);
  else
    copy_words<unsigned char, Scope>(d, s, bytes);
}

/* What put, get, put-with-signal and the collectives call. A lone thread moving one aligned 4-, 8- or
   16-byte word (the 8-byte put of a latency loop, a put_signal's small payload) does it inline: one load
   and one store, without the call into copy_bytes and its alignment dispatch. */
template <class Scope>
__device__ __forceinline__ void copy_data(void *dst, const void *src, size_t bytes) {
  const uintptr_t both = reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src);
  if constexpr (std::is_same_v<Scope, thread_scope>) {
    if (bytes == 8 && (both & 7u) == 0) {
      *static_cast<uint64_t *>(dst) = *static_cast<const uint64_t *>(src);
      return;
    }
    if (bytes == 4 && (both & 3u) == 0) {
      *static_cast<uint32_t *>(dst) = *static_cast<const uint32_t *>(src);
      return;
    }
    if (bytes == 16 && (both & 15u) == 0) {
      *static_cast<uint4 *>(dst) = *static_cast<const uint4 *>(src);
      return;
    }
  }
  copy_bytes<Scope>(dst, src, bytes);
}

/* dst[i * dst_stride] = src[i * src_stride] for i < nelems (iput / iget); strides count elements. */
template <class Scope, class E>
__device__ __forceinline__ void copy_strided(E *dst, ptrdiff_t dst_stride, const E *src, ptrdiff_t src_stride,
                                             size_t nelems) {
  for (size_t i = Scope::rank(); i < nelems; i += Scope::size())
    dst[static_cast<ptrdiff_t>(i) * dst_stride] = src[static_cast<ptrdiff_t>(i) * src_stride];
}

/* The element of the putSIZE / iputSIZE forms. 128 bits: two 64-bit words, so 8-byte alignment is enough. */
template <int Bits>
struct sized_element;
template <>
struct sized_element<8> {
  using type = uint8_t;
};
template <>
struct sized_element<16> {
  using type = uint16_t;
};
template <>
struct sized_element<32> {
  using type = uint32_t;
};
template <>
struct sized_element<64> {
  using type = uint64_t;
};
struct bits128 {
  uint64_t word[2];
};
template <>
struct sized_element<128> {
  using type = bits128;
};

}  // namespace device
}  // namespace gpushmem

#endif /* GPUSHMEM_DEVICE_COPY_CUH */
