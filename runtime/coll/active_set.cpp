// Active-set collectives on sets other than the world (the world is served by the team engine).
#include "coll/active_set.hpp"

#include <atomic>
#include <cstring>

#include "coll/rma_layer.hpp"
#include "coll/strided_copy.hpp"

namespace gpushmem::coll {

void psync_barrier(const char *call, const api::ActiveSet &a, long *pSync) {
  // Publishes this PE's stores (and completes its puts on this path, the network's too) before anyone leaves.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (net::active() != nullptr) [[unlikely]]
    net::quiet(call, transport::Transport::kAllChannels);
  if (a.size == 1) return;
  for (int k = 0, dist = 1; dist < a.size; ++k, dist <<= 1) {
    const int to = a.pe((a.me + dist) % a.size);
    const int from = a.pe((a.me - dist + a.size) % a.size);
    // Release: this PE's earlier stores are visible to `to` once it sees the arrival.
    static_assert(sizeof(long) == sizeof(uint64_t), "pSync words are 64-bit (LP64)");
    add(reinterpret_cast<uint64_t *>(&pSync[k]), 1, to);
    std::atomic_ref<long> mine(pSync[k]);
    if (mine.load(std::memory_order_acquire) < 1)
      sync::wait_until([&] { return mine.load(std::memory_order_acquire) >= 1; }, call, from,
                       "its arrival at the active-set barrier (pSync)");
    mine.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void set_broadcast(const char *call, const api::ActiveSet &a, void *dest, const void *source, size_t bytes, int root,
                   long *pSync) {
  psync_barrier(call, a, pSync);
  if (a.me != root && bytes != 0) get(dest, source, bytes, a.pe(root));
  psync_barrier(call, a, pSync);
}

void set_fcollect(const char *call, const api::ActiveSet &a, void *dest, const void *source, size_t bytes,
                  long *pSync) {
  psync_barrier(call, a, pSync);
  char *d = static_cast<char *>(dest);
  for (int j = 0; j < a.size && bytes != 0; ++j) {
    if (j == a.me)
      std::memcpy(d + size_t(j) * bytes, source, bytes);
    else
      get(d + size_t(j) * bytes, source, bytes, a.pe(j));
  }
  psync_barrier(call, a, pSync);
}

void set_collect(const char *call, const api::ActiveSet &a, void *dest, const void *source, size_t bytes, long *pSync) {
  // Each member's byte count sits in its own pSync[kPsyncCount] between the two barriers.
  pSync[kPsyncCount] = static_cast<long>(bytes);
  psync_barrier(call, a, pSync);
  char *d = static_cast<char *>(dest);
  size_t offset = 0;
  for (int j = 0; j < a.size; ++j) {
    long len = bytes;
    if (j != a.me) get(&len, &pSync[kPsyncCount], sizeof len, a.pe(j));
    if (len > 0) {
      if (j == a.me)
        std::memcpy(d + offset, source, size_t(len));
      else
        get(d + offset, source, size_t(len), a.pe(j));
    }
    offset += size_t(len);
  }
  psync_barrier(call, a, pSync);
  pSync[kPsyncCount] = 0;  // SHMEM_SYNC_VALUE
}

void set_alltoalls(const char *call, const api::ActiveSet &a, void *dest, const void *source, ptrdiff_t dst,
                   ptrdiff_t sst, size_t nelems, size_t elem, long *pSync) {
  psync_barrier(call, a, pSync);
  char *d = static_cast<char *>(dest);
  const ptrdiff_t block = ptrdiff_t(nelems), esz = ptrdiff_t(elem);
  for (int j = 0; j < a.size && nelems != 0; ++j) {
    const char *s = static_cast<const char *>(source) + a.me * block * sst * esz;
    if (j == a.me)
      strided(d + j * block * dst * esz, dst, s, sst, nelems, elem);
    else
      get_strided(d + j * block * dst * esz, dst, s, sst, nelems, elem, a.pe(j));
  }
  psync_barrier(call, a, pSync);
}

}  // namespace gpushmem::coll
