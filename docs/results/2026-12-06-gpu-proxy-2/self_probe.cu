// What waits behind this process's own spinning kernel? (issue 13: a target's memory agent, in the process whose
// kernel spins for the very data the agent delivers, never finished a copy.)
//   self_probe GRID STREAMS [legacy|nonblocking]
// launches a kernel of GRID blocks x 256 threads that spin until told to stop (on the legacy default stream or on a
// non-blocking stream), after creating STREAMS other non-blocking streams, then times on a fresh non-blocking stream
// each: a 4-byte and a 1040-byte host-to-device copy from pinned memory (plain, and as cudaMemcpyBatchAsync with
// cudaMemcpyFlagPreferOverlapWithCompute), a 4-byte device-to-host copy,
// cuStreamWriteValue32, and a one-thread kernel. An operation that has not finished after 2 s is reported as
// blocked (its stream is then abandoned). Prints one line.
// Build: nvcc -O2 -arch=sm_90 self_probe.cu -lcuda -o self_probe
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
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
  while (*stop == 0) __nanosleep(1000);
}

__global__ void one(int *p) {
  atomicAdd(p, 1);
}

template <class F>
std::string time_op(const char *name, int rounds, F f) {
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::vector<double> v;
  for (int i = 0; i < rounds; ++i) {
    auto a = std::chrono::steady_clock::now();
    f(s);
    cudaError_t e;
    while ((e = cudaStreamQuery(s)) == cudaErrorNotReady) {
      if (std::chrono::steady_clock::now() - a > std::chrono::seconds(2)) {
        char b[96];
        std::snprintf(b, sizeof b, "%s BLOCKED  ", name);
        return b;
      }
    }
    CK(e);
    v.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(v.begin(), v.end());
  char b[96];
  std::snprintf(b, sizeof b, "%s %.1f  ", name, v[v.size() / 2]);
  CK(cudaStreamDestroy(s));
  return b;
}

int main(int argc, char **argv) {
  if (argc != 4) return 64;
  const int grid = std::atoi(argv[1]), streams = std::atoi(argv[2]);
  const bool legacy = !std::strcmp(argv[3], "legacy");
  CK(cudaSetDevice(0));
  // The stop word lies in device memory (a grid polling host memory saturates PCIe: the first version did) and is
  // set with a stream memory write, which needs no SM.
  int *stop_dev;
  CK(cudaMalloc(&stop_dev, 4));
  CK(cudaMemset(stop_dev, 0, 4));
  int *dev, *pinned;
  CK(cudaMalloc(&dev, 4096));
  CK(cudaHostAlloc(&pinned, 4096, cudaHostAllocDefault));
  one<<<1, 1>>>(dev);  // loaded before the spin (lazy loading)
  CK(cudaDeviceSynchronize());
  std::vector<cudaStream_t> other(static_cast<size_t>(streams));
  for (auto &s : other) CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaStream_t spin_stream = nullptr;
  if (!legacy) CK(cudaStreamCreateWithFlags(&spin_stream, cudaStreamNonBlocking));
  spin<<<grid, 256, 0, spin_stream>>>(stop_dev);
  CK(cudaGetLastError());
  std::string line;
  line += time_op("h2d4", 50, [&](cudaStream_t s) { CK(cudaMemcpyAsync(dev, pinned, 4, cudaMemcpyHostToDevice, s)); });
  line += time_op("h2d1040", 50,
                  [&](cudaStream_t s) { CK(cudaMemcpyAsync(dev, pinned, 1040, cudaMemcpyHostToDevice, s)); });
  // The same copies as a batch of one with the hint that they should overlap with compute (CUDA 12.8+).
  auto batch = [&](cudaStream_t s, void *dst, const void *src, size_t bytes) {
    cudaMemcpyAttributes attr{};
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    attr.flags = cudaMemcpyFlagPreferOverlapWithCompute;
    size_t idx = 0;
    void *dsts[1] = {dst};
    const void *srcs[1] = {src};
    size_t sizes[1] = {bytes};
    CK(cudaMemcpyBatchAsync(dsts, srcs, sizes, 1, &attr, &idx, 1, s));
  };
  line += time_op("h2d4-overlap", 50, [&](cudaStream_t s) { batch(s, dev, pinned, 4); });
  line += time_op("h2d1040-overlap", 50, [&](cudaStream_t s) { batch(s, dev, pinned, 1040); });
  line += time_op("d2h4", 50, [&](cudaStream_t s) { CK(cudaMemcpyAsync(pinned, dev, 4, cudaMemcpyDeviceToHost, s)); });
  line += time_op("write", 50, [&](cudaStream_t s) {
    if (cuStreamWriteValue32(reinterpret_cast<CUstream>(s), reinterpret_cast<CUdeviceptr>(dev), 7, 0) != CUDA_SUCCESS)
      std::exit(2);
  });
  line += time_op("kernel", 50, [&](cudaStream_t s) { one<<<1, 1, 0, s>>>(dev); });
  cudaStream_t stopper;
  CK(cudaStreamCreateWithFlags(&stopper, cudaStreamNonBlocking));
  if (cuStreamWriteValue32(reinterpret_cast<CUstream>(stopper), reinterpret_cast<CUdeviceptr>(stop_dev), 1, 0) !=
      CUDA_SUCCESS)
    std::exit(3);
  CK(cudaDeviceSynchronize());
  std::printf("grid %d, %d streams, spin on %s stream: %s\n", grid, streams, argv[3], line.c_str());
  return 0;
}
