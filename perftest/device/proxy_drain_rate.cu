// proxy_drain_rate: the CPU proxy's ring alone. Device producers on one proxy channel
// (gpushmem/proxy_producer.hpp with device/transport/proxy_mem.cuh) against the proxy service on a host thread, in
// one process and no PEs: every warp's lanes reserve their slots with one atomic (lane 0) and publish one request
// each; the service's backend does nothing but check that each producer's requests arrive complete and in its
// order. The figure is the drain rate (M slots/s, from the kernel's launch to the last request taken), the median
// over the repeats, as a table row and a "json:" line, with the share of the proxy's polls that found the ring empty
// and the requests a poll took (mostly empty polls: the producers set the pace; none: the proxy thread does); any
// lost, duplicated or reordered request fails the run (exit 1).
//   proxy_drain_rate [CAPACITY [REQUESTS [CTAS [WARPS [REPEATS [BATCH [BODY [WAIT]]]]]]]]
//   defaults 4096 8000000 32 8 5 32 relaxed spaced; CAPACITY 8 puts back-pressure on every reservation (tests/gpu runs
//   both); BATCH: the slots the proxy takes from the channel per poll (the service's default, 32); BODY weak: the
//   slot's body as weak stores instead of the library's relaxed system-scope ones; BODY nofence: weak body and a
//   relaxed header, no release (experiments: nofence measures what the system-scope release costs the producers, and
//   is not a correct publication: the check then also tells whether the proxy saw a header before its body). WAIT:
//   how a producer that finds the ring full waits for room: spaced (the library's: in proportion to the slots ahead
//   of its own, one poller of the host's tail) or doubling (the previous one, kept for comparison in the same run).
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpushmem/device/transport/proxy_mem.cuh"
#include "proxy/proxy_service.hpp"

namespace proxy = gpushmem::proxy;

#define CHECK_CUDA(x)                                                                        \
  do {                                                                                       \
    cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "proxy_drain_rate: %s failed: %s\n", #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

// BODY weak: the slot's body words as weak stores (the header's release store still orders them before it), to see
// whether the library's relaxed system-scope body stores cost the producers anything.
struct WeakBodyMem : gpushmem::device::ProxyMem {
  static __device__ __forceinline__ void write_body(gpushmem_proxy_slot_t *s, const gpushmem_proxy_slot_t &v) {
    asm volatile("st.global.b64 [%0], %1;" ::"l"(&s->remote), "l"(v.remote) : "memory");
    asm volatile("st.global.v2.b64 [%0], {%1, %2};" ::"l"(&s->local), "l"(v.local), "l"(v.size_event) : "memory");
    asm volatile("st.global.v2.b64 [%0], {%1, %2};" ::"l"(&s->signal), "l"(v.signal), "l"(v.value) : "memory");
    asm volatile("st.global.v2.b64 [%0], {%1, %2};" ::"l"(&s->compare), "l"(v.compare), "l"(v.cookie) : "memory");
  }
};

// BODY nofence: the header without release (not a correct publication; see the top of the file).
struct NoFenceMem : WeakBodyMem {
  static __device__ __forceinline__ void publish(gpushmem_proxy_slot_t *s, uint64_t header) {
    asm volatile("st.relaxed.sys.global.b64 [%0], %1;" ::"l"(&s->header), "l"(header) : "memory");
  }
};

enum class Body { relaxed, weak, nofence };
static const char *body_name(Body b) {
  return b == Body::relaxed ? "relaxed" : b == Body::weak ? "weak" : "nofence";
}

// WAIT doubling: the producers' wait for room as it was before the library's (gpushmem/proxy_producer.hpp, reserve:
// a pause in proportion to the slots ahead, and one poller of the host's tail per channel): every waiting producer
// sleeps one pause that doubles up to 4 us, then reads the host's tail itself. Kept here to measure the two in the
// same run.
template <class Mem>
__device__ gpushmem::proxy::Room reserve_doubling(const gpushmem_proxy_channel_t &c, uint32_t n, uint64_t *first,
                                                  uint64_t timeout_ns) {
  const uint64_t idx = Mem::fetch_add(&c.words->head, n);
  *first = idx;
  const uint64_t end = idx + n;
  uint64_t tail = Mem::load_relaxed(&c.words->tail_cache);
  if (end - tail <= c.high_water) return gpushmem::proxy::Room::ok;
  tail = Mem::load_host(&c.control->tail);
  Mem::raise(&c.words->tail_cache, tail);
  if (end - tail <= c.capacity) {
    if (end - tail > c.high_water) Mem::store_host(&c.control->help, end);
    return gpushmem::proxy::Room::ok;
  }
  const uint64_t start = Mem::now_ns();
  uint32_t pause_ns = 32;
  Mem::store_host(&c.control->help, end);
  for (;;) {
    Mem::backoff(&pause_ns);
    tail = Mem::load_host(&c.control->tail);
    if (end - tail <= c.capacity) {
      Mem::raise(&c.words->tail_cache, tail);
      return gpushmem::proxy::Room::ok;
    }
    if (timeout_ns != 0 && Mem::now_ns() - start > timeout_ns) return gpushmem::proxy::Room::timed_out;
  }
}

template <class Mem, bool kDoubling>
__global__ void produce(gpushmem_proxy_channel_t c, uint64_t per_lane, unsigned *failed) {
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned producer = (blockIdx.x * (blockDim.x / 32) + warp) * 32 + lane;
  // The warp's lanes in groups of at most `capacity` (a reservation never exceeds the ring): lane 0 reserves
  // for the group, whose lanes then publish one slot each.
  const unsigned group = c.capacity < 32 ? c.capacity : 32;
  for (uint64_t k = 0; k < per_lane; ++k) {
    for (unsigned g0 = 0; g0 < 32; g0 += group) {
      uint64_t first = 0;
      if (lane == 0 &&
          (kDoubling ? reserve_doubling<Mem>(c, group, &first, 10000000000ull)
                     : gpushmem::proxy::reserve<Mem>(c, group, &first, 10000000000ull)) != gpushmem::proxy::Room::ok)
        atomicAdd(failed, 1u);
      first = __shfl_sync(0xffffffffu, first, 0);
      if (lane >= g0 && lane < g0 + group) {
        gpushmem_proxy_slot_t b{};
        b.value = (uint64_t(producer) << 32) | k;
        b.size_event = gpushmem_proxy_size_event(8, producer);
        b.cookie = gpushmem_proxy_cookie(0, warp, blockIdx.x, 0);
        gpushmem::proxy::publish<Mem>(c, first + (lane - g0), b, GPUSHMEM_PROXY_OP_PUT, 0, 1);
      }
      __syncwarp();
    }
  }
}

namespace {

struct CheckingBackend final : proxy::Backend {
  std::vector<uint64_t> next;  // per producer: the k it sends next
  uint64_t bad = 0, count = 0;
  explicit CheckingBackend(size_t producers) : next(producers, 0) {}
  bool execute(uint32_t, const proxy::Request &r) override {
    const uint64_t producer = r.slot.value >> 32, k = r.slot.value & 0xffffffffu;
    if (producer >= next.size() || (r.slot.size_event >> 32) != producer || k != next[producer]) {
      if (++bad <= 5)
        std::fprintf(stderr, "proxy_drain_rate: request %llu: producer %llu k %llu, expected k %llu\n",
                     static_cast<unsigned long long>(r.index), static_cast<unsigned long long>(producer),
                     static_cast<unsigned long long>(k),
                     producer < next.size() ? static_cast<unsigned long long>(next[producer]) : 0ull);
    } else {
      next[producer] = k + 1;
    }
    ++count;
    return true;
  }
  void progress(const std::function<void(uint32_t, uint64_t)> &) override {}
};

}  // namespace

template <class Mem>
void launch_with(bool doubling, int ctas, int warps, const gpushmem_proxy_channel_t &c, uint64_t per_lane,
                 unsigned *failed) {
  if (doubling)
    produce<Mem, true><<<ctas, warps * 32>>>(c, per_lane, failed);
  else
    produce<Mem, false><<<ctas, warps * 32>>>(c, per_lane, failed);
}
void launch(Body body, bool doubling, int ctas, int warps, const gpushmem_proxy_channel_t &c, uint64_t per_lane,
            unsigned *failed) {
  if (body == Body::weak)
    launch_with<WeakBodyMem>(doubling, ctas, warps, c, per_lane, failed);
  else if (body == Body::nofence)
    launch_with<NoFenceMem>(doubling, ctas, warps, c, per_lane, failed);
  else
    launch_with<gpushmem::device::ProxyMem>(doubling, ctas, warps, c, per_lane, failed);
}

// One run on a fresh ring: the rate in M slots/s, or a negative value after printing what failed; the share of the
// proxy's polls that found nothing, and the requests a poll that found some took, on average.
double run_once(uint32_t capacity, uint64_t per_lane, int ctas, int warps, uint32_t batch, Body body, bool doubling,
                double *empty_share, double *per_poll) {
  const uint64_t producers = uint64_t(ctas) * warps * 32;
  gpushmem_proxy_slot_t *ring = nullptr;
  gpushmem_proxy_control_t *control = nullptr;
  gpushmem_proxy_device_words_t *words = nullptr;
  unsigned *failed = nullptr;
  CHECK_CUDA(cudaHostAlloc(&ring, capacity * sizeof *ring, cudaHostAllocMapped));
  CHECK_CUDA(cudaHostAlloc(&control, sizeof *control, cudaHostAllocMapped));
  CHECK_CUDA(cudaMalloc(&words, sizeof *words));
  CHECK_CUDA(cudaMalloc(&failed, sizeof *failed));
  CHECK_CUDA(cudaMemset(words, 0, sizeof *words));
  CHECK_CUDA(cudaMemset(failed, 0, sizeof *failed));
  std::memset(control, 0, sizeof *control);
  for (uint32_t p = 0; p < capacity; ++p) ring[p].header = gpushmem_proxy_free_header(0, capacity, p);
  gpushmem_proxy_slot_t *ring_dev = nullptr;
  gpushmem_proxy_control_t *control_dev = nullptr;
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void **>(&ring_dev), ring, 0));
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void **>(&control_dev), control, 0));
  const uint32_t hwm = capacity * 3 / 4;
  gpushmem_proxy_channel_t host_view = {ring, control, words, capacity, hwm, nullptr, nullptr};
  gpushmem_proxy_channel_t dev_view = {ring_dev, control_dev, words, capacity, hwm, nullptr, nullptr};

  CheckingBackend be(producers);
  proxy::ServiceOptions o;
  o.watchdog_ns = 20000000000ull;  // a stuck request is named instead of the run timing out silently
  o.batch = batch;
  proxy::Service svc(&be, o);
  svc.add_channel(host_view);
  svc.start();
  const uint64_t t0 = proxy::Service::now_ns();
  launch(body, doubling, ctas, warps, dev_view, per_lane, failed);
  CHECK_CUDA(cudaGetLastError());
  const uint64_t want = per_lane * producers;
  while (svc.requests_taken() < want && proxy::Service::now_ns() - t0 < 30000000000ull) {
  }
  const double secs = static_cast<double>(proxy::Service::now_ns() - t0) * 1e-9;
  CHECK_CUDA(cudaDeviceSynchronize());
  svc.stop();
  // Whether the proxy thread or the producers set the pace: a consumer that finds the ring empty in most of its
  // polls waits for the device.
  const uint64_t busy = svc.busy_rounds(), empty = svc.empty_rounds();
  *empty_share = busy + empty != 0 ? static_cast<double>(empty) / static_cast<double>(busy + empty) : 0.0;
  *per_poll = busy != 0 ? static_cast<double>(svc.requests_taken()) / static_cast<double>(busy) : 0.0;
  unsigned failed_h = 0;
  CHECK_CUDA(cudaMemcpy(&failed_h, failed, sizeof failed_h, cudaMemcpyDeviceToHost));
  uint64_t short_producers = 0;
  for (uint64_t n : be.next) short_producers += n != per_lane;
  const bool ok =
      be.count == want && be.bad == 0 && failed_h == 0 && short_producers == 0 && control->completed == want;
  if (!ok)
    std::fprintf(stderr,
                 "proxy_drain_rate: FAILED: %llu of %llu requests taken, %llu out of order, %u reservations timed "
                 "out, %llu producers short, completed %llu\n",
                 static_cast<unsigned long long>(be.count), static_cast<unsigned long long>(want),
                 static_cast<unsigned long long>(be.bad), failed_h, static_cast<unsigned long long>(short_producers),
                 static_cast<unsigned long long>(control->completed));
  CHECK_CUDA(cudaFreeHost(ring));
  CHECK_CUDA(cudaFreeHost(control));
  CHECK_CUDA(cudaFree(words));
  CHECK_CUDA(cudaFree(failed));
  return ok ? static_cast<double>(want) / secs * 1e-6 : -1.0;
}

int main(int argc, char **argv) {
  const uint32_t capacity = argc > 1 ? static_cast<uint32_t>(std::atoi(argv[1])) : 4096;
  const uint64_t total = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 8000000;
  const int ctas = argc > 3 ? std::atoi(argv[3]) : 32, warps = argc > 4 ? std::atoi(argv[4]) : 8;
  const int repeats = argc > 5 ? std::atoi(argv[5]) : 5;
  const int batch = argc > 6 ? std::atoi(argv[6]) : 32;
  Body body = Body::relaxed;
  if (argc > 7) {
    if (!std::strcmp(argv[7], "weak")) {
      body = Body::weak;
    } else if (!std::strcmp(argv[7], "nofence")) {
      body = Body::nofence;
    } else if (std::strcmp(argv[7], "relaxed") != 0) {
      std::fprintf(stderr, "proxy_drain_rate: BODY is relaxed (the library's), weak or nofence, not '%s'\n", argv[7]);
      return 2;
    }
  }
  bool doubling = false;
  if (argc > 8) {
    if (!std::strcmp(argv[8], "doubling")) {
      doubling = true;
    } else if (std::strcmp(argv[8], "spaced") != 0) {
      std::fprintf(stderr, "proxy_drain_rate: WAIT is spaced (the library's) or doubling, not '%s'\n", argv[8]);
      return 2;
    }
  }
  if (capacity < 8 || (capacity & (capacity - 1)) != 0 || total == 0 || ctas < 1 || warps < 1 || warps > 32 ||
      repeats < 1 || batch < 1 || batch > 4096) {
    std::fprintf(stderr,
                 "proxy_drain_rate: usage: proxy_drain_rate [CAPACITY (a power of two >= 8) [REQUESTS [CTAS [WARPS "
                 "(1..32) [REPEATS [BATCH (1..4096) [BODY (relaxed|weak|nofence) [WAIT (spaced|doubling)]]]]]]]]\n");
    return 2;
  }
  const uint64_t producers = uint64_t(ctas) * warps * 32, per_lane = (total + producers - 1) / producers;
  std::vector<double> rates, empties, per_polls;
  for (int r = 0; r < repeats; ++r) {
    double empty_share = 0, per_poll = 0;
    const double rate = run_once(capacity, per_lane, ctas, warps, static_cast<uint32_t>(batch), body, doubling,
                                 &empty_share, &per_poll);
    if (rate < 0) return 1;
    rates.push_back(rate);
    empties.push_back(empty_share);
    per_polls.push_back(per_poll);
  }
  std::sort(rates.begin(), rates.end());
  std::sort(empties.begin(), empties.end());
  std::sort(per_polls.begin(), per_polls.end());
  const double empty_median = empties[empties.size() / 2], per_poll_median = per_polls[per_polls.size() / 2];
  const double median = rates[rates.size() / 2], lo = rates.front(), hi = rates.back();
  std::printf(
      "# proxy_drain_rate: one channel of %u slots, %llu requests from %llu lanes (%d CTAs x %d warps), a "
      "backend that only checks order, up to %d slots per poll, %s body, %s waits for room; median [min,max] of %d "
      "repeats\n",
      capacity, static_cast<unsigned long long>(per_lane * producers), static_cast<unsigned long long>(producers), ctas,
      warps, batch, body_name(body), doubling ? "doubling" : "spaced", repeats);
  std::printf("%-10s %-28s %-12s %-14s check\n%-10u %8.2f [%.2f,%.2f] M slots/s %10.1f %% %14.1f ok\n", "capacity",
              "drain rate", "empty polls", "taken per poll", capacity, median, lo, hi, empty_median * 100.0,
              per_poll_median);
  std::printf(
      "json: {\"bench\":\"proxy_drain_rate\",\"library\":\"gpushmem\",\"npes\":1,\"size\":%u,\"ctas\":%d,"
      "\"warps\":%d,\"batch\":%d,\"body\":\"%s\",\"wait\":\"%s\",\"requests\":%llu,\"repeats\":%d,\"rate_Mslots\":{"
      "\"median\":%.4f,"
      "\"min\":%.4f,"
      "\"max\":%.4f},\"empty_polls\":%.4f,\"taken_per_poll\":%.2f,\"check\":\"ok\"}\n",
      capacity, ctas, warps, batch, body_name(body), doubling ? "doubling" : "spaced",
      static_cast<unsigned long long>(per_lane * producers), repeats, median, lo, hi, empty_median, per_poll_median);
  return 0;
}
