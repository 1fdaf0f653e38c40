// Host-initiated operations on another PE's GPU heap through the network, with data checks (run as 2 PEs on one
// GPU, in two virtual hosts: the peer's heap is not mapped here, so every byte goes through the network transport
// and the target's memory agent; every host atomic targets the other PE, since host atomics on a GPU word reached
// through a mapping are refused):
//   putmem / getmem (blocking and nbi) of 1 B .. 3 MiB, from and into host buffers and device buffers
//   (staged through host memory); typed p / g; strided iput / iget; every atomic on a GPU-heap word, also
//   while the owner's kernel updates the same word with device atomics; putmem_signal of 3 MiB from a
//   device buffer that the target's kernel waits for with shmem_signal_wait_until and then checks on the
//   GPU (the signal lands after the payload); the host team collectives on GPU-heap buffers.
#include <cuda_runtime.h>
#include <shmem.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "device_api_common.cuh"  // CUDA_CHECK, pe_check.h

namespace {

constexpr size_t kMaxBytes = 3u << 20;  // above the 1 MiB staging and agent chunks
const size_t kSizes[] = {1, 8, 4097, 1u << 20, kMaxBytes};

unsigned char pattern(int writer, int round, size_t k) {
  return static_cast<unsigned char>(writer * 37 + round * 11 + k * 7 + 3);
}

std::vector<unsigned char> make_pattern(int writer, int round, size_t n) {
  std::vector<unsigned char> v(n);
  for (size_t k = 0; k < n; ++k) v[k] = pattern(writer, round, k);
  return v;
}

void expect_pattern(const char *what, const unsigned char *got, size_t n, int writer, int round) {
  long bad = 0;
  for (size_t k = 0; k < n; ++k) {
    if (got[k] == pattern(writer, round, k)) continue;
    if (bad++ < 3)
      PE_FAIL("%s (%zu bytes): byte %zu: expected 0x%02x (PE %d's), got 0x%02x", what, n, k, pattern(writer, round, k),
              writer, got[k]);
  }
  if (bad > 3) PE_FAIL("%s (%zu bytes): %ld bytes differ in all", what, n, bad);
}

// What this PE's GPU heap holds at `sym` (the owner's view, through the copy engine).
std::vector<unsigned char> read_own(const void *sym, size_t n) {
  std::vector<unsigned char> v(n);
  CUDA_CHECK(cudaMemcpy(v.data(), sym, n, cudaMemcpyDeviceToHost));
  return v;
}

bool is_device_memory(const void *p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeDevice;
}

// Device atomics on the owner's word while a peer updates it through the network.
__global__ void add_from_device(long *word, int times) {
  for (int i = 0; i < times; ++i) shmem_long_atomic_add(word, 1, shmem_my_pe());
}

// Waits for the signal, then checks the payload on the GPU: *bad receives the mismatching bytes.
__global__ void wait_and_check(const unsigned char *data, size_t n, uint64_t *sig, int writer, int round,
                               unsigned long long *bad) {
  if (threadIdx.x == 0) shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 1);
  __syncthreads();
  unsigned long long local_bad = 0;
  for (size_t k = threadIdx.x; k < n; k += blockDim.x)
    if (data[k] != static_cast<unsigned char>(writer * 37 + round * 11 + k * 7 + 3)) ++local_bad;
  if (local_bad != 0) atomicAdd(bad, local_bad);
}

void rma(int me, int next, int prev) {
  auto *dst = static_cast<unsigned char *>(shmem_malloc(kMaxBytes));
  PE_CHECK(dst != nullptr && is_device_memory(dst), "shmem_malloc(%zu) did not return GPU memory", kMaxBytes);
  unsigned char *dev_buf = nullptr;
  CUDA_CHECK(cudaMalloc(&dev_buf, kMaxBytes));
  int round = 0;
  for (size_t n : kSizes) {
    for (int from_device = 0; from_device < 2; ++from_device, ++round) {
      for (int nbi = 0; nbi < 2; ++nbi) {
        const int r = round * 2 + nbi;
        std::vector<unsigned char> src = make_pattern(me, r, n);
        const void *source = src.data();
        if (from_device) {
          CUDA_CHECK(cudaMemcpy(dev_buf, src.data(), n, cudaMemcpyHostToDevice));
          // A pageable host-to-device cudaMemcpy may still be in flight when it returns; the runtime reads
          // device buffers on a stream of its own (docs/architecture.md).
          CUDA_CHECK(cudaDeviceSynchronize());
          source = dev_buf;
        }
        if (nbi) {
          shmem_putmem_nbi(dst, source, n, next);
          shmem_quiet();
        } else {
          shmem_putmem(dst, source, n, next);
        }
        shmem_barrier_all();
        char what[96];
        std::snprintf(what, sizeof what, "putmem%s from a %s buffer", nbi ? "_nbi" : "",
                      from_device ? "device" : "host");
        std::vector<unsigned char> got = read_own(dst, n);
        expect_pattern(what, got.data(), n, prev, r);
        // Read it back from the writer's side: the next PE holds what this PE wrote.
        std::vector<unsigned char> back(n, 0);
        if (from_device) {
          CUDA_CHECK(cudaMemset(dev_buf, 0, n));
          CUDA_CHECK(cudaDeviceSynchronize());
          if (nbi) {
            shmem_getmem_nbi(dev_buf, dst, n, next);
            shmem_quiet();
          } else {
            shmem_getmem(dev_buf, dst, n, next);
          }
          CUDA_CHECK(cudaMemcpy(back.data(), dev_buf, n, cudaMemcpyDeviceToHost));
        } else if (nbi) {
          shmem_getmem_nbi(back.data(), dst, n, next);
          shmem_quiet();
        } else {
          shmem_getmem(back.data(), dst, n, next);
        }
        std::snprintf(what, sizeof what, "getmem%s into a %s buffer", nbi ? "_nbi" : "",
                      from_device ? "device" : "host");
        expect_pattern(what, back.data(), n, me, r);
        shmem_barrier_all();
      }
    }
  }
  CUDA_CHECK(cudaFree(dev_buf));
  shmem_free(dst);
}

void typed(int me, int next, int prev) {
  auto *words = static_cast<long *>(shmem_calloc(64, sizeof(long)));
  shmem_long_p(&words[3], 1000L + me, next);
  shmem_barrier_all();
  long seen = 0;
  CUDA_CHECK(cudaMemcpy(&seen, &words[3], sizeof seen, cudaMemcpyDeviceToHost));
  PE_CHECK(seen == 1000L + prev, "shmem_long_p: word 3 holds %ld, expected %ld", seen, 1000L + prev);
  long g = shmem_long_g(&words[3], next);
  PE_CHECK(g == 1000L + me, "shmem_long_g from PE %d: %ld, expected %ld", next, g, 1000L + me);
  // Strided: elements 0, 3, 6, ... of words[16..] from every second element of a host array.
  int src[20];
  for (int k = 0; k < 20; ++k) src[k] = me * 100 + k;
  auto *ints = static_cast<int *>(shmem_calloc(64, sizeof(int)));
  shmem_barrier_all();
  shmem_int_iput(ints, src, 3, 2, 10, next);
  shmem_barrier_all();
  int own[64];
  CUDA_CHECK(cudaMemcpy(own, ints, sizeof own, cudaMemcpyDeviceToHost));
  for (int k = 0; k < 10; ++k)
    PE_CHECK(own[3 * k] == prev * 100 + 2 * k, "shmem_int_iput: element %d holds %d, expected %d", 3 * k, own[3 * k],
             prev * 100 + 2 * k);
  PE_CHECK(own[1] == 0 && own[2] == 0, "shmem_int_iput wrote between the strides: %d %d", own[1], own[2]);
  int gathered[10] = {};
  shmem_int_iget(gathered, ints, 1, 3, 10, next);
  for (int k = 0; k < 10; ++k)
    PE_CHECK(gathered[k] == me * 100 + 2 * k, "shmem_int_iget: element %d is %d, expected %d", k, gathered[k],
             me * 100 + 2 * k);
  shmem_barrier_all();
  shmem_free(ints);
  shmem_free(words);
}

void atomics(int me, int npes) {
  auto *w = static_cast<long *>(shmem_calloc(8, sizeof(long)));
  auto *u = static_cast<unsigned int *>(shmem_calloc(8, sizeof(unsigned int)));
  constexpr int kAdds = 200;
  constexpr int kDeviceAdds = 20000;
  const int owner = 0;
  // PE 0's kernel adds to w[0] with device atomics while every other PE adds to it through the network.
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  if (me == owner) add_from_device<<<1, 32, 0, stream>>>(&w[0], kDeviceAdds);
  shmem_barrier_all();
  if (me != owner)
    for (int i = 0; i < kAdds; ++i) {
      if (i % 2 == 0)
        shmem_long_atomic_add(&w[0], 1, owner);
      else
        (void)shmem_long_atomic_fetch_inc(&w[0], owner);
    }
  if (me == owner) CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
  shmem_barrier_all();
  const long expect = 32L * kDeviceAdds + static_cast<long>(npes - 1) * kAdds;
  long total = 0;
  if (me == owner)
    CUDA_CHECK(cudaMemcpy(&total, &w[0], sizeof total, cudaMemcpyDeviceToHost));
  else
    total = shmem_long_atomic_fetch(&w[0], owner);
  PE_CHECK(total == expect, "atomic adds on PE %d's GPU word: %ld, expected %ld (device %ld + network %ld)", owner,
           total, expect, 32L * kDeviceAdds, static_cast<long>(npes - 1) * kAdds);
  shmem_barrier_all();
  // One PE at a time: swap, compare-swap (failing, then succeeding), set, and the bitwise ops on 32 bits.
  for (int turn = 0; turn < npes; ++turn) {
    if (me == turn) {
      const int target = (me + 1) % npes;
      long old = shmem_long_atomic_swap(&w[1], 10L + me, target);
      PE_CHECK(old == 0, "swap on a fresh word returned %ld, expected 0", old);
      long miss = shmem_long_atomic_compare_swap(&w[2], -1L, 5L, target);
      long hit = shmem_long_atomic_compare_swap(&w[2], miss, miss + 7, target);
      PE_CHECK(hit == miss, "compare_swap that should succeed returned %ld, expected %ld", hit, miss);
      shmem_long_atomic_set(&w[3], 42L + me, target);
      PE_CHECK(shmem_long_atomic_fetch(&w[3], target) == 42L + me, "atomic_set then fetch: %ld",
               shmem_long_atomic_fetch(&w[3], target));
      shmem_uint_atomic_set(&u[0], 0xf0f0u, target);
      shmem_uint_atomic_or(&u[0], 0x000fu, target);
      unsigned int a = shmem_uint_atomic_fetch_and(&u[0], 0xff0fu, target);
      PE_CHECK(a == 0xf0ffu, "fetch_and returned 0x%x, expected 0xf0ff", a);
      unsigned int x = shmem_uint_atomic_fetch_xor(&u[0], 0x1u, target);
      PE_CHECK(x == 0xf00fu, "fetch_xor returned 0x%x, expected 0xf00f", x);
      PE_CHECK(shmem_uint_atomic_fetch(&u[0], target) == 0xf00eu, "after xor: 0x%x, expected 0xf00e",
               shmem_uint_atomic_fetch(&u[0], target));
    }
    shmem_barrier_all();
  }
  long mine[4];
  CUDA_CHECK(cudaMemcpy(mine, w, sizeof mine, cudaMemcpyDeviceToHost));
  const int writer = (me + npes - 1) % npes;
  PE_CHECK(mine[1] == 10L + writer, "w[1] after swap: %ld, expected %ld", mine[1], 10L + writer);
  PE_CHECK(mine[2] == 7, "w[2] after compare_swap: %ld, expected 7", mine[2]);
  PE_CHECK(mine[3] == 42L + writer, "w[3] after set: %ld, expected %ld", mine[3], 42L + writer);
  shmem_barrier_all();
  shmem_free(u);
  shmem_free(w);
}

void put_signal(int me, int next, int prev) {
  auto *data = static_cast<unsigned char *>(shmem_malloc(kMaxBytes));
  auto *sig = static_cast<uint64_t *>(shmem_calloc(1, sizeof(uint64_t)));
  unsigned char *dev_src = nullptr;
  unsigned long long *bad = nullptr;
  CUDA_CHECK(cudaMalloc(&dev_src, kMaxBytes));
  CUDA_CHECK(cudaMalloc(&bad, sizeof *bad));
  CUDA_CHECK(cudaMemset(bad, 0, sizeof *bad));
  CUDA_CHECK(cudaMemset(data, 0, kMaxBytes));
  std::vector<unsigned char> src = make_pattern(me, 99, kMaxBytes);
  CUDA_CHECK(cudaMemcpy(dev_src, src.data(), kMaxBytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaDeviceSynchronize());
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  // The waiter runs before the payload leaves the peer.
  wait_and_check<<<1, 256, 0, stream>>>(data, kMaxBytes, sig, prev, 99, bad);
  shmem_barrier_all();
  shmem_putmem_signal(data, dev_src, kMaxBytes, sig, 1, SHMEM_SIGNAL_SET, next);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  unsigned long long mismatches = 0;
  CUDA_CHECK(cudaMemcpy(&mismatches, bad, sizeof mismatches, cudaMemcpyDeviceToHost));
  PE_CHECK(mismatches == 0, "putmem_signal of %zu bytes from PE %d: %llu bytes wrong when the signal was seen",
           kMaxBytes, prev, mismatches);
  CUDA_CHECK(cudaStreamDestroy(stream));
  shmem_barrier_all();
  // From a host buffer, the signal added: 8 bytes and the signal, read by their owner.
  const uint64_t word = 0x1122334455667788ull + static_cast<uint64_t>(me);
  shmem_putmem_signal(data, &word, sizeof word, sig, 5, SHMEM_SIGNAL_ADD, next);
  shmem_barrier_all();
  uint64_t v = 0, w = 0;
  CUDA_CHECK(cudaMemcpy(&v, sig, sizeof v, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(&w, data, sizeof w, cudaMemcpyDeviceToHost));
  PE_CHECK(v == 6, "signal after set 1 and add 5: %llu", static_cast<unsigned long long>(v));
  PE_CHECK(w == 0x1122334455667788ull + static_cast<uint64_t>(prev), "putmem_signal of 8 bytes: 0x%llx",
           static_cast<unsigned long long>(w));
  shmem_barrier_all();
  CUDA_CHECK(cudaFree(bad));
  CUDA_CHECK(cudaFree(dev_src));
  shmem_free(sig);
  shmem_free(data);
}

// The host team collectives on GPU-heap buffers (coll/rma_coll.cpp): broadcast, fcollect, collect, alltoall, an
// int sum reduction in place and a double max out of place, on SHMEM_TEAM_WORLD, each checked through cudaMemcpy.
void collectives(int me, int npes) {
  constexpr size_t kN = 300000;  // the double reduction's share is above one 1 MiB piece on 2 PEs
  auto *a = static_cast<int *>(shmem_malloc(kN * sizeof(int) * static_cast<size_t>(npes)));
  auto *b = static_cast<int *>(shmem_malloc(kN * sizeof(int) * static_cast<size_t>(npes)));
  auto *x = static_cast<double *>(shmem_malloc(kN * sizeof(double)));
  auto *y = static_cast<double *>(shmem_malloc(kN * sizeof(double)));
  PE_CHECK(a != nullptr && b != nullptr && x != nullptr && y != nullptr, "shmem_malloc for the collectives failed");
  if (a == nullptr || b == nullptr || x == nullptr || y == nullptr) return;
  const size_t all = kN * static_cast<size_t>(npes);
  std::vector<int> host(all), back(all);
  auto put = [](void *dev, const void *h, size_t bytes) { CUDA_CHECK(cudaMemcpy(dev, h, bytes, cudaMemcpyDefault)); };
  auto get = [](void *h, const void *dev, size_t bytes) { CUDA_CHECK(cudaMemcpy(h, dev, bytes, cudaMemcpyDefault)); };

  for (size_t i = 0; i < kN; ++i) host[i] = me * 1000003 + static_cast<int>(i);
  put(a, host.data(), kN * sizeof(int));
  shmem_int_broadcast(SHMEM_TEAM_WORLD, b, a, kN, npes - 1);
  get(back.data(), b, kN * sizeof(int));
  for (size_t i = 0; i < kN; ++i)
    if (back[i] != (npes - 1) * 1000003 + static_cast<int>(i)) {
      PE_FAIL("broadcast on GPU buffers: element %zu is %d", i, back[i]);
      break;
    }
  shmem_int_fcollect(SHMEM_TEAM_WORLD, b, a, kN);
  get(back.data(), b, all * sizeof(int));
  for (size_t i = 0; i < all; ++i)
    if (back[i] != static_cast<int>(i / kN) * 1000003 + static_cast<int>(i % kN)) {
      PE_FAIL("fcollect on GPU buffers: element %zu is %d", i, back[i]);
      break;
    }
  // Member k brings k elements: member 0 none, and its source is NULL (every member must still take the path
  // for GPU buffers, which dest decides).
  const size_t mine = static_cast<size_t>(me);
  shmem_int_collect(SHMEM_TEAM_WORLD, b, me == 0 ? nullptr : a, mine);
  get(back.data(), b, all * sizeof(int));
  for (int k = 0, at = 0; k < npes; at += k, ++k)
    for (int i = 0; i < k; ++i)
      PE_CHECK(back[static_cast<size_t>(at + i)] == k * 1000003 + i,
               "collect on GPU buffers: member %d element %d is %d", k, i, back[static_cast<size_t>(at + i)]);
  for (size_t i = 0; i < all; ++i) host[i] = me * 1000003 + static_cast<int>(i);
  put(a, host.data(), all * sizeof(int));
  shmem_int_alltoall(SHMEM_TEAM_WORLD, b, a, kN);
  get(back.data(), b, all * sizeof(int));
  for (size_t i = 0; i < all; ++i) {
    const size_t from = i / kN, at = static_cast<size_t>(me) * kN + i % kN;
    if (back[i] != static_cast<int>(from) * 1000003 + static_cast<int>(at)) {
      PE_FAIL("alltoall on GPU buffers: element %zu is %d", i, back[i]);
      break;
    }
  }
  for (size_t i = 0; i < kN; ++i) host[i] = me + static_cast<int>(i % 1000);
  put(a, host.data(), kN * sizeof(int));
  shmem_int_sum_reduce(SHMEM_TEAM_WORLD, a, a, kN);  // in place
  get(back.data(), a, kN * sizeof(int));
  for (size_t i = 0; i < kN; ++i)
    if (back[i] != npes * (npes - 1) / 2 + npes * static_cast<int>(i % 1000)) {
      PE_FAIL("sum reduction in place on GPU buffers: element %zu is %d", i, back[i]);
      break;
    }
  std::vector<double> dh(kN), dback(kN);
  for (size_t i = 0; i < kN; ++i) dh[i] = 0.5 * ((me + static_cast<int>(i)) % npes) + static_cast<double>(i);
  put(x, dh.data(), kN * sizeof(double));
  shmem_double_max_reduce(SHMEM_TEAM_WORLD, y, x, kN);
  get(dback.data(), y, kN * sizeof(double));
  for (size_t i = 0; i < kN; ++i)
    if (dback[i] != 0.5 * (npes - 1) + static_cast<double>(i)) {
      PE_FAIL("max reduction on GPU buffers: element %zu is %g", i, dback[i]);
      break;
    }
  shmem_barrier_all();
  shmem_free(y);
  shmem_free(x);
  shmem_free(b);
  shmem_free(a);
}

}  // namespace

int main() {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  rma(me, next, prev);
  typed(me, next, prev);
  atomics(me, npes);
  put_signal(me, next, prev);
  collectives(me, npes);
  return pe_finish("net_gpu_heap");
}
