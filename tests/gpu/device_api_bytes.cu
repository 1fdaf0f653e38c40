// Device byte and sized RMA, data checked, in thread, warp and block scope:
//   putmem / putmem_nbi / getmem / getmem_nbi for lengths 0 .. 64 KiB + 7 at destination/source offsets
//   that take every copy path (16-, 8-, 4- and 1-byte words, with and without an unaligned head), with
//   sentinel bytes around each destination that must survive;
//   putSIZE / getSIZE (+ _nbi) and iputSIZE / igetSIZE for SIZE 8..128;
//   a 8 MiB putmem_block split over 16 blocks (the bandwidth pattern).
// Each PE writes to (and reads from) its right neighbour and checks what its left one wrote.
#include <cstring>
#include <vector>

#include "device_api_common.cuh"

namespace {

constexpr size_t kSlot = 64 * 1024 + 64;  // bytes per destination region: the longest copy + room for offsets
constexpr unsigned char kSentinel = 0xEE;
enum op { kPutmem, kPutmemNbi, kGetmem, kGetmemNbi, kOps };
const char *const kOpName[kOps] = {"putmem", "putmem_nbi", "getmem", "getmem_nbi"};

__host__ __device__ inline unsigned char byte_pattern(int pe, size_t i, int salt) {
  return static_cast<unsigned char>((pe * 131 + i * 7 + salt * 13) % 229);  // below the sentinel
}

template <int S>
__global__ void mem_kernel(unsigned char *regions, const unsigned char *src, size_t len, size_t dst_off, size_t src_off,
                           int right) {
  unsigned char *r[kOps];
  for (int o = 0; o < kOps; ++o) r[o] = regions + o * kSlot + dst_off;
  const unsigned char *s = src + src_off;
  if (S == kThread) {
    shmem_putmem(r[kPutmem], s, len, right);
    shmem_putmem_nbi(r[kPutmemNbi], s, len, right);
    shmem_getmem(r[kGetmem], s, len, right);
    shmem_getmem_nbi(r[kGetmemNbi], s, len, right);
  } else if (S == kWarp) {
    shmemx_putmem_warp(r[kPutmem], s, len, right);
    shmemx_putmem_nbi_warp(r[kPutmemNbi], s, len, right);
    shmemx_getmem_warp(r[kGetmem], s, len, right);
    shmemx_getmem_nbi_warp(r[kGetmemNbi], s, len, right);
  } else {
    shmemx_putmem_block(r[kPutmem], s, len, right);
    shmemx_putmem_nbi_block(r[kPutmemNbi], s, len, right);
    shmemx_getmem_block(r[kGetmem], s, len, right);
    shmemx_getmem_nbi_block(r[kGetmemNbi], s, len, right);
  }
  shmem_quiet();
}

template <int S>
void mem_case(unsigned char *src, unsigned char *regions, size_t len, size_t dst_off, size_t src_off, int salt) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
  std::vector<unsigned char> host(kOps * kSlot);
  for (size_t i = 0; i < kSlot; ++i) host[i] = byte_pattern(me, i, salt);
  CUDA_CHECK(cudaMemcpy(src, host.data(), kSlot, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(regions, kSentinel, kOps * kSlot));
  device_sync_barrier();
  mem_kernel<S><<<1, scope_threads(S)>>>(regions, src, len, dst_off, src_off, right);
  device_sync_barrier();
  CUDA_CHECK(cudaMemcpy(host.data(), regions, kOps * kSlot, cudaMemcpyDeviceToHost));
  for (int o = 0; o < kOps; ++o) {
    const int from = o == kPutmem || o == kPutmemNbi ? left : right;
    size_t bad = 0;
    for (size_t e = 0; e < kSlot; ++e) {
      const bool inside = e >= dst_off && e < dst_off + len;
      const unsigned char want = inside ? byte_pattern(from, e - dst_off + src_off, salt) : kSentinel;
      const unsigned char got = host[o * kSlot + e];
      if (got != want && bad++ < 3)
        PE_FAIL(
            "shmem_%s, %s scope, %zu bytes, dest offset %zu, source offset %zu: byte %zu: expected 0x%02x, got "
            "0x%02x%s",
            kOpName[o], scope_name(S), len, dst_off, src_off, e, want, got,
            inside ? "" : " (outside the copied range)");
    }
  }
}

// putSIZE / getSIZE (+ _nbi) of 100 elements and iputSIZE / igetSIZE (strides 2 and 3, 33 elements).
constexpr size_t kSizedElems = 100;
constexpr size_t kSizedSlot = kSizedElems * 16;  // bytes: room for 100 128-bit elements
enum sized_op { kSPut, kSGet, kSPutNbi, kSGetNbi, kSIput, kSIget, kSizedOps };
const char *const kSizedOpName[kSizedOps] = {"put", "get", "put_nbi", "get_nbi", "iput", "iget"};

#define SIZED_CALLS(BITS)                                                                   \
  template <int S>                                                                          \
  __device__ void sized_ops_##BITS(unsigned char *r, const unsigned char *src, int right) { \
    unsigned char *d[kSizedOps];                                                            \
    for (int o = 0; o < kSizedOps; ++o) d[o] = r + o * kSizedSlot;                          \
    if (S == kThread) {                                                                     \
      shmem_put##BITS(d[kSPut], src, kSizedElems, right);                                   \
      shmem_get##BITS(d[kSGet], src, kSizedElems, right);                                   \
      shmem_put##BITS##_nbi(d[kSPutNbi], src, kSizedElems, right);                          \
      shmem_get##BITS##_nbi(d[kSGetNbi], src, kSizedElems, right);                          \
      shmem_iput##BITS(d[kSIput], src, 2, 3, kSizedElems / 3, right);                       \
      shmem_iget##BITS(d[kSIget], src, 3, 2, kSizedElems / 3, right);                       \
    } else if (S == kWarp) {                                                                \
      shmemx_put##BITS##_warp(d[kSPut], src, kSizedElems, right);                           \
      shmemx_get##BITS##_warp(d[kSGet], src, kSizedElems, right);                           \
      shmemx_put##BITS##_nbi_warp(d[kSPutNbi], src, kSizedElems, right);                    \
      shmemx_get##BITS##_nbi_warp(d[kSGetNbi], src, kSizedElems, right);                    \
      shmemx_iput##BITS##_warp(d[kSIput], src, 2, 3, kSizedElems / 3, right);               \
      shmemx_iget##BITS##_warp(d[kSIget], src, 3, 2, kSizedElems / 3, right);               \
    } else {                                                                                \
      shmemx_put##BITS##_block(d[kSPut], src, kSizedElems, right);                          \
      shmemx_get##BITS##_block(d[kSGet], src, kSizedElems, right);                          \
      shmemx_put##BITS##_nbi_block(d[kSPutNbi], src, kSizedElems, right);                   \
      shmemx_get##BITS##_nbi_block(d[kSGetNbi], src, kSizedElems, right);                   \
      shmemx_iput##BITS##_block(d[kSIput], src, 2, 3, kSizedElems / 3, right);              \
      shmemx_iget##BITS##_block(d[kSIget], src, 3, 2, kSizedElems / 3, right);              \
    }                                                                                       \
  }
GPUSHMEM_RMA_SIZES(SIZED_CALLS)
#undef SIZED_CALLS

// regions: 5 sizes x kSizedOps slots.
template <int S>
__global__ void sized_kernel(unsigned char *regions, const unsigned char *src, int right) {
  sized_ops_8<S>(regions + 0 * kSizedOps * kSizedSlot, src, right);
  sized_ops_16<S>(regions + 1 * kSizedOps * kSizedSlot, src, right);
  sized_ops_32<S>(regions + 2 * kSizedOps * kSizedSlot, src, right);
  sized_ops_64<S>(regions + 3 * kSizedOps * kSizedSlot, src, right);
  sized_ops_128<S>(regions + 4 * kSizedOps * kSizedSlot, src, right);
  shmem_quiet();
}

// Element k of `bytes`-byte elements: source byte k * bytes + b.
long long sized_expected(int o, size_t e, size_t bytes, int left, int right, int salt) {
  const size_t k = e / bytes, b = e % bytes;
  switch (o) {
    case kSPut:
    case kSPutNbi:
      return k < kSizedElems ? byte_pattern(left, e, salt) : kSentinel;
    case kSGet:
    case kSGetNbi:
      return k < kSizedElems ? byte_pattern(right, e, salt) : kSentinel;
    case kSIput:  // left's element 3j lands in my element 2j
      return k % 2 == 0 && k / 2 < kSizedElems / 3 ? byte_pattern(left, 3 * (k / 2) * bytes + b, salt) : kSentinel;
    case kSIget:  // right's element 2j lands in my element 3j
      return k % 3 == 0 && k / 3 < kSizedElems / 3 ? byte_pattern(right, 2 * (k / 3) * bytes + b, salt) : kSentinel;
  }
  return -1;
}

template <int S>
void sized_case(unsigned char *src, unsigned char *regions, int salt) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
  const size_t total = 5 * kSizedOps * kSizedSlot;
  std::vector<unsigned char> host(total > kSlot ? total : kSlot);
  for (size_t i = 0; i < kSlot; ++i) host[i] = byte_pattern(me, i, salt);
  CUDA_CHECK(cudaMemcpy(src, host.data(), kSlot, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(regions, kSentinel, total));
  device_sync_barrier();
  sized_kernel<S><<<1, scope_threads(S)>>>(regions, src, right);
  device_sync_barrier();
  CUDA_CHECK(cudaMemcpy(host.data(), regions, total, cudaMemcpyDeviceToHost));
  for (int z = 0; z < 5; ++z) {
    const size_t bytes = size_t{1} << z;  // 1, 2, 4, 8, 16
    for (int o = 0; o < kSizedOps; ++o) {
      size_t bad = 0;
      for (size_t e = 0; e < kSizedSlot; ++e) {
        const long long want = sized_expected(o, e, bytes, left, right, salt);
        const unsigned char got = host[(z * kSizedOps + o) * kSizedSlot + e];
        if (got != want && bad++ < 3)
          PE_FAIL("shmem_%s%zu, %s scope: byte %zu: expected 0x%02llx, got 0x%02x", kSizedOpName[o], bytes * 8,
                  scope_name(S), e, want, got);
      }
    }
  }
}

// Many blocks, each putting its share of one large buffer with putmem_block (the put_bw pattern).
__global__ void big_put_kernel(unsigned char *dest, const unsigned char *src, size_t bytes, int right) {
  const size_t share = (bytes + gridDim.x - 1) / gridDim.x;
  const size_t begin = blockIdx.x * share;
  const size_t len = begin >= bytes ? 0 : (bytes - begin < share ? bytes - begin : share);
  shmemx_putmem_block(dest + begin, src + begin, len, right);
  shmem_quiet();
}

void big_put_case() {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
  const size_t bytes = 8u << 20;
  unsigned char *src = static_cast<unsigned char *>(shmem_malloc(bytes));
  unsigned char *dest = static_cast<unsigned char *>(shmem_malloc(bytes));
  std::vector<unsigned char> host(bytes);
  for (size_t i = 0; i < bytes; ++i) host[i] = byte_pattern(me, i, 99);
  CUDA_CHECK(cudaMemcpy(src, host.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dest, 0, bytes));
  device_sync_barrier();
  big_put_kernel<<<16, 1024>>>(dest, src, bytes, right);
  device_sync_barrier();
  CUDA_CHECK(cudaMemcpy(host.data(), dest, bytes, cudaMemcpyDeviceToHost));
  size_t bad = 0;
  for (size_t i = 0; i < bytes; ++i)
    if (host[i] != byte_pattern(left, i, 99) && bad++ < 3)
      PE_FAIL("8 MiB putmem_block over 16 blocks: byte %zu: expected 0x%02x, got 0x%02x", i, byte_pattern(left, i, 99),
              host[i]);
  shmem_free(dest);
  shmem_free(src);
}

}  // namespace

int main() {
  const int skip = gpu_skip_status("device_api_bytes");
  if (skip != 0) return skip;
  shmem_init();
  if (device_state_ready("device_api_bytes")) {
    unsigned char *src = static_cast<unsigned char *>(shmem_malloc(kSlot));
    unsigned char *regions = static_cast<unsigned char *>(
        shmem_malloc(5 * kSizedOps * kSizedSlot > kOps * kSlot ? 5 * kSizedOps * kSizedSlot : kOps * kSlot));
    // 527 / 528 and 2575 / 2576: the last length a warp (32 lanes) and a block (160) copy with at most one
    // vector per lane plus a tail, and the first they do not (copy_small_vectors / copy_words).
    const size_t lengths[] = {0, 1, 15, 16, 17, 100, 527, 528, 2575, 2576, 4095, 64 * 1024 + 7};
    // (dest, source) offsets: congruent mod 16 (16-byte body), mod 8, mod 4, not congruent, and unaligned heads.
    const size_t offsets[][2] = {{0, 0}, {3, 3}, {8, 0}, {4, 12}, {1, 2}, {5, 0}};
    int salt = 0;
    for (size_t len : lengths)
      for (const auto &off : offsets) {
        mem_case<kThread>(src, regions, len, off[0], off[1], ++salt);
        mem_case<kWarp>(src, regions, len, off[0], off[1], ++salt);
        mem_case<kBlock>(src, regions, len, off[0], off[1], ++salt);
      }
    sized_case<kThread>(src, regions, ++salt);
    sized_case<kWarp>(src, regions, ++salt);
    sized_case<kBlock>(src, regions, ++salt);
    big_put_case();
    shmem_free(regions);
    shmem_free(src);
  }
  return pe_finish("device_api_bytes");
}
