// Does another process's running kernel delay this process's small copies on a shared GPU? (issue 13: the
// target's memory agent took ~2.2 ms per 4-byte put into its GPU heap while the initiator's kernel spun.)
//   slice_probe spin SECONDS   one kernel (1 thread) that naps in a loop for SECONDS
//   slice_probe copy N         N rounds each of: 4-byte H2D from pinned + sync, 4-byte D2H to pinned + sync,
//                              4-byte D2H to pageable + sync, cuStreamWriteValue32 + sync; prints medians in us
// Build: nvcc -O2 -arch=sm_90 slice_probe.cu -lcuda -o slice_probe
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                       \
  do {                                                              \
    cudaError_t e_ = (x);                                           \
    if (e_ != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                 \
    }                                                               \
  } while (0)

__global__ void spin(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep(500);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

template <class F>
double median_us(int n, cudaStream_t s, F f) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    auto a = std::chrono::steady_clock::now();
    f();
    CK(cudaStreamSynchronize(s));
    v.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char **argv) {
  if (argc != 3) return 64;
  CK(cudaSetDevice(0));
  if (!std::strcmp(argv[1], "spin")) {
    spin<<<1, 1>>>(static_cast<unsigned long long>(std::atof(argv[2]) * 1e9));
    CK(cudaDeviceSynchronize());
    std::printf("spin: done\n");
    return 0;
  }
  const int n = std::atoi(argv[2]);
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int *dev, *pinned;
  CK(cudaMalloc(&dev, 64));
  CK(cudaHostAlloc(&pinned, 64, cudaHostAllocDefault));
  int pageable[16] = {};
  int *mapped, *mapped_dev;
  CK(cudaHostAlloc(&mapped, 64, cudaHostAllocMapped));
  CK(cudaHostGetDevicePointer(reinterpret_cast<void **>(&mapped_dev), mapped, 0));
  const double h2d = median_us(n, s, [&] { CK(cudaMemcpyAsync(dev, pinned, 4, cudaMemcpyHostToDevice, s)); });
  const double d2h = median_us(n, s, [&] { CK(cudaMemcpyAsync(pinned, dev, 4, cudaMemcpyDeviceToHost, s)); });
  const double d2p = median_us(n, s, [&] { CK(cudaMemcpyAsync(pageable, dev, 4, cudaMemcpyDeviceToHost, s)); });
  const double wv = median_us(n, s, [&] {
    if (cuStreamWriteValue32(reinterpret_cast<CUstream>(s), reinterpret_cast<CUdeviceptr>(dev), 7, 0) != CUDA_SUCCESS)
      std::exit(2);
  });
  const double m2d = median_us(n, s, [&] { CK(cudaMemcpyAsync(dev, mapped_dev, 4, cudaMemcpyDeviceToDevice, s)); });
  const double m2d64 = median_us(n, s, [&] { CK(cudaMemcpyAsync(dev, mapped_dev, 64, cudaMemcpyDeviceToDevice, s)); });
  std::printf(
      "copy: median us over %d: h2d-pinned %.1f  d2h-pinned %.1f  d2h-pageable %.1f  writevalue %.1f  "
      "mapped-as-d2d %.1f  mapped-as-d2d-64B %.1f\n",
      n, h2d, d2h, d2p, wv, m2d, m2d64);
  return 0;
}
