// stage_legs: the GPU legs of the CPU proxy's staging pipeline measured alone, the baselines of a staged put's
// bandwidth (issue 13: staged put bandwidth >= 0.8x the slowest leg of its pipeline; the network leg is host_put_bw
// between two virtual hosts, perftest/run_proxy.sh). One process, no PEs.
//   d2h  a transfer's source leaves the GPU: copies of one chunk after another from device memory into pinned host
//        memory, each waited for before the next starts (the pipeline keeps one copy in flight);
//   h2d  the target's memory agent puts it into its GPU heap: the same from pinned host memory into device memory.
// The copies are issued as the runtime issues them (runtime/gpu/overlap_copy.cpp's hint to overlap with compute,
// on a non-blocking stream).
//   stage_legs [-b 256K] [-e 64M] [-f 8] [-c 1M] [-r 5]
// -b/-e/-f: transfer sizes; -c: the chunk (the runtime's kStageChunkBytes, 1 MiB); -r: repeats (medians). Prints a
// table and one json line a leg and size: {"bench":"stage_legs","leg":..,"size":..,"chunk":..,"bw_GBps":{..}}.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK_CUDA(x)                                                                  \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "stage_legs: %s failed: %s\n", #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

namespace {

size_t parse_size(const char *s) {
  char *end = nullptr;
  const unsigned long long v = std::strtoull(s, &end, 10);
  size_t m = 1;
  if (end != nullptr && (*end == 'K' || *end == 'k')) m = 1024;
  if (end != nullptr && (*end == 'M' || *end == 'm')) m = 1024 * 1024;
  if (end != nullptr && (*end == 'G' || *end == 'g')) m = 1024ull * 1024 * 1024;
  if (end == s || v == 0) {
    std::fprintf(stderr, "stage_legs: '%s' is not a size (e.g. 4096, 256K, 1M)\n", s);
    std::exit(64);
  }
  return static_cast<size_t>(v) * m;
}

// A copy as the runtime issues it: a batch of one with the overlap hint, the plain copy where refused.
void copy(void *dst, const void *src, size_t n, cudaStream_t s) {
  cudaMemcpyAttributes attr{};
  attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  attr.flags = cudaMemcpyFlagPreferOverlapWithCompute;
  size_t first = 0;
  void *dsts[1] = {dst};
  const void *srcs[1] = {src};
  size_t sizes[1] = {n};
  if (cudaMemcpyBatchAsync(dsts, srcs, sizes, 1, &attr, &first, 1, s) != cudaSuccess) {
    (void)cudaGetLastError();
    CHECK_CUDA(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, s));
  }
}

// GB/s of moving `bytes` in `chunk`-sized copies, each synchronised before the next.
double run(char *dst, const char *src, size_t bytes, size_t chunk, cudaStream_t s) {
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t off = 0; off < bytes; off += chunk) {
    copy(dst + off, src + off, std::min(chunk, bytes - off), s);
    CHECK_CUDA(cudaStreamSynchronize(s));
  }
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return static_cast<double>(bytes) / sec / 1e9;
}

}  // namespace

int main(int argc, char **argv) {
  size_t lo = 256 * 1024, hi = 64u << 20, chunk = 1u << 20;
  int factor = 8, repeats = 5;
  for (int i = 1; i < argc; ++i) {
    const bool more = i + 1 < argc;
    if (!std::strcmp(argv[i], "-b") && more) {
      lo = parse_size(argv[++i]);
    } else if (!std::strcmp(argv[i], "-e") && more) {
      hi = parse_size(argv[++i]);
    } else if (!std::strcmp(argv[i], "-c") && more) {
      chunk = parse_size(argv[++i]);
    } else if (!std::strcmp(argv[i], "-f") && more) {
      factor = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "-r") && more) {
      repeats = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: stage_legs [-b 256K] [-e 64M] [-f 8] [-c 1M] [-r 5] (unknown '%s')\n", argv[i]);
      return 64;
    }
  }
  if (factor < 2 || repeats < 1 || lo > hi) {
    std::fprintf(stderr, "stage_legs: need -f >= 2, -r >= 1 and -b <= -e\n");
    return 64;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "stage_legs: no GPU\n");
    return 77;
  }
  CHECK_CUDA(cudaSetDevice(0));
  char *dev = nullptr, *host = nullptr;
  CHECK_CUDA(cudaMalloc(&dev, hi));
  CHECK_CUDA(cudaHostAlloc(&host, hi, cudaHostAllocPortable));
  CHECK_CUDA(cudaMemset(dev, 1, hi));
  std::memset(host, 2, hi);
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  (void)run(host, dev, chunk, chunk, s);  // warm-up
  std::printf("%-6s %12s %10s %28s\n", "leg", "size", "chunk", "GB/s median [min,max]");
  for (size_t size = lo; size != 0 && size <= hi; size = size > hi / static_cast<size_t>(factor) ? 0 : size * factor) {
    for (int leg = 0; leg < 2; ++leg) {
      std::vector<double> v;
      for (int r = 0; r < repeats; ++r)
        v.push_back(leg == 0 ? run(host, dev, size, chunk, s) : run(dev, host, size, chunk, s));
      std::sort(v.begin(), v.end());
      const double med = v[v.size() / 2];
      const char *name = leg == 0 ? "d2h" : "h2d";
      std::printf("%-6s %12zu %10zu %10.3f [%.3f,%.3f]\n", name, size, chunk, med, v.front(), v.back());
      std::printf(
          "json: {\"bench\":\"stage_legs\",\"leg\":\"%s\",\"size\":%zu,\"chunk\":%zu,\"repeats\":%d,"
          "\"bw_GBps\":{\"median\":%.4f,\"min\":%.4f,\"max\":%.4f}}\n",
          name, size, chunk, repeats, med, v.front(), v.back());
    }
  }
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_CUDA(cudaFreeHost(host));
  CHECK_CUDA(cudaFree(dev));
  return 0;
}
