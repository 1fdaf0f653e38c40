/*
 * Part of gpushmem/device/shmem_api.cuh: shmem_my_pe, shmem_n_pes, shmem_ptr, shmem_quiet, shmem_fence,
 * shmem_barrier_all and shmem_sync_all on both sides.
 *   On the device: my_pe / n_pes read this file's copy of the device state (-1 before shmem_init);
 *   shmem_ptr returns the peer's mapping of `dest` (NULL for a PE out of range, an unmapped peer or an
 *   address outside the symmetric heap); shmem_quiet and shmem_fence are system-scope fences covering
 *   the calling thread's earlier stores, puts and AMOs; shmem_barrier_all (quiet, then sync) and
 *   shmem_sync_all (publishes this thread's stores, completes no RMA) are called by one thread per PE.
 */
#ifndef GPUSHMEM_DEVICE_API_QUERY_SYNC_CUH
#define GPUSHMEM_DEVICE_API_QUERY_SYNC_CUH

#ifndef GPUSHMEM_DEVICE_SHMEM_API_CUH
#error "part of gpushmem/device/shmem_api.cuh: include <shmem.h> instead"
#endif

extern "C" int gpushmemi_host_shmem_my_pe(void) __asm__("shmem_my_pe");
extern "C" int gpushmemi_host_shmem_n_pes(void) __asm__("shmem_n_pes");
extern "C" void *gpushmemi_host_shmem_ptr(const void *, int) __asm__("shmem_ptr");
extern "C" void gpushmemi_host_shmem_quiet(void) __asm__("shmem_quiet");
extern "C" void gpushmemi_host_shmem_fence(void) __asm__("shmem_fence");
extern "C" void gpushmemi_host_shmem_barrier_all(void) __asm__("shmem_barrier_all");
extern "C" void gpushmemi_host_shmem_sync_all(void) __asm__("shmem_sync_all");

static inline __host__ __device__ int shmem_my_pe(void) {
  return GPUSHMEMI_HD_BODY(GPUSHMEMI_DEV::my_pe(), gpushmemi_host_shmem_my_pe());
}
static inline __host__ __device__ int shmem_n_pes(void) {
  return GPUSHMEMI_HD_BODY(GPUSHMEMI_DEV::n_pes(), gpushmemi_host_shmem_n_pes());
}
static inline __host__ __device__ void *shmem_ptr(const void *dest, int pe) {
  return GPUSHMEMI_HD_BODY(GPUSHMEMI_DEV::pointer_to(dest, pe), gpushmemi_host_shmem_ptr(dest, pe));
}
static inline __host__ __device__ void shmem_quiet(void) {
  GPUSHMEMI_HD_BODY(GPUSHMEMI_DEV::quiet(), gpushmemi_host_shmem_quiet());
}
static inline __host__ __device__ void shmem_fence(void) {
  GPUSHMEMI_HD_BODY(GPUSHMEMI_DEV::fence(), gpushmemi_host_shmem_fence());
}
static inline __host__ __device__ void shmem_barrier_all(void) {
  GPUSHMEMI_HD_BODY(GPUSHMEMI_DEV::barrier_all<GPUSHMEMI_THREAD>("shmem_barrier_all"),
                    gpushmemi_host_shmem_barrier_all());
}
static inline __host__ __device__ void shmem_sync_all(void) {
  GPUSHMEMI_HD_BODY(GPUSHMEMI_DEV::sync_all<GPUSHMEMI_THREAD>("shmem_sync_all"), gpushmemi_host_shmem_sync_all());
}

#endif /* GPUSHMEM_DEVICE_API_QUERY_SYNC_CUH */
