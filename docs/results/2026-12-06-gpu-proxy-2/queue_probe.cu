// Does work queued on the legacy stream *behind* this process's spinning kernel block the runtime's own streams?
// (The 5 gpu-vhost failures: in each, the proxy thread or the memory agent waits for a copy or a stream write on a
// cudaStreamNonBlocking stream of its own, and in each failing test, unlike in every passing one, the application has
// queued more work on the legacy stream behind the kernel that waits for the proxy: event and moe_dispatch a second
// kernel, amo a cudaMemcpy, jacobi_halo 49 kernels and an event record. CUDA maps streams onto a few hardware work
// queues (CUDA_DEVICE_MAX_CONNECTIONS, default 8; fewer may be granted under MPS); a stream that shares one with the
// legacy stream would wait behind the queued work, which waits for the spinning kernel.)
//   queue_probe STREAMS TAIL [high]
// creates STREAMS non-blocking streams (high: with the greatest priority), as the runtime creates its own before the
// application's work; launches a one-thread kernel on the legacy stream that spins until a word in mapped host
// memory is set (no GPU operation is needed to stop it); queues TAIL behind it on the legacy stream: none, kernel (a
// second kernel), d2h (a 4-byte cudaMemcpyAsync to pinned memory), event (cudaEventRecord); then, on each stream in
// creation order, a cuStreamWriteValue32 (as the agent's small puts and signal sets), a 1040-byte host-to-device copy
// (the agent's put) and a 1 MiB device-to-host copy (the sender's staging). An operation not done after 0.5 s is
// BLOCKED and the stream's later operations are not tried ('-'). Prints one line: the streams' w/h/d results
// (o: done, B: blocked).
// Build: nvcc -O2 -arch=sm_90 queue_probe.cu -lcuda -o queue_probe
#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                       \
  do {                                                              \
    cudaError_t e_ = (x);                                           \
    if (e_ != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                 \
    }                                                               \
  } while (0)

__global__ void spin(volatile int *stop) {
  while (*stop == 0) __nanosleep(2000);  // one thread polling host memory: negligible PCIe traffic
}

__global__ void one(int *p) {
  atomicAdd(p, 1);
}

// Whether the work issued on s (by f) finishes within 0.5 s.
template <class F>
bool done_in_time(cudaStream_t s, F f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  cudaError_t e;
  while ((e = cudaStreamQuery(s)) == cudaErrorNotReady)
    if (std::chrono::steady_clock::now() - start > std::chrono::milliseconds(500)) return false;
  CK(e);
  return true;
}

int main(int argc, char **argv) {
  if (argc < 3) return 64;
  const int n = std::atoi(argv[1]);
  const std::string tail = argv[2];
  const bool high = argc > 3 && !std::strcmp(argv[3], "high");
  CK(cudaSetDevice(0));
  int *stop = nullptr, *dev = nullptr;
  char *pinned = nullptr, *big_dev = nullptr, *big_host = nullptr;
  CK(cudaHostAlloc(&stop, 4, cudaHostAllocMapped));
  *stop = 0;
  CK(cudaMalloc(&dev, 4096));
  CK(cudaMalloc(&big_dev, 1 << 20));
  CK(cudaHostAlloc(&pinned, 4096, cudaHostAllocDefault));
  CK(cudaHostAlloc(&big_host, 1 << 20, cudaHostAllocDefault));
  int *stop_dev = nullptr;
  CK(cudaHostGetDevicePointer(&stop_dev, stop, 0));
  one<<<1, 1>>>(dev);  // loaded before the spin (lazy loading)
  CK(cudaDeviceSynchronize());
  int least = 0, greatest = 0;
  CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  std::vector<cudaStream_t> streams(static_cast<size_t>(n));
  for (auto &s : streams) CK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, high ? greatest : least));
  cudaEvent_t ev;
  CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  spin<<<1, 1>>>(stop_dev);
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
  for (int i = 0; i < n; ++i) {
    cudaStream_t s = streams[static_cast<size_t>(i)];
    char r[4] = {'-', '-', '-', 0};
    bool ok = done_in_time(s, [&] {
      if (cuStreamWriteValue32(reinterpret_cast<CUstream>(s), reinterpret_cast<CUdeviceptr>(dev + 1), 7, 0) !=
          CUDA_SUCCESS)
        std::exit(2);
    });
    r[0] = ok ? 'o' : 'B';
    if (ok) {
      ok = done_in_time(s, [&] { CK(cudaMemcpyAsync(dev + 16, pinned, 1040, cudaMemcpyHostToDevice, s)); });
      r[1] = ok ? 'o' : 'B';
    }
    if (ok) {
      ok = done_in_time(s, [&] { CK(cudaMemcpyAsync(big_host, big_dev, 1 << 20, cudaMemcpyDeviceToHost, s)); });
      r[2] = ok ? 'o' : 'B';
    }
    blocked += ok ? 0 : 1;
    line += std::to_string(i) + ":" + r + " ";
  }
  *stop = 1;  // the spinning kernel ends; everything queued behind it and on the streams drains
  CK(cudaDeviceSynchronize());
  const char *conn = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  std::printf("%d %s-priority streams, tail %s, %s connections: %d blocked: %s\n", n, high ? "high" : "low",
              tail.c_str(), conn != nullptr ? conn : "default", blocked, line.c_str());
  return 0;
}
