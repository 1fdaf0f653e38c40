// ibgda_post_rate: the device-side cost of posting to IBGDA queue pairs (issue 14), one process, no PEs and no NIC.
// Device producers post 8-byte inline RDMA WRITEs (one 64-byte block each) with the library's producer protocol
// (gpushmem/ibgda_producer.hpp through device/transport/ibgda_mem.cuh: reserve, build, write, publish, doorbell
// batching) to QPS queue pairs, warp w to queue pair w % QPS; a host thread plays a NIC that only advances indices:
// it reads each doorbell record and writes the collapsed CQE naming the newest block published, so the producers
// wait for nothing but the send queue's room. Queues, doorbell records and CQEs in pinned host memory mapped into
// the GPU (as the NIC emulator's), producer words in device memory. Never a NIC's or the emulator's speed.
// The figures, medians over the repeats: WQEs built and published per second (from the launch to the kernel's end,
// every WQE then completed), and the doorbells rung per WQE (GPUSHMEM_IBGDA_BATCH's effect), as a table row and a
// "json:" line. A lost, repeated or failed post fails the run (exit 1).
//   ibgda_post_rate [CTAS [WARPS [QPS [WQEBBS [POSTS [REPEATS [BATCH [POSTERS]]]]]]]]
//   defaults 32 8 4 1024 4000000 5 8 lanes; CTAS 1 WARPS 1: one warp. POSTERS lanes: every lane posts its own
//   WQEs; lane0: only lane 0 of each warp posts (a warp-scope caller's pattern); warp: every lane posts, the warp's
//   lanes together (the device API's lane aggregation, device/transport/ibgda.cuh ibgda_post: one reservation by the
//   lowest lane, each lane's WQE at its rank, one publish and at most one doorbell for the warp).
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gpushmem/device/transport/ibgda_mem.cuh"
#include "gpushmem/mlx5_format.h"
#include "gpushmem/mlx5_wqe.hpp"

namespace ibgda = gpushmem::ibgda;
namespace mlx5 = gpushmem::mlx5;
using gpushmem::device::IbgdaMem;

#define CHECK_CUDA(x)                                                                       \
  do {                                                                                      \
    cudaError_t e_ = (x);                                                                   \
    if (e_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "ibgda_post_rate: %s failed: %s\n", #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

namespace {

// Each poster writes its own value to its own address, so the consumer can check every WQE arrived once.
// The warp's 32 lanes post one WQE each together (POSTERS warp): the protocol of the device API's ibgda_post.
__device__ ibgda::Outcome post_together(const gpushmem_ibgda_qp_t &q, unsigned lane, uint64_t poster, uint64_t value) {
  uint64_t first = 0;
  uint32_t o = 0;
  if (lane == 0) o = static_cast<uint32_t>(ibgda::reserve<IbgdaMem>(q, 32, &first, 10000000000ull));
  first = __shfl_sync(0xffffffffu, first, 0);
  o = __shfl_sync(0xffffffffu, o, 0);
  if (o != 0) return static_cast<ibgda::Outcome>(o);
  gpushmem_mlx5_wqe_t w;
  (void)mlx5::build_write_inline(&w,
                                 mlx5::Post{static_cast<uint32_t>(first + lane), q.qpn, GPUSHMEM_MLX5_CTRL_CQ_UPDATE},
                                 mlx5::Remote{poster * 8, 0x1234}, &value, 8);
  ibgda::write<IbgdaMem>(q, first + lane, w);
  __syncwarp();
  if (lane == 0)
    o = static_cast<uint32_t>(ibgda::publish_range<IbgdaMem>(q, first, 32, first + 31, false, 10000000000ull));
  return static_cast<ibgda::Outcome>(__shfl_sync(0xffffffffu, o, 0));
}

__global__ void produce(const gpushmem_ibgda_qp_t *qps, uint32_t n_qps, uint64_t per_poster, bool lane0_only,
                        bool together, unsigned *failed) {
  const unsigned lane = threadIdx.x % 32;
  if (lane0_only && lane != 0) return;
  const unsigned warp = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const gpushmem_ibgda_qp_t &q = qps[warp % n_qps];
  const uint64_t poster = static_cast<uint64_t>(warp) * 32 + lane;
  for (uint64_t k = 0; k < per_poster; ++k) {
    const uint64_t value = (poster << 32) | k;
    if (together) {
      if (post_together(q, lane, poster, value) != ibgda::Outcome::ok) atomicAdd(failed, 1u);
      continue;
    }
    const ibgda::Outcome o = ibgda::post<IbgdaMem>(
        q, 1,
        [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
          (void)mlx5::build_write_inline(w, p, mlx5::Remote{poster * 8, 0x1234}, &value, 8);
        },
        false, 10000000000ull);
    if (o != ibgda::Outcome::ok) atomicAdd(failed, 1u);
  }
  if (ibgda::quiet<IbgdaMem>(q, 10000000000ull) != ibgda::Outcome::ok) atomicAdd(failed, 1u);
}

struct HostQp {
  uint8_t *block = nullptr;  // pinned: send queue, CQE, doorbell record, doorbell
  gpushmem_ibgda_qp_words_t *words = nullptr;
  gpushmem_ibgda_qp_t qp{};
  uint32_t consumed = 0;  // 16-bit producer index last seen
};

// The index-advancing NIC: for each QP, the doorbell record's producer index; every block up to it is taken
// (its WQE's index, QP number and inline value checked against its poster's sequence) and the CQE names the last one:
// every WQE here is one block, so the last block taken starts the newest WQE.
void consume(std::vector<HostQp> &qps, uint32_t wqebbs, uint64_t expect, std::vector<uint64_t> &next_k,
             std::atomic<bool> &stop, std::atomic<uint64_t> &taken, std::atomic<uint64_t> &bad) {
  uint64_t n = 0;
  while (n < expect && !stop.load(std::memory_order_relaxed)) {
    bool any = false;
    for (HostQp &h : qps) {
      const uint32_t rec = __atomic_load_n(&h.qp.dbrec[GPUSHMEM_MLX5_DBR_SND], __ATOMIC_ACQUIRE);
      const uint16_t pi = static_cast<uint16_t>(gpushmem_mlx5_bswap32(rec));
      if (pi == static_cast<uint16_t>(h.consumed)) continue;
      any = true;
      while (static_cast<uint16_t>(h.consumed) != pi) {
        const mlx5::RingReader reader{h.qp.sq, wqebbs, h.consumed};
        mlx5::Decoded d{};
        if (mlx5::decode(reader, &d) != GPUSHMEM_MLX5_SYND_OK || !d.is_inline || d.bytes != 8 ||
            d.index != (h.consumed & 0xffffu) || d.qpn != h.qp.qpn) {
          bad.fetch_add(1);
        } else {
          uint64_t v = 0;
          for (uint32_t b = 0; b < 8; ++b) v |= static_cast<uint64_t>(mlx5::inline_byte(reader, b)) << (8 * b);
          const uint64_t poster = v >> 32, k = v & 0xffffffffu;
          if (poster >= next_k.size() || next_k[poster] != k || d.raddr != poster * 8) bad.fetch_add(1);
          if (poster < next_k.size()) next_k[poster] = k + 1;
        }
        ++h.consumed;
        ++n;
      }
      gpushmem_mlx5_cqe64_t e{};
      e.wqe_counter_be = gpushmem_mlx5_bswap16(static_cast<uint16_t>(h.consumed - 1));
      e.op_own = static_cast<uint8_t>(GPUSHMEM_MLX5_CQE_REQ << 4);
      uint32_t tail = 0;
      std::memcpy(&tail, reinterpret_cast<const uint8_t *>(&e) + 60, 4);
      __atomic_store_n(reinterpret_cast<uint32_t *>(h.qp.cqe + 60), tail, __ATOMIC_RELEASE);
    }
    if (!any) std::this_thread::yield();
  }
  taken.store(n);
}

}  // namespace

int main(int argc, char **argv) {
  const auto arg = [&](int i, uint64_t dflt) { return argc > i ? std::strtoull(argv[i], nullptr, 0) : dflt; };
  const uint32_t ctas = static_cast<uint32_t>(arg(1, 32)), warps = static_cast<uint32_t>(arg(2, 8));
  const uint32_t n_qps = static_cast<uint32_t>(arg(3, 4)), wqebbs = static_cast<uint32_t>(arg(4, 1024));
  const uint64_t posts = arg(5, 4000000);
  const int repeats = static_cast<int>(arg(6, 5));
  const uint32_t batch = static_cast<uint32_t>(arg(7, 8));
  const bool lane0 = argc > 8 && std::strcmp(argv[8], "lane0") == 0;
  const bool together = argc > 8 && std::strcmp(argv[8], "warp") == 0;
  if (ctas < 1 || warps < 1 || warps > 32 || n_qps < 1 || wqebbs < 64 || wqebbs > 32768 ||
      (wqebbs & (wqebbs - 1)) != 0 || batch < 1 || repeats < 1 ||
      (argc > 8 && !lane0 && !together && std::strcmp(argv[8], "lanes") != 0)) {
    std::fprintf(stderr,
                 "usage: ibgda_post_rate [CTAS [WARPS (1-32) [QPS [WQEBBS (a power of two, 64-32768) [POSTS [REPEATS "
                 "[BATCH [lanes|lane0|warp]]]]]]]]\n");
    return 2;
  }
  const uint64_t posters = static_cast<uint64_t>(ctas) * warps * (lane0 ? 1 : 32);
  const uint64_t per_poster = std::max<uint64_t>(1, posts / posters);
  const uint64_t total = per_poster * posters;

  std::vector<HostQp> hq(n_qps);
  std::vector<gpushmem_ibgda_qp_t> table(n_qps);
  for (uint32_t i = 0; i < n_qps; ++i) {
    HostQp &h = hq[i];
    CHECK_CUDA(cudaHostAlloc(reinterpret_cast<void **>(&h.block), size_t{wqebbs} * 64 + 128, cudaHostAllocMapped));
    void *mapped = nullptr;
    CHECK_CUDA(cudaHostGetDevicePointer(&mapped, h.block, 0));
    if (mapped != h.block) {
      std::fprintf(stderr, "ibgda_post_rate: pinned memory is not mapped into the GPU at its host address (no UVA)\n");
      return 1;
    }
    CHECK_CUDA(cudaMalloc(reinterpret_cast<void **>(&h.words), sizeof(gpushmem_ibgda_qp_words_t)));
    h.qp.sq = h.block;
    h.qp.cqe = h.block + size_t{wqebbs} * 64;
    h.qp.dbrec = reinterpret_cast<uint32_t *>(h.qp.cqe + 64);
    h.qp.doorbell = reinterpret_cast<uint64_t *>(h.qp.cqe + 72);
    h.qp.words = h.words;
    h.qp.wqebbs = wqebbs;
    h.qp.qpn = 0x100 + i;
    h.qp.batch = batch;
    table[i] = h.qp;
  }
  gpushmem_ibgda_qp_t *d_table = nullptr;
  unsigned *d_failed = nullptr;
  CHECK_CUDA(cudaMalloc(reinterpret_cast<void **>(&d_table), sizeof(gpushmem_ibgda_qp_t) * n_qps));
  CHECK_CUDA(cudaMemcpy(d_table, table.data(), sizeof(gpushmem_ibgda_qp_t) * n_qps, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMalloc(reinterpret_cast<void **>(&d_failed), sizeof(unsigned)));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t t0, t1;
  CHECK_CUDA(cudaEventCreate(&t0));
  CHECK_CUDA(cudaEventCreate(&t1));

  std::vector<double> rates, bells;
  bool ok = true;
  for (int r = 0; r < repeats && ok; ++r) {
    for (HostQp &h : hq) {
      std::memset(h.block, 0, size_t{wqebbs} * 64 + 128);
      std::memset(h.qp.cqe, 0xff, 64);  // as a NIC's CQ starts: INVALID
      CHECK_CUDA(cudaMemset(h.words, 0, sizeof(gpushmem_ibgda_qp_words_t)));
      h.consumed = 0;
    }
    CHECK_CUDA(cudaMemset(d_failed, 0, sizeof(unsigned)));
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<uint64_t> next_k(static_cast<size_t>(ctas) * warps * 32, 0);
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> taken{0}, bad{0};
    std::thread nic(consume, std::ref(hq), wqebbs, total, std::ref(next_k), std::ref(stop), std::ref(taken),
                    std::ref(bad));
    CHECK_CUDA(cudaEventRecord(t0, stream));
    produce<<<ctas, warps * 32, 0, stream>>>(d_table, n_qps, per_poster, lane0, together, d_failed);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaEventRecord(t1, stream));
    const cudaError_t done = cudaStreamSynchronize(stream);
    stop.store(true);
    nic.join();
    CHECK_CUDA(done);
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, t0, t1));
    unsigned failed = 0;
    CHECK_CUDA(cudaMemcpy(&failed, d_failed, sizeof failed, cudaMemcpyDeviceToHost));
    uint64_t doorbells = 0;
    for (HostQp &h : hq) {
      gpushmem_ibgda_qp_words_t w{};
      CHECK_CUDA(cudaMemcpy(&w, h.words, sizeof w, cudaMemcpyDeviceToHost));
      doorbells += w.doorbells;
    }
    if (failed != 0 || bad.load() != 0 || taken.load() != total) {
      std::fprintf(stderr, "ibgda_post_rate: repeat %d: %u failed posts, %llu bad WQEs, %llu of %llu taken\n", r,
                   failed, static_cast<unsigned long long>(bad.load()), static_cast<unsigned long long>(taken.load()),
                   static_cast<unsigned long long>(total));
      ok = false;
      break;
    }
    rates.push_back(static_cast<double>(total) / (ms * 1e3));  // M WQEs/s
    bells.push_back(static_cast<double>(doorbells) / static_cast<double>(total));
  }
  if (!ok) return 1;
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double rate = median(rates), per = median(bells);
  std::printf("%-6s %-6s %-4s %-7s %-6s %-6s %12s %12s %12s\n", "ctas", "warps", "qps", "wqebbs", "batch", "posts",
              "M WQEs/s", "min", "doorbells/WQE");
  std::printf("%-6u %-6u %-4u %-7u %-6u %-6s %12.2f %12.2f %12.3f\n", ctas, warps, n_qps, wqebbs, batch,
              lane0      ? "lane0"
              : together ? "warp"
                         : "lanes",
              rate, *std::min_element(rates.begin(), rates.end()), per);
  std::printf(
      "json: {\"bench\": \"ibgda_post_rate\", \"ctas\": %u, \"warps\": %u, \"qps\": %u, \"wqebbs\": %u, \"batch\": %u, "
      "\"posters\": \"%s\", \"wqes\": %llu, \"mwqe_per_s\": %.3f, \"doorbells_per_wqe\": %.4f, \"repeats\": %d}\n",
      ctas, warps, n_qps, wqebbs, batch,
      lane0      ? "lane0"
      : together ? "warp"
                 : "lanes",
      static_cast<unsigned long long>(total), rate, per, repeats);
  for (HostQp &h : hq) {
    (void)cudaFreeHost(h.block);
    (void)cudaFree(h.words);
  }
  (void)cudaFree(d_table);
  (void)cudaFree(d_failed);
  return 0;
}
