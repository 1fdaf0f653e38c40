// What the device API does only through the CPU proxy, data checked (2 PEs on one GPU in two virtual hosts, so
// the peer's heap is not mapped and every device operation is a proxy request; each PE works on the other):
//   - puts from and gets into shared memory (the bounce path, 1000 bytes in 256-byte pieces), thread and block
//     scope;
//   - puts and gets of 3 MiB between global buffers (staged by the proxy), blocking and nbi + quiet;
//   - 32768 threads each p'ing its own element, adding to one counter and fetch-adding another, through a ring
//     of 64 slots (GPUSHMEM_PROXY_CAPACITY=64: every producer meets back-pressure): the total is exact and the
//     fetched values are each of 0..32767 once;
//   - put-with-signal of 1 MiB from global memory and of 600 bytes from shared memory, waited for by the target's
//     kernel with shmem_signal_wait_until, which then checks the payload on the GPU;
//   - compare-and-swap and swap returning the old value, and g.
#include <vector>

#include "device_api_common.cuh"

namespace {

constexpr size_t kBig = 3u << 20;
constexpr size_t kSmall = 1000;
constexpr int kBlocks = 128, kThreads = 256, kN = kBlocks * kThreads;

struct Heap {
  unsigned char *big_src, *big_dst, *big_get;  // kBig each
  unsigned char *small_dst;                    // kSmall * 2 (thread, block)
  int *elems;                                  // kN
  unsigned long long *counter, *ticket;
  unsigned char *sig_dst;  // 1 MiB + 600
  uint64_t *sig;           // 2
  long long *swap_word;
};

__host__ __device__ unsigned char pattern(int pe, size_t k, int salt) {
  return static_cast<unsigned char>(pe * 31 + k * 7 + salt * 13 + 1);
}

__global__ void fill(unsigned char *p, size_t n, int pe, int salt) {
  for (size_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x)
    p[k] = pattern(pe, k, salt);
}

// Shared-memory source and destination, thread scope (thread 0) and block scope.
__global__ void shared_rma(Heap h, int peer, unsigned char *got, device_report *r) {
  __shared__ unsigned char buf[kSmall];
  const int me = shmem_my_pe();
  for (size_t k = threadIdx.x; k < kSmall; k += blockDim.x) buf[k] = pattern(me, k, 1);
  __syncthreads();
  if (threadIdx.x == 0) shmem_putmem(h.small_dst, buf, kSmall, peer);
  __syncthreads();
  for (size_t k = threadIdx.x; k < kSmall; k += blockDim.x) buf[k] = pattern(me, k, 2);
  shmemx_putmem_block(h.small_dst + kSmall, buf, kSmall, peer);
  shmem_quiet();
  __syncthreads();
  // Gets into shared memory of what the peer holds in its big_src (filled before the kernel).
  shmemx_getmem_block(buf, h.big_src + 5, kSmall, peer);
  for (size_t k = threadIdx.x; k < kSmall; k += blockDim.x)
    if (buf[k] != pattern(peer, k + 5, 0))
      report_failure(r, 1, static_cast<long long>(k), pattern(peer, k + 5, 0), buf[k]);
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned char mine[40];
    shmem_getmem(mine, h.big_src + 100, sizeof mine, peer);  // the thread's stack: not global memory either
    for (size_t k = 0; k < sizeof mine; ++k)
      if (mine[k] != pattern(peer, k + 100, 0))
        report_failure(r, 2, static_cast<long long>(k), pattern(peer, k + 100, 0), mine[k]);
    for (size_t k = 0; k < kSmall; ++k) got[k] = buf[k];
  }
}

// Global buffers of 3 MiB: put, put_nbi + quiet, get, get_nbi + quiet.
__global__ void big_rma(Heap h, int peer, unsigned char *local_src, unsigned char *local_dst) {
  shmem_putmem(h.big_dst, local_src, kBig / 2, peer);
  shmem_putmem_nbi(h.big_dst + kBig / 2, local_src + kBig / 2, kBig - kBig / 2, peer);
  shmem_getmem(local_dst, h.big_src, kBig / 2, peer);
  shmem_getmem_nbi(local_dst + kBig / 2, h.big_src + kBig / 2, kBig - kBig / 2, peer);
  shmem_quiet();
}

// Many producers through a small ring.
__global__ void many(Heap h, int peer, unsigned long long *fetched) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  shmem_int_p(h.elems + i, i * 3 + 1, peer);
  shmem_ulonglong_atomic_add(h.counter, static_cast<unsigned long long>(i + 1), peer);
  fetched[i] = shmem_ulonglong_atomic_fetch_inc(h.ticket, peer);
  __syncthreads();
  if (threadIdx.x == 0) shmem_quiet();  // completes every request of the channel issued before it
}

// The producer of the signal test: two put-with-signals to the peer, then a swap and compare-and-swap.
__global__ void signal_producer(Heap h, int peer, unsigned char *src, long long *olds) {
  __shared__ unsigned char buf[600];
  const int me = shmem_my_pe();
  for (size_t k = threadIdx.x; k < sizeof buf; k += blockDim.x) buf[k] = pattern(me, k, 4);
  __syncthreads();
  shmemx_putmem_signal_block(h.sig_dst, src, 1u << 20, h.sig, 7, SHMEM_SIGNAL_SET, peer);
  shmemx_putmem_signal_nbi_block(h.sig_dst + (1u << 20), buf, sizeof buf, h.sig + 1, 5, SHMEM_SIGNAL_ADD, peer);
  if (threadIdx.x == 0) {
    olds[0] = shmem_longlong_atomic_swap(h.swap_word, 1000 + me, peer);
    olds[1] = shmem_longlong_atomic_compare_swap(h.swap_word, 1000 + me, 2000 + me, peer);
    olds[2] = shmem_longlong_atomic_compare_swap(h.swap_word, 1, 3, peer);  // fails: the value is 2000 + me
    olds[3] = shmem_longlong_g(h.swap_word, peer);
    shmem_quiet();
  }
}

// The target's side: waits for both signals, then checks both payloads on the GPU.
__global__ void signal_consumer(Heap h, int writer, device_report *r) {
  if (threadIdx.x == 0) {
    shmem_signal_wait_until(h.sig, SHMEM_CMP_EQ, 7);
    shmem_signal_wait_until(h.sig + 1, SHMEM_CMP_EQ, 5);
  }
  __syncthreads();
  for (size_t k = threadIdx.x; k < (1u << 20); k += blockDim.x)
    if (h.sig_dst[k] != pattern(writer, k, 3))
      report_failure(r, 3, static_cast<long long>(k), pattern(writer, k, 3), h.sig_dst[k]);
  for (size_t k = threadIdx.x; k < 600; k += blockDim.x)
    if (h.sig_dst[(1u << 20) + k] != pattern(writer, k, 4))
      report_failure(r, 4, static_cast<long long>(k), pattern(writer, k, 4), h.sig_dst[(1u << 20) + k]);
}

template <class T>
std::vector<T> read_back(const T *p, size_t n) {
  std::vector<T> v(n);
  CUDA_CHECK(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

void expect_bytes(const char *what, const std::vector<unsigned char> &got, size_t offset, int pe, size_t from,
                  int salt) {
  long bad = 0;
  for (size_t k = 0; k < got.size() - offset; ++k) {
    const unsigned char want = pattern(pe, from + k, salt);
    if (got[offset + k] == want) continue;
    if (bad++ < 3) PE_FAIL("%s: byte %zu: expected 0x%02x, got 0x%02x", what, k, want, got[offset + k]);
  }
  if (bad > 3) PE_FAIL("%s: %ld bytes differ", what, bad);
}

void check_report(const char *what, device_report *r) {
  device_report h{};
  CUDA_CHECK(cudaMemcpy(&h, r, sizeof h, cudaMemcpyDeviceToHost));
  if (h.failures != 0)
    PE_FAIL("%s: %llu device-side mismatches; first: check %lld, index %lld: expected %lld, got %lld", what, h.failures,
            h.round, h.index, h.expected, h.got);
}

}  // namespace

int main() {
  if (int skip = gpu_skip_status("proxy_device")) return skip;
  shmem_init();
  if (!device_state_ready("proxy_device")) return pe_finish("proxy_device");
  const int me = shmem_my_pe(), peer = 1 - me;
  if (shmem_n_pes() != 2) {
    PE_FAIL("run with 2 PEs (got %d)", shmem_n_pes());
    return pe_finish("proxy_device");
  }
  if (shmem_ptr(shmem_malloc(8), peer) != nullptr)
    PE_FAIL("the peer's heap is mapped: run the PEs in two virtual hosts");
  Heap h{};
  h.big_src = static_cast<unsigned char *>(shmem_malloc(kBig));
  h.big_dst = static_cast<unsigned char *>(shmem_calloc(kBig, 1));
  h.big_get = static_cast<unsigned char *>(shmem_malloc(kBig));
  h.small_dst = static_cast<unsigned char *>(shmem_calloc(2 * kSmall, 1));
  h.elems = static_cast<int *>(shmem_calloc(kN, sizeof(int)));
  h.counter = static_cast<unsigned long long *>(shmem_calloc(1, 8));
  h.ticket = static_cast<unsigned long long *>(shmem_calloc(1, 8));
  h.sig_dst = static_cast<unsigned char *>(shmem_calloc((1u << 20) + 600, 1));
  h.sig = static_cast<uint64_t *>(shmem_calloc(2, 8));
  h.swap_word = static_cast<long long *>(shmem_calloc(1, 8));
  unsigned char *local_src = nullptr, *local_dst = nullptr, *got_small = nullptr, *sig_src = nullptr;
  unsigned long long *fetched = nullptr;
  long long *olds = nullptr;
  device_report *report = nullptr;
  CUDA_CHECK(cudaMalloc(&local_src, kBig));
  CUDA_CHECK(cudaMalloc(&local_dst, kBig));
  CUDA_CHECK(cudaMalloc(&got_small, kSmall));
  CUDA_CHECK(cudaMalloc(&sig_src, 1u << 20));
  CUDA_CHECK(cudaMalloc(&fetched, kN * sizeof *fetched));
  CUDA_CHECK(cudaMalloc(&olds, 4 * sizeof *olds));
  CUDA_CHECK(cudaMalloc(&report, sizeof *report));
  CUDA_CHECK(cudaMemset(report, 0, sizeof *report));
  CUDA_CHECK(cudaMemset(local_dst, 0, kBig));
  fill<<<64, 256>>>(h.big_src, kBig, me, 0);
  fill<<<64, 256>>>(local_src, kBig, me, 5);
  fill<<<64, 256>>>(sig_src, 1u << 20, me, 3);
  device_sync_barrier();

  shared_rma<<<1, 128>>>(h, peer, got_small, report);
  device_sync_barrier();
  check_report("gets into shared memory and the stack", report);
  const std::vector<unsigned char> small = read_back(h.small_dst, 2 * kSmall);
  expect_bytes("shmem_putmem from shared memory (thread)",
               std::vector<unsigned char>(small.begin(), small.begin() + kSmall), 0, peer, 0, 1);
  expect_bytes("shmemx_putmem_block from shared memory",
               std::vector<unsigned char>(small.begin() + kSmall, small.end()), 0, peer, 0, 2);

  big_rma<<<1, 1>>>(h, peer, local_src, local_dst);
  device_sync_barrier();
  expect_bytes("3 MiB put + put_nbi from global memory", read_back(h.big_dst, kBig), 0, peer, 0, 5);
  expect_bytes("3 MiB get + get_nbi into global memory", read_back(local_dst, kBig), 0, peer, 0, 0);

  many<<<kBlocks, kThreads>>>(h, peer, fetched);
  device_sync_barrier();
  const std::vector<int> elems = read_back(h.elems, kN);
  long bad = 0;
  for (int i = 0; i < kN; ++i)
    if (elems[i] != i * 3 + 1 && bad++ < 3) PE_FAIL("p by thread %d: expected %d, got %d", i, i * 3 + 1, elems[i]);
  const unsigned long long total = read_back(h.counter, 1)[0], tickets = read_back(h.ticket, 1)[0];
  const unsigned long long want = static_cast<unsigned long long>(kN) * (kN + 1) / 2;
  if (total != want) PE_FAIL("atomic_add by %d threads: total %llu, expected %llu", kN, total, want);
  if (tickets != static_cast<unsigned long long>(kN))
    PE_FAIL("atomic_fetch_inc: ticket %llu, expected %d", tickets, kN);
  const std::vector<unsigned long long> f = read_back(fetched, kN);
  std::vector<int> seen(kN, 0);
  for (int i = 0; i < kN; ++i) {
    if (f[i] >= static_cast<unsigned long long>(kN) || seen[f[i]]++ != 0) {
      if (bad++ < 3) PE_FAIL("atomic_fetch_inc by thread %d returned %llu (out of range or twice)", i, f[i]);
    }
  }

  // Each PE's consumer waits on its own words while the peer's producer writes them: both run at once.
  cudaStream_t s1 = nullptr, s2 = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  signal_consumer<<<1, 256, 0, s1>>>(h, peer, report);
  signal_producer<<<1, 64, 0, s2>>>(h, peer, sig_src, olds);
  device_sync_barrier();
  check_report("put-with-signal payloads checked by the target's kernel", report);
  const std::vector<long long> o = read_back(olds, 4);
  if (o[0] != 0 || o[1] != 1000 + me || o[2] != 2000 + me || o[3] != 2000 + me)
    PE_FAIL("swap / compare_swap / g returned %lld %lld %lld %lld, expected 0 %d %d %d", o[0], o[1], o[2], o[3],
            1000 + me, 2000 + me, 2000 + me);
  const long long word = read_back(h.swap_word, 1)[0];
  if (word != 2000 + peer) PE_FAIL("the swapped word holds %lld, expected %d", word, 2000 + peer);
  shmem_barrier_all();
  return pe_finish("proxy_device");
}
