// Symmetric allocation: collective, deterministic (same offsets everywhere), checked across PEs.
#include <atomic>
#include <cstring>

#include "api/api_common.hpp"
#include "coll/rma_layer.hpp"
#include "env/env.hpp"
#include "gpu/gpu.hpp"
#include "shmem.h"
#include "sync/barrier.hpp"

using namespace gpushmem;

namespace {

enum class Op : uint64_t { malloc = 1, align, free, realloc };

// With error checks on, every PE compares the arguments of this collective call with PE 0's, so a PE
// that allocates a different size (or skips a call) is named instead of silently corrupting memory. The
// arguments travel through the heap, not the bootstrap: each PE writes its own into its internal area, a
// barrier, then each reads PE 0's (a load, or one get through the network). The call's own closing barrier
// keeps PE 0 from overwriting them before everyone has read them.
void check_same_arguments(const char *call, Op op, uint64_t a, uint64_t b) {
  Runtime &r = rt();
  if (!r.error_checks || r.n_pes == 1) return;
  static uint64_t calls = 0;  // symmetric-memory calls this PE made; the same on every PE
  uint64_t *mine = r.heap.internal()->memory_call;
  mine[0] = static_cast<uint64_t>(op);
  mine[1] = a;
  mine[2] = b;
  mine[3] = ++calls;
  sync::barrier_all(call);
  uint64_t theirs[4];
  coll::get(theirs, mine, sizeof theirs, 0);
  const int pe = 0;
  if (theirs[0] != mine[0] || theirs[3] != mine[3])
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

// The heap shmem_malloc allocates from: the GPU heap in GPU mode, else the host heap. The allocator's offsets
// count from its base.
char *user_base() {
  Runtime &r = rt();
  return r.gpu.base != nullptr ? r.gpu.base : r.heap.base();
}

bool in_user_heap(const void *ptr) {
  Runtime &r = rt();
  const char *p = static_cast<const char *>(ptr);
  const uint64_t size = r.gpu.base != nullptr ? r.gpu.mapped.load(std::memory_order_relaxed) : r.heap.size();
  return p >= user_base() && p < user_base() + size;
}

uint64_t offset_of(const void *ptr) {
  return static_cast<uint64_t>(static_cast<const char *>(ptr) - user_base());
}

enum class Shortage { none, heap_full, device_full };

// Finds `size` bytes at `alignment` (0: default). In GPU mode a request that does not fit maps more of the
// heap first: every PE makes the same request with the same allocator state, so every PE grows alike.
Shortage allocate_offset(const char *call, uint64_t size, uint64_t alignment, uint64_t *offset) {
  Runtime &r = rt();
  while (!r.allocator.allocate(size, alignment, offset)) {
    if (r.gpu.base == nullptr) return Shortage::heap_full;
    uint64_t added = 0;
    Status s = gpu::grow(call, r.allocator.shortfall(size, alignment), &added);
    if (s == Status::out_of_memory) return Shortage::device_full;
    if (s != Status::ok) api::fail(call, "cannot grow the GPU symmetric heap (see the error above)");
    if (added == 0) return Shortage::heap_full;
    r.allocator.grow(added);
  }
  return Shortage::none;
}

// Free space as the user sees it: in GPU mode the heap can still grow to SHMEM_SYMMETRIC_SIZE.
uint64_t heap_capacity() {
  Runtime &r = rt();
  return r.gpu.base != nullptr ? env::get().SHMEM_SYMMETRIC_SIZE : r.allocator.capacity();
}

// A failed allocation returns NULL (the caller decides), so it is said once per process as a warning (programs
// that probe the largest possible allocation by halving fail many times on purpose); later ones at DEBUG.
void log_shortage(const char *call, Shortage why, size_t size, size_t alignment, const char *consequence) {
  Runtime &r = rt();
  static std::atomic<bool> warned{false};
  const log::Level level = warned.exchange(true) ? log::Level::debug : log::Level::warn;
  if (why == Shortage::device_full) {
    GPUSHMEM_LOG(level, log::Subsys::heap,
                 "%s: cannot allocate %zu bytes: the GPU symmetric heap could not grow because a GPU is out "
                 "of memory (see above)%s; free device memory, lower GPUSHMEM_GPU_HEAP_CHUNK, or run fewer "
                 "PEs per GPU",
                 call, size, consequence);
    return;
  }
  const uint64_t used = r.allocator.bytes_used();
  GPUSHMEM_LOG(level, log::Subsys::heap,
               "%s: cannot allocate %zu bytes%s: %llu of %llu heap bytes are free (largest free block %llu)%s; "
               "raise SHMEM_SYMMETRIC_SIZE",
               call, size, alignment != 0 ? " at that alignment" : "",
               static_cast<unsigned long long>(heap_capacity() - used),
               static_cast<unsigned long long>(heap_capacity()),
               static_cast<unsigned long long>(r.allocator.largest_free()), consequence);
}

void *allocate(const char *call, size_t size, size_t alignment) {
  check_same_arguments(call, alignment == 0 ? Op::malloc : Op::align, size, alignment);
  uint64_t offset = 0;
  void *result = nullptr;
  // Identical allocator state on every PE: all succeed or all fail alike.
  Shortage why = allocate_offset(call, size, alignment, &offset);
  if (why == Shortage::none)
    result = user_base() + offset;
  else
    log_shortage(call, why, size, alignment, "");
  sync::barrier_all(call);
  return result;
}

void release(const char *call, void *ptr) {
  Runtime &r = rt();
  if (!in_user_heap(ptr) || r.allocator.size_of(offset_of(ptr)) == 0)
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
  // Hints are advice: a hint the library cannot use makes the call behave like shmem_malloc. Bits it does not
  // know are named once, never refused.
  static std::atomic<bool> warned{false};
  if ((hints & ~(SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE)) != 0 && !warned.exchange(true))
    GPUSHMEM_LOG_WARN(log::Subsys::heap,
                      "shmem_malloc_with_hints: hints=0x%lx has bits this library does not know (known: "
                      "SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE); they are ignored, as hints are "
                      "advice",
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
    if (rt().gpu.base == nullptr)
      std::memset(p, 0, count * size);
    else if (gpu::zero("shmem_calloc", p, count * size) != Status::ok)
      api::fail("shmem_calloc", "cannot clear the new block on the GPU (the CUDA error is above)");
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
  uint64_t old_size = in_user_heap(ptr) ? r.allocator.size_of(offset_of(ptr)) : 0;
  if (old_size == 0)
    api::fail("shmem_realloc", "ptr=%p was not returned by a symmetric allocation, or was already freed", ptr);
  check_same_arguments("shmem_realloc", Op::realloc, offset_of(ptr), size);
  sync::barrier_all("shmem_realloc");  // nobody is still writing the old block
  uint64_t offset = 0;
  const uint64_t old_offset = offset_of(ptr);
  Shortage why = allocate_offset("shmem_realloc", size, 0, &offset);
  if (why != Shortage::none) {
    log_shortage("shmem_realloc", why, size, 0, "; the old block is unchanged");
    sync::barrier_all("shmem_realloc");
    return nullptr;
  }
  char *fresh = user_base() + offset;
  const size_t keep = old_size < size ? old_size : size;
  if (r.gpu.base == nullptr)
    std::memmove(fresh, ptr, keep);
  else if (gpu::copy("shmem_realloc", fresh, ptr, keep) != Status::ok)
    api::fail("shmem_realloc", "cannot move the block on the GPU (the CUDA error is above)");
  (void)r.allocator.release(old_offset);
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
