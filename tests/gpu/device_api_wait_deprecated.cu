// The deprecated point-to-point forms 1.5 still lists, called in kernels: shmem_short / ushort wait_until and
// test, shmem_TYPE_wait (short, int, long, longlong) and shmem_wait, which wait until the word differs
// from cmp_value. Each PE's block 0 waits on its own words; block 1 of its left neighbour releases them with
// puts after a fence (one cooperative launch keeps both blocks co-resident, as device_api_wait.cu explains).
// The payload put before the fence must be complete when the waits return.
#include "device_api_common.cuh"
#include "phase_watchdog.h"

namespace {

constexpr int kPayload = 256;

struct words {
  short s;
  unsigned short us;
  short s_wait;
  int i_wait;
  long l_wait;
  long long ll_wait;
  long wait_plain;
  int payload[kPayload];
};

#define EXPECT_EQ(step, got, want)                                                            \
  do {                                                                                        \
    const long long got_ = static_cast<long long>(got), want_ = static_cast<long long>(want); \
    if (got_ != want_) report_failure(report, step, __LINE__, want_, got_);                   \
  } while (0)

__global__ void __launch_bounds__(1) deprecated_kernel(words *w, int to, device_report *report) {
  if (blockIdx.x == 1) {  // release the right neighbour's words
    int value[kPayload];
    for (int i = 0; i < kPayload; ++i) value[i] = 0x5EED0000 + i;
    shmem_int_put(w->payload, value, kPayload, to);
    shmem_fence();
    shmem_short_p(&w->s, short(-7), to);
    shmem_ushort_p(&w->us, static_cast<unsigned short>(65000), to);
    shmem_short_p(&w->s_wait, short(3), to);
    shmem_int_p(&w->i_wait, 4, to);
    shmem_long_p(&w->l_wait, 5L, to);
    shmem_longlong_p(&w->ll_wait, 6LL, to);
    shmem_long_p(&w->wait_plain, 7L, to);
    shmem_quiet();
    return;
  }
  // Words start at 0: test sees them unsatisfied first only if the neighbour has not released yet, so
  // only the satisfied answers are checked after the waits.
  shmem_short_wait_until(&w->s, SHMEM_CMP_LT, short(0));
  EXPECT_EQ(1, w->s, -7);
  shmem_ushort_wait_until(&w->us, SHMEM_CMP_GT, static_cast<unsigned short>(60000));
  EXPECT_EQ(2, w->us, 65000);
  shmem_short_wait(&w->s_wait, short(0));
  EXPECT_EQ(3, w->s_wait, 3);
  shmem_int_wait(&w->i_wait, 0);
  EXPECT_EQ(4, w->i_wait, 4);
  shmem_long_wait(&w->l_wait, 0L);
  EXPECT_EQ(5, w->l_wait, 5);
  shmem_longlong_wait(&w->ll_wait, 0LL);
  EXPECT_EQ(6, w->ll_wait, 6);
  shmem_wait(&w->wait_plain, 0L);
  EXPECT_EQ(7, w->wait_plain, 7);
  EXPECT_EQ(8, shmem_short_test(&w->s, SHMEM_CMP_EQ, short(-7)), 1);
  EXPECT_EQ(9, shmem_short_test(&w->s, SHMEM_CMP_GT, short(0)), 0);
  EXPECT_EQ(10, shmem_ushort_test(&w->us, SHMEM_CMP_GE, static_cast<unsigned short>(65000)), 1);
  EXPECT_EQ(11, shmem_ushort_test(&w->us, SHMEM_CMP_NE, static_cast<unsigned short>(65000)), 0);
  for (int i = 0; i < kPayload; ++i)
    if (w->payload[i] != 0x5EED0000 + i) {
      report_failure(report, 12, i, 0x5EED0000 + i, w->payload[i]);
      break;
    }
}

}  // namespace

int main() {
  const int skip = gpu_skip_status("device_api_wait_deprecated");
  if (skip != 0) return skip;
  shmem_init();
  if (device_state_ready("device_api_wait_deprecated")) {
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    device_report *report = new_device_report();
    words *w = static_cast<words *>(shmem_calloc(1, sizeof(words)));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaFuncAttributes attributes;  // load the kernel now, while no PE's kernel spins (device_api_wait.cu)
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, deprecated_kernel));
    device_sync_barrier();
    {
      phase_watchdog dog(me, "deprecated waits released by PE me-1 (deprecated_kernel)", 20);
      int to = (me + 1) % npes;
      words *w_arg = w;
      device_report *report_arg = report;
      void *args[] = {&w_arg, &to, &report_arg};
      const int launched = shmemx_collective_launch(reinterpret_cast<const void *>(&deprecated_kernel), dim3(2),
                                                    dim3(1), args, 0, stream);
      if (launched != 0) {
        PE_FAIL("shmemx_collective_launch(deprecated_kernel, 2 blocks) returned %d", launched);
        shmem_global_exit(1);
      }
      dog.await(stream);
    }
    device_sync_barrier();
    check_device_report(report, "deprecated waits (round 1-7: value after the wait, 8-11: test, 12: payload)");
    CUDA_CHECK(cudaStreamDestroy(stream));
    shmem_free(w);
    CUDA_CHECK(cudaFree(report));
  }
  return pe_finish("device_api_wait_deprecated");
}
