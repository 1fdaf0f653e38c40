// Every stream-ordered operation (include/gpushmem/stream.h) with data checks, the PEs in a ring (each sends
// to the next):
//   - putmem_on_stream from device, pinned host and pageable host memory, with odd sizes and offsets, on a
//     created stream, cudaStreamPerThread and the legacy default stream; getmem_on_stream; typed put / get;
//   - putmem_signal_on_stream (ADD, then SET with no payload) read through signal_wait_until_on_stream, with
//     no host synchronisation between the wait and the read of the payload;
//   - signal_op_on_stream (SET, then ADD) ordered after an earlier put on the same stream;
//   - quiet_on_stream, then barrier_all_on_stream and sync_all_on_stream: rounds of put, collective, read
//     of what the previous PE put, all on one stream without the host in between.
#include <cstring>

#include "stream_util.cuh"

namespace {

constexpr size_t kBytes = (1u << 20) + 4099;  // a multiple of nothing in particular
constexpr int kRounds = 6;

struct Ring {
  int me, npes, next, prev;
  cudaStream_t stream;
  unsigned char *dst;     // symmetric: the previous PE puts here
  unsigned char *dst2;    // symmetric: the second buffer of the collective rounds
  unsigned char *src;     // symmetric: the next PE gets from here
  uint64_t *sig;          // symmetric: 8 signal words
  unsigned char *dev;     // local device memory
  unsigned char *pinned;  // pinned host memory, kBytes
};

// Fills device memory with stream_pattern(writer, step); the bytes have landed when it returns (see
// stream_upload: the puts and gets that read them run on other streams and on other PEs).
void upload(void *device, int writer, int step, size_t n) {
  const std::vector<unsigned char> v = stream_bytes(writer, step, n);
  stream_upload(device, v.data(), n);
}

// One put of the source's `bytes` bytes (stream_pattern(me, step)) into the next PE's dst + offset on
// `stream`, then a check of what the previous PE put here.
void put_step(Ring &r, const char *what, int step, const void *source, size_t bytes, size_t offset,
              cudaStream_t stream) {
  shmem_barrier_all();  // the previous step's readers are done with dst
  shmemx_putmem_on_stream(r.dst + offset, source, bytes, r.next, stream);
  STREAM_CUDA_OK(cudaStreamSynchronize(stream));
  shmem_barrier_all();
  stream_expect_device(what, r.dst + offset, bytes, r.prev, step);
}

void put_steps(Ring &r) {
  upload(r.dev, r.me, 1, kBytes);
  put_step(r, "putmem_on_stream from device memory", 1, r.dev, kBytes, 0, r.stream);

  const std::vector<unsigned char> odd = stream_bytes(r.me, 2, 4099);
  std::memcpy(r.pinned, odd.data(), odd.size());
  put_step(r, "putmem_on_stream from pinned memory to an odd offset", 2, r.pinned, odd.size(), 3, r.stream);

  const std::vector<unsigned char> pageable = stream_bytes(r.me, 3, kBytes);
  put_step(r, "putmem_on_stream from pageable memory", 3, pageable.data(), kBytes, 0, r.stream);

  upload(r.dev, r.me, 4, kBytes);
  put_step(r, "putmem_on_stream on cudaStreamPerThread", 4, r.dev, kBytes, 0, cudaStreamPerThread);

  upload(r.dev, r.me, 5, 65536);
  put_step(r, "putmem_on_stream on the legacy default stream", 5, r.dev, 65536, 128, nullptr);

  // Zero bytes: nothing happens, and no argument is looked at.
  shmemx_putmem_on_stream(nullptr, nullptr, 0, r.next, r.stream);
}

void get_steps(Ring &r) {
  upload(r.src, r.me, 6, kBytes);
  shmem_barrier_all();  // every PE's src holds its step-6 bytes
  shmemx_getmem_on_stream(r.dev, r.src, kBytes, r.next, r.stream);
  shmemx_getmem_on_stream(r.pinned, r.src + 5, 1000, r.next, r.stream);
  STREAM_CUDA_OK(cudaStreamSynchronize(r.stream));
  stream_expect_device("getmem_on_stream into device memory", r.dev, kBytes, r.next, 6);
  stream_expect("getmem_on_stream into pinned memory from an odd offset", r.pinned, 1000, r.next, 6, 5);
}

void typed(Ring &r) {
  constexpr size_t n = 1000;
  int *ints = reinterpret_cast<int *>(r.dst);
  double *doubles = reinterpret_cast<double *>(r.src);
  long double *longs = reinterpret_cast<long double *>(r.dst2);
  std::vector<int> my_ints(n);
  std::vector<double> my_doubles(n);
  std::vector<long double> my_longs(n);
  for (size_t k = 0; k < n; ++k) {
    my_ints[k] = r.me * 100000 + static_cast<int>(k);
    my_doubles[k] = r.me + 0.5 * static_cast<double>(k);
    my_longs[k] = static_cast<long double>(r.me) * 1e6L + static_cast<long double>(k) / 3;
  }
  int *dev_ints = reinterpret_cast<int *>(r.dev);
  shmem_barrier_all();  // the next PE has finished getting from src
  stream_upload(dev_ints, my_ints.data(), n * sizeof(int));
  stream_upload(doubles, my_doubles.data(), n * sizeof(double));
  shmem_barrier_all();  // every PE's src holds its doubles
  shmemx_int_put_on_stream(ints, dev_ints, n, r.next, r.stream);
  shmemx_longdouble_put_on_stream(longs, my_longs.data(), n, r.next, r.stream);
  double *got_doubles = reinterpret_cast<double *>(r.pinned);
  shmemx_double_get_on_stream(got_doubles, doubles, n, r.next, r.stream);
  STREAM_CUDA_OK(cudaStreamSynchronize(r.stream));
  shmem_barrier_all();

  std::vector<int> got_ints(n);
  std::vector<long double> got_longs(n);
  STREAM_CUDA_OK(cudaMemcpy(got_ints.data(), ints, n * sizeof(int), cudaMemcpyDeviceToHost));
  STREAM_CUDA_OK(cudaMemcpy(got_longs.data(), longs, n * sizeof(long double), cudaMemcpyDeviceToHost));
  for (size_t k = 0; k < n; ++k) {
    const int want_int = r.prev * 100000 + static_cast<int>(k);
    PE_CHECK(got_ints[k] == want_int, "shmemx_int_put_on_stream: element %zu: expected %d, got %d", k, want_int,
             got_ints[k]);
    const double want_double = r.next + 0.5 * static_cast<double>(k);
    PE_CHECK(got_doubles[k] == want_double, "shmemx_double_get_on_stream: element %zu: expected %g, got %g", k,
             want_double, got_doubles[k]);
    const long double want_long = static_cast<long double>(r.prev) * 1e6L + static_cast<long double>(k) / 3;
    PE_CHECK(got_longs[k] == want_long, "shmemx_longdouble_put_on_stream: element %zu: expected %Lg, got %Lg", k,
             want_long, got_longs[k]);
  }
}

void signals(Ring &r) {
  // cudaMemset of device memory may return before it runs (on the legacy stream): upload's device
  // synchronisation finishes it before the barrier, so no PE's signal can land first and be zeroed.
  STREAM_CUDA_OK(cudaMemset(r.sig, 0, 8 * sizeof(uint64_t)));
  upload(r.dev, r.me, 8, kBytes);
  shmem_barrier_all();  // every PE's signal words are zero

  // Payload and signal; the reader's stream waits for the signal and then reads, with no host in between.
  shmemx_putmem_signal_on_stream(r.dst, r.dev, kBytes, &r.sig[0], 1, SHMEM_SIGNAL_ADD, r.next, r.stream);
  shmemx_signal_wait_until_on_stream(&r.sig[0], SHMEM_CMP_EQ, 1, r.stream);
  STREAM_CUDA_OK(cudaMemcpyAsync(r.pinned, r.dst, kBytes, cudaMemcpyDefault, r.stream));
  // The signal alone (no payload), SET.
  shmemx_putmem_signal_on_stream(nullptr, nullptr, 0, &r.sig[1], 77, SHMEM_SIGNAL_SET, r.next, r.stream);
  shmemx_signal_wait_until_on_stream(&r.sig[1], SHMEM_CMP_EQ, 77, r.stream);
  STREAM_CUDA_OK(cudaStreamSynchronize(r.stream));
  stream_expect("payload of putmem_signal_on_stream, read after signal_wait_until_on_stream", r.pinned, kBytes, r.prev,
                8);

  // A plain put, then signal ops: the update is ordered after the put by the stream.
  shmem_barrier_all();  // every PE has read its dst
  upload(r.dev, r.me, 9, kBytes);
  shmemx_putmem_on_stream(r.dst, r.dev, kBytes, r.next, r.stream);
  shmemx_signal_op_on_stream(&r.sig[2], 5, SHMEM_SIGNAL_SET, r.next, r.stream);
  shmemx_signal_op_on_stream(&r.sig[2], 3, SHMEM_SIGNAL_ADD, r.next, r.stream);
  shmemx_signal_wait_until_on_stream(&r.sig[2], SHMEM_CMP_EQ, 8, r.stream);
  STREAM_CUDA_OK(cudaMemcpyAsync(r.pinned, r.dst, kBytes, cudaMemcpyDefault, r.stream));
  STREAM_CUDA_OK(cudaStreamSynchronize(r.stream));
  stream_expect("putmem_on_stream read after signal_op_on_stream's update", r.pinned, kBytes, r.prev, 9);

  shmem_barrier_all();
  const uint64_t want[3] = {1, 77, 8};
  for (int k = 0; k < 3; ++k) {
    const uint64_t got = stream_read_u64(&r.sig[k]);
    PE_CHECK(got == want[k], "signal word %d after the stream's signal ops: expected %llu, got %llu", k,
             static_cast<unsigned long long>(want[k]), static_cast<unsigned long long>(got));
  }
}

// kRounds rounds of: put to the next PE, the collective, copy of what the previous PE put into pinned
// memory; all enqueued at once. Two destination buffers alternate: the previous PE's put of round i + 2
// comes after its collective of round i + 1, which this PE reaches only after reading round i.
void collective_rounds(Ring &r, const char *name, void (*collective)(cudaStream_t), int first_step) {
  std::vector<unsigned char *> sources(kRounds), results(kRounds);
  for (int i = 0; i < kRounds; ++i) {
    STREAM_CUDA_OK(cudaMalloc(&sources[i], kBytes));
    STREAM_CUDA_OK(cudaMallocHost(&results[i], kBytes));
    upload(sources[i], r.me, first_step + i, kBytes);
  }
  shmem_barrier_all();  // every PE has read its dst (the earlier steps)
  for (int i = 0; i < kRounds; ++i) {
    unsigned char *dst = i % 2 == 0 ? r.dst : r.dst2;
    shmemx_putmem_on_stream(dst, sources[i], kBytes, r.next, r.stream);
    if (i == 0) shmemx_quiet_on_stream(r.stream);
    collective(r.stream);
    STREAM_CUDA_OK(cudaMemcpyAsync(results[i], dst, kBytes, cudaMemcpyDefault, r.stream));
  }
  STREAM_CUDA_OK(cudaStreamSynchronize(r.stream));
  char what[128];
  for (int i = 0; i < kRounds; ++i) {
    std::snprintf(what, sizeof what, "round %d: putmem_on_stream, %s, read", i, name);
    stream_expect(what, results[i], kBytes, r.prev, first_step + i);
    STREAM_CUDA_OK(cudaFree(sources[i]));
    STREAM_CUDA_OK(cudaFreeHost(results[i]));
  }
}

}  // namespace

int main() {
  shmem_init();
  Ring r{};
  r.me = shmem_my_pe();
  r.npes = shmem_n_pes();
  r.next = (r.me + 1) % r.npes;
  r.prev = (r.me + r.npes - 1) % r.npes;
  r.dst = static_cast<unsigned char *>(shmem_malloc(kBytes));
  r.dst2 = static_cast<unsigned char *>(shmem_malloc(kBytes));
  r.src = static_cast<unsigned char *>(shmem_malloc(kBytes));
  r.sig = static_cast<uint64_t *>(shmem_calloc(8, sizeof(uint64_t)));
  PE_CHECK(r.dst && r.dst2 && r.src && r.sig, "shmem_malloc failed");
  if (!r.dst || !r.dst2 || !r.src || !r.sig || !stream_gpu_mode(r.dst, r.next)) return pe_finish("stream_ops");
  STREAM_CUDA_OK(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking));
  STREAM_CUDA_OK(cudaMalloc(&r.dev, kBytes));
  STREAM_CUDA_OK(cudaMallocHost(&r.pinned, kBytes));

  put_steps(r);
  get_steps(r);
  typed(r);
  signals(r);
  collective_rounds(r, "barrier_all_on_stream", shmemx_barrier_all_on_stream, 20);
  collective_rounds(r, "sync_all_on_stream", shmemx_sync_all_on_stream, 40);

  STREAM_CUDA_OK(cudaStreamDestroy(r.stream));
  STREAM_CUDA_OK(cudaFree(r.dev));
  STREAM_CUDA_OK(cudaFreeHost(r.pinned));
  shmem_barrier_all();
  shmem_free(r.sig);
  shmem_free(r.src);
  shmem_free(r.dst2);
  shmem_free(r.dst);
  return pe_finish("stream_ops");
}
