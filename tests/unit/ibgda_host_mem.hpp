// The IBGDA producer's memory operations for host threads (gpushmem/ibgda_producer.hpp's `Mem`), with
// std::atomic_ref: the emu tests run the device protocol from host threads against the NIC emulator.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>

#include "gpushmem/ibgda_qp.h"
#include "gpushmem/mlx5_format.h"

namespace gpushmem::test {

struct IbgdaHostMem {
  static uint64_t fetch_add(uint64_t *w, uint64_t n) {
    return std::atomic_ref<uint64_t>(*w).fetch_add(n, std::memory_order_relaxed);
  }
  static uint64_t load(const uint64_t *w) {
    return std::atomic_ref<uint64_t>(*const_cast<uint64_t *>(w)).load(std::memory_order_acquire);
  }
  static uint32_t load32(const uint32_t *w) {
    return std::atomic_ref<uint32_t>(*const_cast<uint32_t *>(w)).load(std::memory_order_acquire);
  }
  static void store(uint64_t *w, uint64_t v) { std::atomic_ref<uint64_t>(*w).store(v, std::memory_order_release); }

  static void raise(uint64_t *w, uint64_t v) {
    std::atomic_ref<uint64_t> a(*w);
    uint64_t seen = a.load(std::memory_order_relaxed);
    while (seen < v && !a.compare_exchange_weak(seen, v, std::memory_order_release, std::memory_order_relaxed)) {
    }
  }
  static bool try_lock(uint32_t *w) {
    uint32_t expected = 0;
    return std::atomic_ref<uint32_t>(*w).compare_exchange_strong(expected, 1, std::memory_order_acquire);
  }
  static void unlock(uint32_t *w) { std::atomic_ref<uint32_t>(*w).store(0, std::memory_order_release); }
  static void store_unit(uint8_t *dst, const gpushmem_mlx5_unit_t &u) { std::memcpy(dst, &u, 16); }
  static void store_dbrec(uint32_t *w, uint32_t v) {
    std::atomic_ref<uint32_t>(*w).store(v, std::memory_order_release);
  }
  static void store_doorbell(uint64_t *w, uint64_t v) {
    std::atomic_ref<uint64_t>(*w).store(v, std::memory_order_release);
  }
  static uint32_t load_cqe_tail(const uint8_t *cqe) {
    return std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t *>(const_cast<uint8_t *>(cqe + 60)))
        .load(std::memory_order_acquire);
  }
  static uint8_t load_byte(const uint8_t *p) {
    return std::atomic_ref<uint8_t>(*const_cast<uint8_t *>(p)).load(std::memory_order_relaxed);
  }
  static void record_error(gpushmem_ibgda_qp_words_t *w, uint32_t syndrome, uint64_t index) {
    uint32_t expected = 0;
    if (std::atomic_ref<uint32_t>(w->error).compare_exchange_strong(expected, syndrome, std::memory_order_acq_rel))
      std::atomic_ref<uint64_t>(w->error_index).store(index, std::memory_order_release);
  }
  static uint64_t now_ns() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
  }
  static void backoff(uint32_t *ns) {
    std::this_thread::yield();
    *ns = *ns * 2 < 4096 ? *ns * 2 : 4096;
  }
};

}  // namespace gpushmem::test
