// Events (shmemx_*_nbi_event, shmemx_event_*; include/gpushmem/device/event.cuh), in thread, warp and block scope,
// data checked. Two PEs, each working on the other. Over P2P every event is SHMEMX_EVENT_COMPLETE; on two virtual
// hosts (gpu-vhost) a put or get of a global buffer larger than 256 bytes is staged by the CPU proxy and returns a
// real event:
//   - put of 1 MiB from a device buffer, event waited for, then the source overwritten in the same kernel: the
//     target must hold the first contents (the event said the source had been read), after a quiet;
//   - get of 1 MiB into a device buffer, event waited for, data checked in the same kernel;
//   - put-with-signal of 600 KiB with its event, the target's kernel waiting for the signal and checking the
//     payload;
//   - three events at once: wait_any returns an index whose event tests complete, wait_all leaves all complete.
// Built with GPUSHMEM_DEVICE_IBGDA=1 (device_api_ibgda.event) the buffers outside the heap travel through the QP's
// bounce memory piece by piece instead, so there too every event is complete at issue.
#include <vector>

#include "device_api_common.cuh"

namespace {

constexpr size_t kBytes = 1u << 20, kSig = 600u << 10;

__host__ __device__ unsigned char pattern(int pe, size_t k, int salt) {
  return static_cast<unsigned char>(pe * 37 + k * 11 + salt * 5 + 3);
}

__global__ void fill(unsigned char *p, size_t n, int pe, int salt) {
  for (size_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x)
    p[k] = pattern(pe, k, salt);
}

template <int S>
__device__ shmemx_event_t put_event(void *d, const void *s, size_t n, int pe) {
  if (S == kThread) return shmemx_putmem_nbi_event(d, s, n, pe);
  if (S == kWarp) return shmemx_putmem_nbi_event_warp(d, s, n, pe);
  return shmemx_putmem_nbi_event_block(d, s, n, pe);
}
template <int S>
__device__ shmemx_event_t get_event(void *d, const void *s, size_t n, int pe) {
  if (S == kThread) return shmemx_getmem_nbi_event(d, s, n, pe);
  if (S == kWarp) return shmemx_getmem_nbi_event_warp(d, s, n, pe);
  return shmemx_getmem_nbi_event_block(d, s, n, pe);
}

// events[0..3): the put's, the get's, the put-with-signal's, as rank 0 saw them; events[3]: 1 if any rank of the
// group got another value than rank 0.
template <int S>
__global__ void events_kernel(unsigned char *put_dst, unsigned char *src, unsigned char *get_src,
                              unsigned char *get_dst, unsigned char *sig_dst, uint64_t *sig, int peer,
                              shmemx_event_t *events, device_report *r) {
  const unsigned rank = scope_rank<S>(), size = scope_size<S>();
  const int me = shmem_my_pe();
  if (S == kThread && rank != 0) return;
  const shmemx_event_t put = put_event<S>(put_dst, src, kBytes, peer);
  shmemx_event_wait(put);
  if (!shmemx_event_test(put)) report_failure(r, 1, 0, 1, 0);
  scope_sync<S>();
  for (size_t k = rank; k < kBytes; k += size) src[k] = pattern(me, k, 9);  // the source is ours again
  scope_sync<S>();
  const shmemx_event_t get = get_event<S>(get_dst, get_src, kBytes, peer);
  shmemx_event_wait(get);
  for (size_t k = rank; k < kBytes; k += size)
    if (get_dst[k] != pattern(peer, k, 2))
      report_failure(r, 2, static_cast<long long>(k), pattern(peer, k, 2), get_dst[k]);
  shmemx_event_t three[3];
  if (S == kThread)
    three[0] = shmemx_putmem_signal_nbi_event(sig_dst, get_dst, kSig, sig, 1, SHMEM_SIGNAL_ADD, peer);
  else if (S == kWarp)
    three[0] = shmemx_putmem_signal_nbi_event_warp(sig_dst, get_dst, kSig, sig, 1, SHMEM_SIGNAL_ADD, peer);
  else
    three[0] = shmemx_putmem_signal_nbi_event_block(sig_dst, get_dst, kSig, sig, 1, SHMEM_SIGNAL_ADD, peer);
  three[1] = put_event<S>(put_dst + kBytes, src, 4096, peer);
  three[2] = get_event<S>(get_dst + kBytes, get_src, 4096, peer);  // not where the put-with-signal reads
  const size_t any = shmemx_event_wait_any(three, 3);
  if (any >= 3 || !shmemx_event_test(three[any])) report_failure(r, 3, static_cast<long long>(any), 1, 0);
  shmemx_event_wait_all(three, 3);
  for (int i = 0; i < 3; ++i)
    if (!shmemx_event_test(three[i])) report_failure(r, 4, i, 1, 0);
  const shmemx_event_t mine[3] = {put, get, three[0]};
  if (rank == 0) {
    for (int i = 0; i < 3; ++i) events[i] = mine[i];
  }
  scope_sync<S>();
  for (int i = 0; i < 3; ++i)
    if (mine[i] != events[i]) events[3] = 1;
  if (rank == 0) shmem_quiet();
}

// The target's side of the put-with-signal: the signal (one add per scope run), then the payload, which the writer
// got from this PE's get_src first (this PE's pattern, salt 2).
__global__ void signal_check(unsigned char *sig_dst, uint64_t *sig, uint64_t expected, device_report *r) {
  const int me = shmem_my_pe();
  if (threadIdx.x == 0) shmem_signal_wait_until(sig, SHMEM_CMP_GE, expected);
  __syncthreads();
  for (size_t k = threadIdx.x; k < kSig; k += blockDim.x)
    if (sig_dst[k] != pattern(me, k, 2)) report_failure(r, 5, static_cast<long long>(k), pattern(me, k, 2), sig_dst[k]);
}

}  // namespace

int main() {
  if (int skip = gpu_skip_status("device_api_event")) return skip;
  shmem_init();
  if (!device_state_ready("device_api_event")) return pe_finish("device_api_event");
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int peer = (me + 1) % npes, writer = (me + npes - 1) % npes;
  auto *put_dst = static_cast<unsigned char *>(shmem_calloc(kBytes + 4096, 1));
  auto *get_src = static_cast<unsigned char *>(shmem_malloc(kBytes));
  auto *sig_dst = static_cast<unsigned char *>(shmem_calloc(kSig, 1));
  auto *sig = static_cast<uint64_t *>(shmem_calloc(1, sizeof(uint64_t)));
  const bool proxied = shmem_ptr(put_dst, peer) == nullptr;
#if GPUSHMEM_DEVICE_IBGDA
  // Over IBGDA a local buffer outside the heap (src, get_dst: cudaMalloc) travels through the QP's bounce memory one
  // piece at a time, each complete before the next: the events are complete at issue, as over P2P.
  const bool staged = false;
#else
  const bool staged = proxied;  // through the proxy, staged by copy-engine copies that finish later
#endif
  unsigned char *src = nullptr, *get_dst = nullptr;
  shmemx_event_t *events = nullptr;
  CUDA_CHECK(cudaMalloc(&src, kBytes));
  CUDA_CHECK(cudaMalloc(&get_dst, kBytes + 4096));
  CUDA_CHECK(cudaMalloc(&events, 4 * sizeof(shmemx_event_t)));
  device_report *report = new_device_report();
  fill<<<64, 256>>>(get_src, kBytes, me, 2);
  device_sync_barrier();
  for (int s = kThread; s <= kBlock; ++s) {
    fill<<<64, 256>>>(src, kBytes, me, s);
    CUDA_CHECK(cudaMemset(events, 0, 4 * sizeof(shmemx_event_t)));
    device_sync_barrier();
    const unsigned threads = scope_threads(s);
    if (s == kThread)
      events_kernel<kThread><<<1, threads>>>(put_dst, src, get_src, get_dst, sig_dst, sig, peer, events, report);
    else if (s == kWarp)
      events_kernel<kWarp><<<1, threads>>>(put_dst, src, get_src, get_dst, sig_dst, sig, peer, events, report);
    else
      events_kernel<kBlock><<<1, threads>>>(put_dst, src, get_src, get_dst, sig_dst, sig, peer, events, report);
    signal_check<<<1, 256>>>(sig_dst, sig, static_cast<uint64_t>(s + 1), report);
    device_sync_barrier();
    check_device_report(report, scope_name(s));
    shmemx_event_t ev[4];
    CUDA_CHECK(cudaMemcpy(ev, events, sizeof ev, cudaMemcpyDeviceToHost));
    if (ev[3] != 0) PE_FAIL("%s: the group's threads were returned different events", scope_name(s));
    for (int i = 0; i < 3; ++i) {
      if (!staged && ev[i] != SHMEMX_EVENT_COMPLETE)
        PE_FAIL("%s: event %d is 0x%llx, expected SHMEMX_EVENT_COMPLETE (%s)", scope_name(s), i,
                static_cast<unsigned long long>(ev[i]), proxied ? "IBGDA through bounce memory" : "P2P");
      if (staged && ev[i] == SHMEMX_EVENT_COMPLETE)
        PE_FAIL("%s: event %d of a staged transfer through the proxy is SHMEMX_EVENT_COMPLETE", scope_name(s), i);
    }
    // What the writer put before it overwrote its source: salt s, not 9.
    std::vector<unsigned char> got(kBytes);
    CUDA_CHECK(cudaMemcpy(got.data(), put_dst, kBytes, cudaMemcpyDeviceToHost));
    for (size_t k = 0; k < kBytes; ++k)
      if (got[k] != pattern(writer, k, s)) {
        PE_FAIL("%s: put byte %zu: 0x%02x, expected 0x%02x (the source's first contents)", scope_name(s), k, got[k],
                pattern(writer, k, s));
        break;
      }
    shmem_barrier_all();
  }
  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(get_dst));
  CUDA_CHECK(cudaFree(events));
  CUDA_CHECK(cudaFree(report));
  shmem_free(put_dst);
  shmem_free(get_src);
  shmem_free(sig_dst);
  shmem_free(sig);
  return pe_finish("device_api_event");
}
