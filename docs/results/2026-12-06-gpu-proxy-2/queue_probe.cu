// Does work queued on the legacy stream *behind* this process's spinning kernel block the runtime's own streams?
// (The 5 gpu-vhost failures: in each, the proxy thread or the memory agent waits for a copy or a stream write on a
// cudaStreamNonBlocking stream of its own, and in each failing test, unlike in every passing one, the application has
// queued more work on the legacy stream behind the kernel that waits for the proxy: event and moe_dispatch a second
// kernel, amo a cudaMemcpy, jacobi_halo 49 kernels and an event record. CUDA maps streams onto a few hardware work
// queues (CUDA_DEVICE_MAX_CONNECTIONS, default 8; fewer may be granted under MPS); a stream that shares one with the
// legacy stream would wait behind the queued work, which waits for the spinning kernel.)
//   queue_probe STREAMS TAIL [high|low] [ctx]
// creates STREAMS non-blocking streams (high: with the greatest priority; ctx: in a second context of this process,
// created with cuCtxCreate, which has hardware queues of its own: the candidate fix), as the runtime creates its own
// before the application's work; launches a one-thread kernel on the legacy stream that spins until a word in mapped
// host memory is set (no GPU operation is needed to stop it); queues TAIL behind it on the legacy stream: none, kernel
// (a second kernel), d2h (a 4-byte cudaMemcpyAsync to pinned memory), event (cudaEventRecord); then, on each stream in
// creation order, a cuStreamWriteValue32 (as the agent's small puts and signal sets), a 1040-byte host-to-device copy
// (the agent's put) and a 1 MiB device-to-host copy (the sender's staging), all on memory of the primary context (the
// heap's cuMemCreate/cuMemMap kind for w/h/d) and a 1 MiB device-to-host copy from cudaMalloc memory (an application's
// source buffer: m). An operation not done after 0.5 s is BLOCKED and the stream's later operations are not tried
// ('-'); one that fails prints its error (E). Prints one line: the streams' w/h/d/m results (o: done, B: blocked).
// Build: nvcc -O2 -arch=sm_90 queue_probe.cu -lcuda -o queue_probe
#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CU(x)                                   \
  do {                                          \
    CUresult r_ = (x);                          \
    if (r_ != CUDA_SUCCESS) {                   \
      const char *m_ = nullptr;                 \
      cuGetErrorString(r_, &m_);                \
      std::fprintf(stderr, "%s: %s\n", #x, m_); \
      std::exit(1);                             \
    }                                           \
  } while (0)
#define CK(x)                                                       \
  do {                                                              \
    cudaError_t e_ = (x);                                           \
    if (e_ != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                 \
    }                                                               \
  } while (0)

// Block 0's thread 0 polls the host word (negligible PCIe traffic) and passes it on in device memory, which every
// other block's thread 0 polls; a grid of many blocks keeps every SM occupied (QP_GRID, as the failing tests' grids
// do) without flooding PCIe with reads.
__global__ void spin(volatile int *stop, volatile int *relay) {
  if (threadIdx.x != 0) {
    while (*relay == 0) __nanosleep(4000);
    return;
  }
  if (blockIdx.x == 0) {
    while (*stop == 0) __nanosleep(2000);
    *relay = 1;
    __threadfence();
  } else {
    while (*relay == 0) __nanosleep(2000);
  }
}

__global__ void one(int *p) {
  atomicAdd(p, 1);
}

// The work issued on s (by f, which returns its error): 'o' done within 0.5 s, 'B' not (blocked), 'E' failed (printed).
static double g_slowest_us = 0;  // the slowest operation that did finish in time

template <class F>
char done_in_time(cudaStream_t s, const char *what, F f) {
  const auto start = std::chrono::steady_clock::now();
  cudaError_t e = f();
  if (e == cudaSuccess) {
    while ((e = cudaStreamQuery(s)) == cudaErrorNotReady)
      if (std::chrono::steady_clock::now() - start > std::chrono::milliseconds(500)) return 'B';
  }
  if (e == cudaSuccess) {
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    if (us > g_slowest_us) g_slowest_us = us;
    return 'o';
  }
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  return 'E';
}

// The stream's copies as the runtime issues them (QP_COPY=batch: runtime/gpu/overlap_copy.cpp's
// cudaMemcpyBatchAsync with cudaMemcpyFlagPreferOverlapWithCompute) or plainly (cudaMemcpyAsync).
static bool g_batch_copies = false;
static cudaError_t copy(void *dst, const void *src, size_t bytes, cudaStream_t s) {
  if (!g_batch_copies) return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s);
  cudaMemcpyAttributes attr{};
  attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  attr.flags = cudaMemcpyFlagPreferOverlapWithCompute;
  size_t first = 0;
  void *dsts[1] = {dst};
  const void *srcs[1] = {src};
  size_t sizes[1] = {bytes};
  return cudaMemcpyBatchAsync(dsts, srcs, sizes, 1, &attr, &first, 1, s);
}

int main(int argc, char **argv) {
  if (argc < 3) return 64;
  const int n = std::atoi(argv[1]);
  const std::string tail = argv[2];
  const bool high = argc > 3 && !std::strcmp(argv[3], "high");
  const bool own_ctx = argc > 4 && !std::strcmp(argv[4], "ctx");
  g_batch_copies = std::getenv("QP_COPY") != nullptr && !std::strcmp(std::getenv("QP_COPY"), "batch");
  CK(cudaSetDevice(0));
  int *stop = nullptr, *dev = nullptr;
  char *pinned = nullptr, *big_dev = nullptr, *big_host = nullptr;
  CK(cudaHostAlloc(&stop, 4, cudaHostAllocMapped));
  *stop = 0;
  char *app_dev = nullptr;  // an application's cudaMalloc buffer
  CK(cudaMalloc(&app_dev, 1 << 20));
  {  // the heap's kind of memory: cuMemCreate + cuMemMap, access for device 0
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const size_t bytes = ((2u << 20) + gran - 1) / gran * gran;
    CUmemGenericAllocationHandle h;
    CUdeviceptr va = 0;
    CU(cuMemCreate(&h, bytes, &prop, 0));
    CU(cuMemAddressReserve(&va, bytes, 0, 0, 0));
    CU(cuMemMap(va, bytes, 0, h, 0));
    CUmemAccessDesc access = {};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU(cuMemSetAccess(va, bytes, &access, 1));
    big_dev = reinterpret_cast<char *>(va);
    dev = reinterpret_cast<int *>(va + (1u << 20));
  }
  CK(cudaHostAlloc(&pinned, 4096, cudaHostAllocPortable));
  CK(cudaHostAlloc(&big_host, 1 << 20, cudaHostAllocPortable));
  int *stop_dev = nullptr;
  CK(cudaHostGetDevicePointer(&stop_dev, stop, 0));
  one<<<1, 1>>>(dev);  // loaded before the spin (lazy loading)
  CK(cudaDeviceSynchronize());
  int least = 0, greatest = 0;
  CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  std::vector<cudaStream_t> streams(static_cast<size_t>(n));
  CUcontext primary = nullptr, mine = nullptr;
  CU(cuCtxGetCurrent(&primary));
  if (own_ctx) {
    CUdevice d;
    CU(cuDeviceGet(&d, 0));
#if CUDA_VERSION >= 13000
    CU(cuCtxCreate(&mine, nullptr, 0, d));
#else
    CU(cuCtxCreate(&mine, 0, d));
#endif
    CU(cuCtxSetCurrent(mine));
  }
  for (auto &s : streams) CK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, high ? greatest : least));
  CU(cuCtxSetCurrent(primary));
  cudaEvent_t ev;
  CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  const char *grid_env = std::getenv("QP_GRID");  // blocks of 256 threads in the spinning grid (default 1 of 1)
  const int grid = grid_env != nullptr ? std::atoi(grid_env) : 0;
  int *relay = nullptr;
  CK(cudaMalloc(&relay, sizeof(int)));
  CK(cudaMemset(relay, 0, sizeof(int)));
  CK(cudaDeviceSynchronize());
  if (grid > 0)
    spin<<<grid, 256>>>(stop_dev, relay);
  else
    spin<<<1, 1>>>(stop_dev, relay);
  CK(cudaGetLastError());
  if (tail == "kernel")
    one<<<1, 1>>>(dev);
  else if (tail == "d2h")
    CK(cudaMemcpyAsync(pinned + 64, dev, 4, cudaMemcpyDeviceToHost, nullptr));
  else if (tail == "event")
    CK(cudaEventRecord(ev, nullptr));
  else if (tail != "none")
    return 64;
  std::string line;
  int blocked = 0;
  if (own_ctx) CU(cuCtxSetCurrent(mine));  // the runtime's thread works in its own context
  for (int i = 0; i < n; ++i) {
    cudaStream_t s = streams[static_cast<size_t>(i)];
    char r[5] = {'-', '-', '-', '-', 0};
    r[0] = done_in_time(s, "stream write", [&] {
      return cuStreamWriteValue32(reinterpret_cast<CUstream>(s), reinterpret_cast<CUdeviceptr>(dev + 1), 7, 0) ==
                     CUDA_SUCCESS
                 ? cudaSuccess
                 : cudaErrorUnknown;
    });
    if (r[0] == 'o')
      r[1] = done_in_time(s, "1040 B host-to-device copy", [&] { return copy(dev + 16, pinned, 1040, s); });
    if (r[1] == 'o')
      r[2] = done_in_time(s, "1 MiB device-to-host copy from the heap's kind of memory",
                          [&] { return copy(big_host, big_dev, 1 << 20, s); });
    if (r[2] == 'o')
      r[3] = done_in_time(s, "1 MiB device-to-host copy from cudaMalloc memory",
                          [&] { return copy(big_host, app_dev, 1 << 20, s); });
    const bool ok = r[3] == 'o';
    blocked += ok ? 0 : 1;
    line += std::to_string(i) + ":" + r + " ";
  }
  *stop = 1;  // the spinning kernel ends; everything queued behind it and on the streams drains
  CK(cudaDeviceSynchronize());
  if (own_ctx) {
    CU(cuCtxSetCurrent(primary));
    CK(cudaDeviceSynchronize());
  }
  const char *conn = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  std::printf(
      "%d %s-priority streams%s, %s copies, spinning grid %d x %d, tail %s, %s connections: %d blocked (slowest done "
      "%.0f us): "
      "%s\n",
      n, high ? "high" : "low", own_ctx ? " in a context of their own" : "", g_batch_copies ? "batch" : "plain",
      grid > 0 ? grid : 1, grid > 0 ? 256 : 1, tail.c_str(), conn != nullptr ? conn : "default", blocked, g_slowest_us,
      line.c_str());
  return 0;
}
