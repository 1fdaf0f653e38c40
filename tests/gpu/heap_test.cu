// The GPU symmetric heap from the host (run with GPUSHMEM_GPU_HEAP_CHUNK=4M so the heap grows several times):
// shmem_malloc returns device memory at the same offset on every PE; the device state reaches a registered
// updater at init and after every growth; shmem_putmem / getmem / p / g / put_nbi on GPU-heap addresses move
// the right bytes (checked with cudaMemcpy on the owner and through shmem_ptr); calloc zeroes and realloc keeps
// the contents on the GPU; a request beyond SHMEM_SYMMETRIC_SIZE returns NULL and the heap stays usable.
// Argument "app_device": the program makes device 0 current before shmem_init, which must then use it.
#define GPUSHMEM_NO_DEVICE_API 1  // the host API only: this test is about the runtime's heap
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "gpushmem/device_state.h"
#include "pe_check.h"

namespace {

gpushmem_device_state_t g_state;
int g_updates = 0;

void record_state(const gpushmem_device_state_t *s) {
  g_state = *s;
  ++g_updates;
}

#define CUDA_OK(expr)                                                                                         \
  do {                                                                                                        \
    cudaError_t e_ = (expr);                                                                                  \
    if (e_ != cudaSuccess) PE_FAIL("%s failed: %s: %s", #expr, cudaGetErrorName(e_), cudaGetErrorString(e_)); \
  } while (0)

unsigned char pattern(int writer, int block, size_t k) {
  return static_cast<unsigned char>(writer * 37 + block * 11 + k * 7 + 3);
}

bool is_device_memory(const void *p, int *device) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  *device = attr.device;
  return attr.type == cudaMemoryTypeDevice;
}

// Counts and reports (the first few) bytes of `got` that differ from pattern(writer, block, k).
void expect_pattern(const char *what, const std::vector<unsigned char> &got, int writer, int block) {
  long bad = 0;
  for (size_t k = 0; k < got.size(); ++k) {
    if (got[k] == pattern(writer, block, k)) continue;
    if (bad++ < 3)
      PE_FAIL("%s: block %d byte %zu: expected 0x%02x (written by PE %d), got 0x%02x", what, block, k,
              pattern(writer, block, k), writer, got[k]);
  }
  if (bad > 3) PE_FAIL("%s: block %d: %ld bytes differ in all", what, block, bad);
}

}  // namespace

int main(int argc, char **argv) {
  const bool app_device = argc > 1 && std::strcmp(argv[1], "app_device") == 0;
  if (app_device) {
    // The application chooses: a current context before shmem_init decides the device.
    if (cudaSetDevice(0) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) {
      std::fprintf(stderr, "heap_test: cannot make device 0 current\n");
      return 1;
    }
  }
  // Registered before init, twice: kept once, called at init.
  gpushmemi_register_device_state(record_state);
  gpushmemi_register_device_state(record_state);
  const int updates_before_init = g_updates;

  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  PE_CHECK(updates_before_init == 0, "the updater ran %d time(s) before shmem_init", updates_before_init);
  if (g_updates == 0) {
    PE_FAIL("shmem_init published no device state: the GPU heap is not in use (GPUSHMEM_DEBUG=INFO says why)");
    return pe_finish("heap_test");
  }

  PE_CHECK(g_updates == 1, "shmem_init called the registered updater %d time(s), expected once", g_updates);
  PE_CHECK(g_state.version == GPUSHMEM_DEVICE_STATE_VERSION, "device state version %u, expected %d", g_state.version,
           GPUSHMEM_DEVICE_STATE_VERSION);
  PE_CHECK(g_state.struct_size == sizeof(gpushmem_device_state_t), "device state struct_size %u, expected %zu",
           g_state.struct_size, sizeof(gpushmem_device_state_t));
  PE_CHECK(g_state.my_pe == me && g_state.n_pes == npes, "device state says PE %d of %d, expected %d of %d",
           g_state.my_pe, g_state.n_pes, me, npes);
  PE_CHECK(g_state.heap_base != nullptr && g_state.peer_base != nullptr && g_state.peer_transport != nullptr,
           "device state has heap_base=%p peer_base=%p peer_transport=%p", static_cast<void *>(g_state.heap_base),
           static_cast<void *>(g_state.peer_base), static_cast<void *>(g_state.peer_transport));
  // One node, every peer mapped: the constant-bank fast path to peer heaps must be on and agree with the table.
  PE_CHECK(g_state.local_fast_count == npes && g_state.first_local_pe == 0,
           "device state fast path covers PEs %d..+%d, expected 0..+%d", g_state.first_local_pe,
           g_state.local_fast_count, npes);
  PE_CHECK(g_state.slot0 + static_cast<uint64_t>(me) * g_state.slot_stride == g_state.heap_base,
           "slot0 %p + %d * stride %llu is not this PE's heap %p", static_cast<void *>(g_state.slot0), me,
           static_cast<unsigned long long>(g_state.slot_stride), static_cast<void *>(g_state.heap_base));
  const uint64_t first_heap_size = g_state.heap_size;
  PE_CHECK(first_heap_size == 4u << 20, "initial GPU heap %llu bytes, expected one 4 MiB chunk",
           static_cast<unsigned long long>(first_heap_size));
  // A registration after init gets the state at once.
  gpushmemi_register_device_state(record_state);
  PE_CHECK(g_updates == 2, "a registration after shmem_init did not call the updater at once (%d calls)", g_updates);

  // The runtime's area was zeroed.
  if (g_state.heap_base != nullptr) {
    std::vector<unsigned char> area(GPUSHMEM_DEVICE_INTERNAL_BYTES, 0xff);
    CUDA_OK(cudaMemcpy(area.data(), g_state.heap_base, area.size(), cudaMemcpyDeviceToHost));
    size_t nonzero = 0;
    for (unsigned char c : area) nonzero += c != 0;
    PE_CHECK(nonzero == 0, "%zu bytes of the GPU heap's runtime area are not zero after shmem_init", nonzero);
  }

  // Several blocks, more than one chunk each for some: the heap grows inside shmem_malloc.
  const size_t sizes[] = {1u << 20, 3u << 20, 5u << 20, (5u << 20) / 2, 7u << 20, 100};
  const int nblocks = sizeof sizes / sizeof sizes[0];
  std::vector<unsigned char *> block(nblocks);
  for (int b = 0; b < nblocks; ++b) {
    block[b] = static_cast<unsigned char *>(shmem_malloc(sizes[b]));
    PE_CHECK(block[b] != nullptr, "shmem_malloc(%zu) returned NULL", sizes[b]);
  }
  for (int b = 0; b < nblocks; ++b)
    if (block[b] == nullptr) return pe_finish("heap_test");

  int device = -1;
  if (!is_device_memory(block[0], &device)) {
    PE_FAIL("shmem_malloc returned host memory %p: the GPU heap is not in use (GPUSHMEM_DEBUG=INFO says why)",
            static_cast<void *>(block[0]));
    return pe_finish("heap_test");
  }
  int current = -1;
  CUDA_OK(cudaGetDevice(&current));
  PE_CHECK(device == current, "the heap lives on device %d, but device %d is current after shmem_init", device,
           current);
  if (app_device) PE_CHECK(device == 0, "the application made device 0 current, the heap is on device %d", device);

  PE_CHECK(g_state.heap_size > first_heap_size + (8u << 20),
           "the device state's heap_size is %llu after allocating %d blocks: growth was not published",
           static_cast<unsigned long long>(g_state.heap_size), nblocks);
  PE_CHECK(g_updates >= 4, "the updater ran %d times: expected a call after every growth", g_updates);

  // Offsets are symmetric: every PE's offsets land in every PE's table (a put to GPU memory each).
  long long *table = static_cast<long long *>(shmem_malloc(sizeof(long long) * nblocks * npes));
  std::vector<long long> mine(nblocks);
  for (int b = 0; b < nblocks; ++b) mine[b] = block[b] - reinterpret_cast<unsigned char *>(g_state.heap_base);
  for (int pe = 0; pe < npes; ++pe) shmem_longlong_put(table + me * nblocks, mine.data(), nblocks, pe);
  shmem_barrier_all();
  std::vector<long long> all(static_cast<size_t>(nblocks) * npes);
  CUDA_OK(cudaMemcpy(all.data(), table, all.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  for (int pe = 0; pe < npes; ++pe)
    for (int b = 0; b < nblocks; ++b)
      PE_CHECK(all[pe * nblocks + b] == mine[b], "block %d: PE %d has it at heap offset %lld, this PE at %lld", b, pe,
               all[pe * nblocks + b], mine[b]);

  // The device tables: peer_base[pe] is where shmem_ptr points, peer_transport says P2P where accessible.
  std::vector<char *> peer_base(npes);
  std::vector<uint8_t> transport(npes);
  CUDA_OK(cudaMemcpy(peer_base.data(), g_state.peer_base, npes * sizeof(char *), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(transport.data(), g_state.peer_transport, npes, cudaMemcpyDeviceToHost));
  for (int pe = 0; pe < npes; ++pe) {
    const bool accessible = shmem_pe_accessible(pe) != 0;
    PE_CHECK(accessible == (transport[pe] == GPUSHMEM_PEER_P2P || transport[pe] == GPUSHMEM_PEER_PROXY),
             "PE %d: shmem_pe_accessible=%d, transport %d", pe, accessible, transport[pe]);
    if (transport[pe] != GPUSHMEM_PEER_P2P) continue;
    char *expect = static_cast<char *>(shmem_ptr(block[0], pe)) - mine[0];
    PE_CHECK(peer_base[pe] == expect, "peer_base[%d]=%p, shmem_ptr says %p", pe, static_cast<void *>(peer_base[pe]),
             static_cast<void *>(expect));
  }
  PE_CHECK(peer_base[me] == g_state.heap_base, "peer_base[me]=%p, heap_base=%p", static_cast<void *>(peer_base[me]),
           static_cast<void *>(g_state.heap_base));
  if (shmem_ptr(block[0], next) == nullptr) {
    PE_FAIL("PE %d is not mapped in PE %d: the data checks need P2P (see the WARN at shmem_init)", next, me);
    return pe_finish("heap_test");
  }

  // Host puts into the next PE's GPU heap.
  for (int b = 0; b < nblocks; ++b) {
    std::vector<unsigned char> data(sizes[b]);
    for (size_t k = 0; k < sizes[b]; ++k) data[k] = pattern(me, b, k);
    shmem_putmem(block[b], data.data(), sizes[b], next);
  }
  shmem_quiet();
  shmem_barrier_all();
  for (int b = 0; b < nblocks; ++b) {
    std::vector<unsigned char> got(sizes[b]);
    // What the previous PE wrote into this PE's block, read as plain device memory.
    CUDA_OK(cudaMemcpy(got.data(), block[b], sizes[b], cudaMemcpyDeviceToHost));
    expect_pattern("own block after shmem_putmem by the previous PE", got, prev, b);
    // What this PE wrote into the next PE's block, through shmem_getmem.
    std::fill(got.begin(), got.end(), 0);
    shmem_getmem(got.data(), block[b], sizes[b], next);
    expect_pattern("shmem_getmem from the next PE", got, me, b);
    // The same through shmem_ptr: a device address of the next PE's heap, mapped here.
    void *remote = shmem_ptr(block[b], next);
    PE_CHECK(remote != nullptr, "shmem_ptr(block %d, PE %d) is NULL", b, next);
    PE_CHECK(shmem_addr_accessible(block[b], next) == 1, "shmem_addr_accessible(block %d, PE %d) is 0", b, next);
    if (remote != nullptr) {
      std::fill(got.begin(), got.end(), 0);
      CUDA_OK(cudaMemcpy(got.data(), remote, sizes[b], cudaMemcpyDefault));
      expect_pattern("cudaMemcpy through shmem_ptr", got, me, b);
    }
  }
  int on_stack = 0;
  PE_CHECK(shmem_addr_accessible(&on_stack, next) == 0, "a stack address is reported symmetric");
  PE_CHECK(shmem_ptr(&on_stack, next) == nullptr, "shmem_ptr of a stack address is not NULL");

  // Typed single elements and non-blocking puts.
  shmem_barrier_all();
  int *ints = reinterpret_cast<int *>(block[1]);
  for (int k = 0; k < 16; ++k) shmem_int_p(ints + k, me * 1000 + k, next);
  long long values[8];
  for (int k = 0; k < 8; ++k) values[k] = (static_cast<long long>(me) << 40) + k;
  long long *longs = reinterpret_cast<long long *>(block[2]);
  shmem_longlong_put_nbi(longs, values, 8, next);
  shmem_quiet();
  shmem_barrier_all();
  for (int k = 0; k < 16; ++k) {
    int got = shmem_int_g(ints + k, next);
    PE_CHECK(got == me * 1000 + k, "shmem_int_g(PE %d, element %d): expected %d, got %d", next, k, me * 1000 + k, got);
  }
  long long own[8];
  CUDA_OK(cudaMemcpy(own, longs, sizeof own, cudaMemcpyDeviceToHost));
  for (int k = 0; k < 8; ++k)
    PE_CHECK(own[k] == (static_cast<long long>(prev) << 40) + k, "shmem_longlong_put_nbi: element %d: got %lld", k,
             own[k]);

  // calloc clears device memory; realloc moves the contents on the GPU.
  shmem_barrier_all();
  unsigned char *zeroed = static_cast<unsigned char *>(shmem_calloc(3u << 20, 1));
  PE_CHECK(zeroed != nullptr, "shmem_calloc(3 MiB) returned NULL");
  if (zeroed != nullptr) {
    std::vector<unsigned char> got(3u << 20, 0xff);
    CUDA_OK(cudaMemcpy(got.data(), zeroed, got.size(), cudaMemcpyDeviceToHost));
    size_t nonzero = 0;
    for (unsigned char c : got) nonzero += c != 0;
    PE_CHECK(nonzero == 0, "shmem_calloc: %zu of %zu bytes are not zero", nonzero, got.size());
  }
  unsigned char *moved = static_cast<unsigned char *>(shmem_realloc(block[0], 6u << 20));
  PE_CHECK(moved != nullptr, "shmem_realloc(1 MiB block, 6 MiB) returned NULL");
  if (moved != nullptr) {
    block[0] = moved;
    std::vector<unsigned char> got(sizes[0]);
    CUDA_OK(cudaMemcpy(got.data(), moved, sizes[0], cudaMemcpyDeviceToHost));
    expect_pattern("shmem_realloc kept the contents", got, prev, 0);
  }

  // Beyond SHMEM_SYMMETRIC_SIZE: NULL everywhere, and the heap still serves smaller requests.
  void *huge = shmem_malloc(static_cast<size_t>(1) << 40);
  PE_CHECK(huge == nullptr, "shmem_malloc(1 TiB) returned %p, expected NULL", huge);
  void *small = shmem_malloc(4096);
  PE_CHECK(small != nullptr, "shmem_malloc(4096) after a failed request returned NULL");

  shmem_free(small);
  shmem_free(zeroed);
  shmem_free(table);
  for (unsigned char *p : block) shmem_free(p);
  return pe_finish("heap_test");
}
