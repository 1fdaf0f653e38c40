// Stream-ordered operations inside a CUDA graph: one iteration of a ring exchange is captured once, in
// cudaStreamCaptureModeGlobal (the strictest mode: any call that could synchronise, from any thread, breaks
// the capture), instantiated, and launched kLaunches times with new data each time:
//   sync_all_on_stream                (every PE has filled its buffers for this launch)
//   getmem_on_stream                  (the next PE's src into local device memory)
//   putmem_on_stream + signal_op_on_stream ADD 1   (into the next PE's dst, its signal word 0)
//   putmem_signal_on_stream ADD 1     (into the next PE's dst2, its signal word 1)
//   quiet_on_stream, barrier_all_on_stream
// After launch i every PE checks dst, dst2 and the got bytes against the step-i patterns of its neighbours,
// and both signal words against i + 1. The gpu-vhost run does the same to a PE on another node (the CPU proxy).
#include "stream_util.cuh"

namespace {

constexpr size_t kBytes = 256 * 1024 + 40;
constexpr int kLaunches = 10;

}  // namespace

int main() {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  auto *dst = static_cast<unsigned char *>(shmem_malloc(kBytes));
  auto *dst2 = static_cast<unsigned char *>(shmem_malloc(kBytes));
  auto *src = static_cast<unsigned char *>(shmem_malloc(kBytes));
  auto *sig = static_cast<uint64_t *>(shmem_calloc(2, sizeof(uint64_t)));
  PE_CHECK(dst && dst2 && src && sig, "shmem_malloc failed");
  if (!dst || !dst2 || !src || !sig || !stream_gpu_mode(dst, next)) return pe_finish("stream_graph");

  cudaStream_t stream;
  STREAM_CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  unsigned char *payload = nullptr, *got = nullptr;
  STREAM_CUDA_OK(cudaMalloc(&payload, kBytes));
  STREAM_CUDA_OK(cudaMalloc(&got, kBytes));

  // Capture: nothing runs yet; the calls only record nodes.
  cudaGraph_t graph = nullptr;
  STREAM_CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  shmemx_sync_all_on_stream(stream);
  shmemx_getmem_on_stream(got, src, kBytes, next, stream);
  shmemx_putmem_on_stream(dst, payload, kBytes, next, stream);
  shmemx_signal_op_on_stream(&sig[0], 1, SHMEM_SIGNAL_ADD, next, stream);
  shmemx_putmem_signal_on_stream(dst2, payload, kBytes, &sig[1], 1, SHMEM_SIGNAL_ADD, next, stream);
  shmemx_quiet_on_stream(stream);
  shmemx_barrier_all_on_stream(stream);
  STREAM_CUDA_OK(cudaStreamEndCapture(stream, &graph));
  size_t nodes = 0;
  STREAM_CUDA_OK(cudaGraphGetNodes(graph, nullptr, &nodes));
  // Over P2P: sync, get, put, signal, put, signal, barrier: 7 nodes (quiet adds none). To a PE on another node
  // (no mapping: the CPU proxy) the put-with-signal is one kernel node: 6.
  const size_t want = shmem_ptr(dst, next) != nullptr ? 7 : 6;
  PE_CHECK(nodes == want, "the captured graph has %zu nodes, expected %zu", nodes, want);
  uint64_t before[2] = {stream_read_u64(&sig[0]), stream_read_u64(&sig[1])};
  PE_CHECK(before[0] == 0 && before[1] == 0, "capturing ran the signal ops: signal words %llu, %llu",
           static_cast<unsigned long long>(before[0]), static_cast<unsigned long long>(before[1]));

  cudaGraphExec_t exec = nullptr;
  STREAM_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < kLaunches; ++i) {
    // New data for this launch. Safe to overwrite: the peers read src and write dst only after the graph's
    // sync_all, which this PE reaches only after this. stream_upload, not cudaMemcpy: the graph runs on a
    // non-blocking stream, which would not wait for a pageable copy still landing on the legacy stream.
    const std::vector<unsigned char> mine = stream_bytes(me, i, kBytes);
    const std::vector<unsigned char> offered = stream_bytes(me, 100 + i, kBytes);
    stream_upload(payload, mine.data(), kBytes);
    stream_upload(src, offered.data(), kBytes);
    STREAM_CUDA_OK(cudaGraphLaunch(exec, stream));
    STREAM_CUDA_OK(cudaStreamSynchronize(stream));

    char what[96];
    std::snprintf(what, sizeof what, "launch %d: putmem_on_stream into dst", i);
    stream_expect_device(what, dst, kBytes, prev, i);
    std::snprintf(what, sizeof what, "launch %d: putmem_signal_on_stream into dst2", i);
    stream_expect_device(what, dst2, kBytes, prev, i);
    std::snprintf(what, sizeof what, "launch %d: getmem_on_stream from the next PE", i);
    stream_expect_device(what, got, kBytes, next, 100 + i);
    for (int k = 0; k < 2; ++k) {
      const uint64_t value = stream_read_u64(&sig[k]);
      PE_CHECK(value == static_cast<uint64_t>(i + 1), "launch %d: signal word %d is %llu, expected %d", i, k,
               static_cast<unsigned long long>(value), i + 1);
    }
  }

  STREAM_CUDA_OK(cudaGraphExecDestroy(exec));
  STREAM_CUDA_OK(cudaGraphDestroy(graph));
  STREAM_CUDA_OK(cudaStreamDestroy(stream));
  STREAM_CUDA_OK(cudaFree(payload));
  STREAM_CUDA_OK(cudaFree(got));
  shmem_barrier_all();
  shmem_free(sig);
  shmem_free(src);
  shmem_free(dst2);
  shmem_free(dst);
  return pe_finish("stream_graph");
}
