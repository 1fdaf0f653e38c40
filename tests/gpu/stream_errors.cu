// Misuse of the stream-ordered operations in GPU mode: each case makes one bad call, which must print a
// message naming the call and the argument and end the job (ctest checks the status and the text). The
// argument names the case:
//   bad_pe        shmemx_putmem_on_stream to pe = n_pes
//   stack_dest    shmemx_putmem_on_stream to a stack address
//   device_source shmemx_getmem_on_stream from cudaMalloc'd (not symmetric) memory
//   beyond_heap   shmemx_getmem_on_stream of a range running past the allocated heap
//   bad_sig_op    shmemx_signal_op_on_stream with sig_op 7
//   misaligned    shmemx_putmem_signal_on_stream with a signal word that is not 8-byte aligned
//   bad_cmp       shmemx_signal_wait_until_on_stream with cmp 42
//   coll_root     shmemx_broadcastmem_on_stream with PE_root = n_pes
//   coll_source   shmemx_int_sum_reduce_on_stream from cudaMalloc'd (not symmetric) memory
//   coll_stride   shmemx_alltoallsmem_on_stream with sst 0
//   coll_team     shmemx_alltoallmem_on_stream on SHMEM_TEAM_INVALID
#include <cstring>

#include "stream_util.cuh"

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <case>\n", argv[0]);
    return 64;
  }
  const char *which = argv[1];
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int next = (me + 1) % npes;
  const size_t bytes = 4096;
  auto *sym = static_cast<unsigned char *>(shmem_malloc(bytes));
  auto *sig = static_cast<uint64_t *>(shmem_calloc(2, sizeof(uint64_t)));
  if (sym == nullptr || sig == nullptr || !stream_gpu_mode(sym, next)) return pe_finish("stream_errors");
  unsigned char *dev = nullptr;
  STREAM_CUDA_OK(cudaMalloc(&dev, bytes));
  cudaStream_t stream;
  STREAM_CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  shmem_barrier_all();

  unsigned char on_stack[64] = {0};
  if (std::strcmp(which, "bad_pe") == 0) {
    shmemx_putmem_on_stream(sym, dev, bytes, npes, stream);
  } else if (std::strcmp(which, "stack_dest") == 0) {
    shmemx_putmem_on_stream(on_stack, dev, sizeof on_stack, next, stream);
  } else if (std::strcmp(which, "device_source") == 0) {
    shmemx_getmem_on_stream(on_stack, dev, sizeof on_stack, next, stream);
  } else if (std::strcmp(which, "beyond_heap") == 0) {
    shmemx_getmem_on_stream(dev, sym, static_cast<size_t>(1) << 40, next, stream);
  } else if (std::strcmp(which, "bad_sig_op") == 0) {
    shmemx_signal_op_on_stream(sig, 1, 7, next, stream);
  } else if (std::strcmp(which, "misaligned") == 0) {
    auto *odd = reinterpret_cast<uint64_t *>(reinterpret_cast<unsigned char *>(sig) + 4);
    shmemx_putmem_signal_on_stream(sym, dev, bytes, odd, 1, SHMEM_SIGNAL_SET, next, stream);
  } else if (std::strcmp(which, "bad_cmp") == 0) {
    shmemx_signal_wait_until_on_stream(sig, 42, 0, stream);
  } else if (std::strcmp(which, "coll_root") == 0) {
    (void)shmemx_broadcastmem_on_stream(SHMEM_TEAM_WORLD, sym, sym + bytes / 2, 16, npes, stream);
  } else if (std::strcmp(which, "coll_source") == 0) {
    (void)shmemx_int_sum_reduce_on_stream(SHMEM_TEAM_WORLD, reinterpret_cast<int *>(sym), reinterpret_cast<int *>(dev),
                                          16, stream);
  } else if (std::strcmp(which, "coll_stride") == 0) {
    (void)shmemx_alltoallsmem_on_stream(SHMEM_TEAM_WORLD, sym, sym + bytes / 2, 1, 0, 4, stream);
  } else if (std::strcmp(which, "coll_team") == 0) {
    (void)shmemx_alltoallmem_on_stream(SHMEM_TEAM_INVALID, sym, sym + bytes / 2, 16, stream);
  } else {
    PE_FAIL("unknown case '%s'", which);
    return pe_finish("stream_errors");
  }
  // Not reached when the library catches the misuse: the job must already have ended.
  STREAM_CUDA_OK(cudaStreamSynchronize(stream));
  PE_FAIL("case %s: the bad call returned instead of ending the job", which);
  return pe_finish("stream_errors");
}
