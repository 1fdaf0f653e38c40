/*
 * shmem_g_latency: one GPU thread on PE 0 reads one element of PE 1 with shmem_TYPE_g per iteration (a
 * remote round trip: the next iteration needs the value); microseconds per iteration, timed inside the
 * kernel. -d int | long | double | all (default all).
 * Every fetched value is checked in the kernel against what PE 1 holds. Reference in the same run: a
 * volatile load of the same width through the device shmem_ptr of PE 1's element.
 * Each iteration reads the element of the next 128-byte slot of a 4 MiB window (PE 1 holds the same value in
 * every slot), for the library and the reference alike: the SM's L1 caches plain loads from a peer's
 * memory, and a loop that reads the same remote word again would time L1 hits instead of round trips.
 *
 * Usage: shmem_g_latency [-n 1000] [-w 100] [-r 11] [-d int|long|double|all]
 */
#include "perf_shmem.h"

#include <cstdint>
#include <cstdio>
#include <type_traits>

#include "perf_args.cuh"
#include "perf_cuda.cuh"
#include "perf_report.cuh"
#include "perf_session.cuh"

namespace {

enum Type { kInt = 0, kLong = 1, kDouble = 2, kAll = 3 };
const char *const kTypes[] = {"int", "long", "double", "all", nullptr};
const char *const kCalls[] = {"shmem_int_g", "shmem_long_g", "shmem_double_g"};
const size_t kBytes[] = {sizeof(int), sizeof(long), sizeof(double)};

/* What PE 1's element holds for each type. */
template <class T>
__host__ __device__ inline T held() {
  return static_cast<T>(123456789) + static_cast<T>(sizeof(T));
}

constexpr size_t kWindow = size_t{4} << 20, kSlot = 128, kSlots = kWindow / kSlot;

template <class T>
__global__ void fill_slots_kernel(char *p) {
  for (size_t j = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; j < kSlots;
       j += static_cast<size_t>(gridDim.x) * blockDim.x)
    *reinterpret_cast<T *>(p + j * kSlot) = held<T>();
}

template <class T, bool Raw>
__global__ void g_kernel(const char *window, int pe, int warm, int iters, int reps, unsigned long long *ns,
                         unsigned long long *bad) {
  size_t offset = 0;
  perf_timed_loop(warm, iters, reps, ns, [&](long long) {
    const T *src = reinterpret_cast<const T *>(window + offset);
    offset = offset + kSlot == kWindow ? 0 : offset + kSlot;
    T v;
    if constexpr (Raw)
      v = *reinterpret_cast<const volatile T *>(src);
    else if constexpr (sizeof(T) == sizeof(int))
      v = nvshmem_int_g(reinterpret_cast<const int *>(src), pe);
    else if constexpr (std::is_same<T, double>::value)
      v = nvshmem_double_g(reinterpret_cast<const double *>(src), pe);
    else
      v = nvshmem_long_g(reinterpret_cast<const long *>(src), pe);
    if (v != held<T>()) ++*bad; /* also makes the thread wait for the value */
  });
}

}  // namespace

int main(int argc, char **argv) {
  perf_args a;
  a.type = "all";
  perf_parse_args(argc, argv, "nwrd", "  -d: int, long, double, all (default)", &a);
  const int pick = perf_choose(argv[0], 'd', a.type, kTypes);
  perf_session s = perf_start("shmem_g_latency", 2);
  void *elem = nvshmem_malloc(kWindow);
  unsigned long long *ns = nullptr, *bad = nullptr;
  PERF_CUDA_CHECK(cudaMallocHost(&ns, static_cast<size_t>(a.repeats) * sizeof *ns)); /* pinned: no page faults */
  PERF_CUDA_CHECK(cudaMallocHost(&bad, sizeof *bad));
  void *peer = s.me == 0 ? perf_peer_ptr(elem, 1) : nullptr;
  if (s.me == 0) {
    if (peer == nullptr) std::printf("# PE 1 is not load/store reachable from PE 0: no raw column\n");
    std::printf(
        "# shmem_g_latency: one thread on PE 0 <- PE 1, one g per iteration, %d iterations (+%d warm-up), median "
        "[min,max] of %d repeats\n# each g reads the next %zu-byte slot of a %zu-byte window, so none is served "
        "from L1\n",
        a.iters, a.warmup, a.repeats, kSlot, kWindow);
    std::printf("%-8s %-7s %-15s %-26s %-10s %-8s %-5s\n", "size(B)", "scope", "op", "lat(us) [min,max]", "raw(us)",
                "lat/raw", "check");
  }
  for (int t = kInt; t <= kDouble; ++t) {
    if (pick != kAll && pick != t) continue;
    PERF_CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    if (s.me == 1) {
      char *w = static_cast<char *>(elem);
      if (t == kInt)
        fill_slots_kernel<int><<<256, 256>>>(w);
      else if (t == kLong)
        fill_slots_kernel<long><<<256, 256>>>(w);
      else
        fill_slots_kernel<double><<<256, 256>>>(w);
      PERF_CUDA_CHECK(cudaGetLastError());
      PERF_CUDA_CHECK(cudaDeviceSynchronize());
    }
    nvshmem_barrier_all();
    long long bad_count = 0;
    auto run = [&](bool raw) {
      *bad = 0;
      perf_spin_up(s.stream, a.spin_up_ms);
      const void *src = raw ? peer : elem;
#define PERF_G(T)                                                                                          \
  if (raw)                                                                                                 \
    g_kernel<T, true>                                                                                      \
        <<<1, 1, 0, s.stream>>>(static_cast<const char *>(src), 1, a.warmup, a.iters, a.repeats, ns, bad); \
  else                                                                                                     \
    g_kernel<T, false><<<1, 1, 0, s.stream>>>(static_cast<const char *>(src), 1, a.warmup, a.iters, a.repeats, ns, bad);
      if (t == kInt) {
        PERF_G(int)
      } else if (t == kLong) {
        PERF_G(long)
      } else {
        PERF_G(double)
      }
#undef PERF_G
      PERF_CUDA_CHECK(cudaGetLastError());
      PERF_CUDA_CHECK(cudaStreamSynchronize(s.stream));
      if (*bad != 0) {
        std::fprintf(stderr, "PE 0: %s%s: %llu fetched values differ from what PE 1 holds\n", raw ? "raw " : "",
                     kCalls[t], *bad);
        bad_count += static_cast<long long>(*bad);
      }
      return perf_summarize(perf_window_us(ns, a.repeats, a.iters));
    };
    perf_stat lat, raw;
    if (s.me == 0 && peer != nullptr) raw = run(true);
    if (s.me == 0) lat = run(false);
    const long long job_bad = perf_job_errors(s, bad_count);
    if (s.me == 0) {
      std::printf("%-8zu %-7s %-15s %-26s %-10s %-8s %-5s\n", kBytes[t], "thread", kCalls[t], perf_cell(lat).c_str(),
                  perf_median_cell(raw).c_str(), perf_ratio_cell(lat, raw).c_str(), job_bad ? "FAIL" : "ok");
      perf_json("shmem_g_latency")
          .integer("size", static_cast<long long>(kBytes[t]))
          .str("scope", "thread")
          .str("op", kCalls[t])
          .str("type", kTypes[t])
          .integer("iters", a.iters)
          .integer("repeats", a.repeats)
          .stat("lat_us", lat)
          .stat("raw_load_us", raw)
          .ratio("ratio_to_raw", lat, raw)
          .str("check", job_bad ? "FAIL" : "ok")
          .print();
    }
  }
  PERF_CUDA_CHECK(cudaFreeHost(ns));
  PERF_CUDA_CHECK(cudaFreeHost(bad));
  nvshmem_free(elem);
  return perf_finish(s);
}
