// Symmetric allocation: collective, deterministic (same offsets everywhere), checked across PEs.
#include <cstring>

#include "api/api_common.hpp"
#include "shmem.h"
#include "sync/barrier.hpp"

using namespace gpushmem;

namespace {

enum class Op : uint64_t { malloc = 1, align, free, realloc };

// With error checks on, every PE compares the arguments of this collective call with PE 0's, so a PE
// that allocates a different size (or skips a call) is named instead of silently corrupting memory.
void check_same_arguments(const char *call, Op op, uint64_t a, uint64_t b) {
  Runtime &r = rt();
  if (!r.error_checks || r.n_pes == 1) return;
  const uint64_t mine[3] = {static_cast<uint64_t>(op), a, b};
  std::vector<uint64_t> all(3 * static_cast<size_t>(r.n_pes));
  gpushmem_bootstrap_t *boot = &r.bootstrap.table;
  if (boot->allgather(boot, mine, all.data(), sizeof mine) != GPUSHMEM_BOOTSTRAP_OK)
    api::fail(call, "bootstrap allgather for the argument check failed");
  for (int pe = 0; pe < r.n_pes; ++pe) {
    const uint64_t *theirs = &all[3 * static_cast<size_t>(pe)];
    if (theirs[0] != mine[0])
      api::fail(call,
                "PE %d is in a different symmetric-memory call at the same time (PEs must make the same "
                "sequence of shmem_malloc/shmem_free/... calls)",
                pe);
    if (theirs[1] != mine[1] || theirs[2] != mine[2])
      api::fail(call,
                "arguments differ between PEs: this PE passed (%llu, %llu), PE %d passed (%llu, %llu); every "
                "PE must pass the same values",
                static_cast<unsigned long long>(mine[1]), static_cast<unsigned long long>(mine[2]), pe,
                static_cast<unsigned long long>(theirs[1]), static_cast<unsigned long long>(theirs[2]));
  }
}

uint64_t offset_of(const void *ptr) {
  return static_cast<uint64_t>(static_cast<const char *>(ptr) - rt().heap.base());
}

void *allocate(const char *call, size_t size, size_t alignment) {
  Runtime &r = rt();
  check_same_arguments(call, alignment == 0 ? Op::malloc : Op::align, size, alignment);
  uint64_t offset = 0;
  void *result = nullptr;
  // Identical allocator state on every PE: all succeed or all fail alike.
  if (r.allocator.allocate(size, alignment, &offset)) {
    result = r.heap.base() + offset;
  } else {
    GPUSHMEM_LOG_ERROR(log::Subsys::heap,
                       "%s: cannot allocate %zu bytes%s: %llu of %llu heap bytes are free (largest free block %llu); "
                       "raise SHMEM_SYMMETRIC_SIZE",
                       call, size, alignment != 0 ? " at that alignment" : "",
                       static_cast<unsigned long long>(r.allocator.bytes_free()),
                       static_cast<unsigned long long>(r.allocator.capacity()),
                       static_cast<unsigned long long>(r.allocator.largest_free()));
  }
  sync::barrier_all(call);
  return result;
}

void release(const char *call, void *ptr) {
  Runtime &r = rt();
  const char *p = static_cast<const char *>(ptr);
  if (p < r.heap.base() || p >= r.heap.base() + r.heap.size() || r.allocator.size_of(offset_of(ptr)) == 0)
    api::fail(call,
              "ptr=%p was not returned by shmem_malloc/shmem_align/shmem_calloc/shmem_realloc, or was "
              "already freed",
              ptr);
  check_same_arguments(call, Op::free, offset_of(ptr), 0);
  sync::barrier_all(call);  // no PE may still be writing into the block
  if (!r.allocator.release(offset_of(ptr))) api::fail(call, "internal: block at %p vanished", ptr);
}

}  // namespace

GPUSHMEM_EXPORT void *shmem_malloc(size_t size) {
  api::require_running("shmem_malloc");
  if (size == 0) return nullptr;
  return allocate("shmem_malloc", size, 0);
}

GPUSHMEM_EXPORT void *shmem_malloc_with_hints(size_t size, long hints) {
  api::require_running("shmem_malloc_with_hints");
  if ((hints & ~(SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE)) != 0)
    api::fail("shmem_malloc_with_hints",
              "hints=0x%lx has unknown bits (known: SHMEM_MALLOC_ATOMICS_REMOTE, "
              "SHMEM_MALLOC_SIGNAL_REMOTE)",
              hints);
  if (size == 0) return nullptr;
  return allocate("shmem_malloc_with_hints", size, 0);
}

GPUSHMEM_EXPORT void *shmem_align(size_t alignment, size_t size) {
  api::require_running("shmem_align");
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    api::fail("shmem_align", "alignment=%zu is not a power of two", alignment);
  if (alignment > heap::HostHeap::kBaseAlignment)
    api::fail("shmem_align", "alignment=%zu is larger than the largest supported alignment (%llu bytes)", alignment,
              static_cast<unsigned long long>(heap::HostHeap::kBaseAlignment));
  if (size == 0) return nullptr;
  return allocate("shmem_align", size, alignment);
}

GPUSHMEM_EXPORT void *shmem_calloc(size_t count, size_t size) {
  api::require_running("shmem_calloc");
  if (count == 0 || size == 0) return nullptr;
  if (size > SIZE_MAX / count) {
    GPUSHMEM_LOG_ERROR(log::Subsys::heap, "shmem_calloc: count=%zu * size=%zu overflows", count, size);
    return nullptr;
  }
  void *p = allocate("shmem_calloc", count * size, 0);
  if (p != nullptr) {
    std::memset(p, 0, count * size);
    sync::barrier_all("shmem_calloc");  // no PE writes into the block before every owner has cleared it
  }
  return p;
}

GPUSHMEM_EXPORT void shmem_free(void *ptr) {
  api::require_running("shmem_free");
  if (ptr == nullptr) return;
  release("shmem_free", ptr);
}

GPUSHMEM_EXPORT void *shmem_realloc(void *ptr, size_t size) {
  api::require_running("shmem_realloc");
  if (ptr == nullptr) return size == 0 ? nullptr : allocate("shmem_realloc", size, 0);
  if (size == 0) {
    release("shmem_realloc", ptr);
    return nullptr;
  }
  Runtime &r = rt();
  uint64_t old_size = r.allocator.size_of(offset_of(ptr));
  if (old_size == 0)
    api::fail("shmem_realloc", "ptr=%p was not returned by a symmetric allocation, or was already freed", ptr);
  check_same_arguments("shmem_realloc", Op::realloc, offset_of(ptr), size);
  sync::barrier_all("shmem_realloc");  // nobody is still writing the old block
  uint64_t offset = 0;
  if (!r.allocator.allocate(size, 0, &offset)) {
    GPUSHMEM_LOG_ERROR(log::Subsys::heap,
                       "shmem_realloc: cannot grow to %zu bytes: %llu heap bytes free (largest "
                       "block %llu); the old block is unchanged; raise SHMEM_SYMMETRIC_SIZE",
                       size, static_cast<unsigned long long>(r.allocator.bytes_free()),
                       static_cast<unsigned long long>(r.allocator.largest_free()));
    sync::barrier_all("shmem_realloc");
    return nullptr;
  }
  char *fresh = r.heap.base() + offset;
  std::memmove(fresh, ptr, old_size < size ? old_size : size);
  (void)r.allocator.release(offset_of(ptr));
  sync::barrier_all("shmem_realloc");
  return fresh;
}

GPUSHMEM_EXPORT void *shmalloc(size_t size) {
  return shmem_malloc(size);
}
GPUSHMEM_EXPORT void shfree(void *ptr) {
  shmem_free(ptr);
}
GPUSHMEM_EXPORT void *shrealloc(void *ptr, size_t size) {
  return shmem_realloc(ptr, size);
}
GPUSHMEM_EXPORT void *shmemalign(size_t alignment, size_t size) {
  return shmem_align(alignment, size);
}
