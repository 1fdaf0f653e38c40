// Device RMA, data checked, for every T-RMA type the device has, in thread, warp and block scope: put,
// put_nbi, get, get_nbi (typed, and the generic shmem_put / shmem_get), p and g (one element per lane),
// iput and iget (strides 2 and 3). Each PE puts to / p's into its right neighbour and gets from it; after
// the kernel's quiet and a barrier, every PE checks each region element by element, including that nothing
// outside the written elements changed. Run twice per scope: 1000 elements at aligned addresses, and 37
// elements with the destination one element off (source and destination not congruent).
#include <vector>

#include "device_api_common.cuh"

namespace {

constexpr size_t kCap = 1040;  // elements per region
enum region { kPut, kPutNbi, kGet, kGetNbi, kP, kG, kIput, kIget, kGenericPut, kGenericGet, kRegions };
const char *const kRegionName[kRegions] = {
    "put", "put_nbi", "get", "get_nbi", "p", "g", "iput", "iget", "shmem_put (generic)", "shmem_get (generic)"};

// The value PE `pe` holds at source element i: small positive integers, exact in every type.
__host__ __device__ inline long long pattern(int pe, size_t i, int salt) {
  return static_cast<long long>((pe * 37 + static_cast<int>(i) * 11 + salt) % 101 + 1);
}

// The typed names of one type, per scope.
#define RMA_OPS(T, N)                                                                               \
  struct ops_##N {                                                                                  \
    using type = T;                                                                                 \
    static constexpr const char *name = #N;                                                         \
    template <int S>                                                                                \
    __device__ static void put(T *d, const T *s, size_t n, int pe) {                                \
      if (S == kThread) shmem_##N##_put(d, s, n, pe);                                               \
      if (S == kWarp) shmemx_##N##_put_warp(d, s, n, pe);                                           \
      if (S == kBlock) shmemx_##N##_put_block(d, s, n, pe);                                         \
    }                                                                                               \
    template <int S>                                                                                \
    __device__ static void put_nbi(T *d, const T *s, size_t n, int pe) {                            \
      if (S == kThread) shmem_##N##_put_nbi(d, s, n, pe);                                           \
      if (S == kWarp) shmemx_##N##_put_nbi_warp(d, s, n, pe);                                       \
      if (S == kBlock) shmemx_##N##_put_nbi_block(d, s, n, pe);                                     \
    }                                                                                               \
    template <int S>                                                                                \
    __device__ static void get(T *d, const T *s, size_t n, int pe) {                                \
      if (S == kThread) shmem_##N##_get(d, s, n, pe);                                               \
      if (S == kWarp) shmemx_##N##_get_warp(d, s, n, pe);                                           \
      if (S == kBlock) shmemx_##N##_get_block(d, s, n, pe);                                         \
    }                                                                                               \
    template <int S>                                                                                \
    __device__ static void get_nbi(T *d, const T *s, size_t n, int pe) {                            \
      if (S == kThread) shmem_##N##_get_nbi(d, s, n, pe);                                           \
      if (S == kWarp) shmemx_##N##_get_nbi_warp(d, s, n, pe);                                       \
      if (S == kBlock) shmemx_##N##_get_nbi_block(d, s, n, pe);                                     \
    }                                                                                               \
    template <int S>                                                                                \
    __device__ static void iput(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) { \
      if (S == kThread) shmem_##N##_iput(d, s, dst, sst, n, pe);                                    \
      if (S == kWarp) shmemx_##N##_iput_warp(d, s, dst, sst, n, pe);                                \
      if (S == kBlock) shmemx_##N##_iput_block(d, s, dst, sst, n, pe);                              \
    }                                                                                               \
    template <int S>                                                                                \
    __device__ static void iget(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) { \
      if (S == kThread) shmem_##N##_iget(d, s, dst, sst, n, pe);                                    \
      if (S == kWarp) shmemx_##N##_iget_warp(d, s, dst, sst, n, pe);                                \
      if (S == kBlock) shmemx_##N##_iget_block(d, s, dst, sst, n, pe);                              \
    }                                                                                               \
    __device__ static void p(T *d, T v, int pe) { shmem_##N##_p(d, v, pe); }                        \
    __device__ static T g(const T *s, int pe) { return shmem_##N##_g(s, pe); }                      \
  };
GPUSHMEM_DEVICE_RMA_TYPES(RMA_OPS)
#undef RMA_OPS

// regions: kRegions consecutive regions of kCap elements (symmetric); src: kCap elements (symmetric).
template <class Ops, int S>
__global__ void rma_kernel(typename Ops::type *regions, const typename Ops::type *src, size_t n, size_t dst_off,
                           int right) {
  auto region = [&](int r) { return regions + static_cast<size_t>(r) * kCap + dst_off; };
  Ops::template put<S>(region(kPut), src, n, right);
  Ops::template put_nbi<S>(region(kPutNbi), src, n, right);
  Ops::template get<S>(region(kGet), src, n, right);
  Ops::template get_nbi<S>(region(kGetNbi), src, n, right);
  for (size_t i = scope_rank<S>(); i < n; i += scope_size<S>()) {
    Ops::p(region(kP) + i, src[i], right);
    region(kG)[i] = Ops::g(src + i, right);
  }
  Ops::template iput<S>(region(kIput), src, 2, 3, n / 3, right);
  Ops::template iget<S>(region(kIget), src, 3, 2, n / 3, right);
  if (scope_rank<S>() == 0) {
    shmem_put(region(kGenericPut), src, n, right);
    shmem_get(region(kGenericGet), src, n, right);
  }
  shmem_quiet();
}

// What region r of PE me must hold at element e after the kernel (0: untouched).
long long expected(int r, size_t e, size_t n, size_t dst_off, int left, int right, int salt) {
  if (e < dst_off) return 0;
  const size_t i = e - dst_off;
  switch (r) {
    case kPut:
    case kPutNbi:
    case kP:
    case kGenericPut:
      return i < n ? pattern(left, i, salt) : 0;
    case kGet:
    case kGetNbi:
    case kG:
    case kGenericGet:
      return i < n ? pattern(right, i, salt) : 0;
    case kIput:  // the left neighbour's src[3k] lands in my dest[2k]
      return i % 2 == 0 && i / 2 < n / 3 ? pattern(left, 3 * (i / 2), salt) : 0;
    case kIget:
      return i % 3 == 0 && i / 3 < n / 3 ? pattern(right, 2 * (i / 3), salt) : 0;
  }
  return -1;
}

template <class Ops, int S>
void run_case(size_t n, size_t dst_off, int salt) {
  using T = typename Ops::type;
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
  T *src = static_cast<T *>(shmem_malloc(kCap * sizeof(T)));
  T *regions = static_cast<T *>(shmem_malloc(kRegions * kCap * sizeof(T)));
  if (src == nullptr || regions == nullptr) {
    PE_FAIL("%s: shmem_malloc failed", Ops::name);
    shmem_global_exit(1);
  }
  std::vector<T> host(kRegions * kCap);
  for (size_t i = 0; i < kCap; ++i) host[i] = static_cast<T>(pattern(me, i, salt));
  CUDA_CHECK(cudaMemcpy(src, host.data(), kCap * sizeof(T), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(regions, 0, kRegions * kCap * sizeof(T)));
  device_sync_barrier();

  rma_kernel<Ops, S><<<1, scope_threads(S)>>>(regions, src, n, dst_off, right);
  device_sync_barrier();

  CUDA_CHECK(cudaMemcpy(host.data(), regions, kRegions * kCap * sizeof(T), cudaMemcpyDeviceToHost));
  for (int r = 0; r < kRegions; ++r) {
    for (size_t e = 0; e < kCap; ++e) {
      const long long want = expected(r, e, n, dst_off, left, right, salt);
      const T got = host[static_cast<size_t>(r) * kCap + e];
      if (got != static_cast<T>(want))
        PE_FAIL("shmem_%s %s, %s scope, n=%zu, dest offset %zu: element %zu: expected %lld, got %lld", Ops::name,
                kRegionName[r], scope_name(S), n, dst_off, e, want, static_cast<long long>(got));
    }
  }
  shmem_free(regions);
  shmem_free(src);
}

template <class Ops>
void run_type(int *salt) {
  run_case<Ops, kThread>(1000, 0, ++*salt);
  run_case<Ops, kThread>(37, 1, ++*salt);
  run_case<Ops, kWarp>(1000, 0, ++*salt);
  run_case<Ops, kWarp>(37, 1, ++*salt);
  run_case<Ops, kBlock>(1000, 0, ++*salt);
  run_case<Ops, kBlock>(37, 1, ++*salt);
}

}  // namespace

int main() {
  const int skip = gpu_skip_status("device_api_rma");
  if (skip != 0) return skip;
  shmem_init();
  if (device_state_ready("device_api_rma")) {
    int salt = 0;
#define RUN_TYPE(T, N) run_type<ops_##N>(&salt);
    GPUSHMEM_DEVICE_RMA_TYPES(RUN_TYPE)
#undef RUN_TYPE
  }
  return pe_finish("device_api_rma");
}
