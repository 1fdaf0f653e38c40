// Host point-to-point synchronisation and signal words: comparisons, the local atomic view of a word this
// PE waits on, and the set scans (all / any / some) written once over the element type and the way the
// comparison value is given (one for all elements, or one per element for the _vector forms).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "amo/host_amo.hpp"
#include "gpushmem/compare.h"
#include "shmem.h"
#include "sync/wait.hpp"

namespace gpushmem::amo {

// Ends the job: `cmp` is not one of the SHMEM_CMP_* constants.
[[noreturn]] void fail_bad_cmp(const char *call, int cmp);
// Ends the job: sig_op is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD.
[[noreturn]] void fail_bad_sig_op(const char *call, int sig_op);

template <class T>
bool compare(const char *call, T value, int cmp, T target) {
  if (!is_comparison(cmp)) [[unlikely]]
    fail_bad_cmp(call, cmp);
  return compare_values(value, cmp, target);
}

// A word of this PE that other PEs update with AMOs or signals. Acquire loads: once a wait returns, what
// the updating PE wrote before its update is visible here.
template <class T>
std::atomic_ref<T> local_word(const char *call, const char *arg, T *word) {
  api::require_running(call);
  const char *p = reinterpret_cast<const char *>(word);
  if (const char *gpu_base = rt().gpu.base; gpu_base != nullptr && p >= gpu_base && p < gpu_base + rt().gpu.limit)
      [[unlikely]]
    fail_gpu_word(call, arg);
  if (reinterpret_cast<uintptr_t>(word) % alignof(T) != 0) [[unlikely]]
    fail_misaligned(call, arg, word, sizeof(T));
  return std::atomic_ref<T>(*word);
}

template <class T>
bool satisfied(const char *call, T *ivar, int cmp, T target) {
  return compare(call, local_word(call, "ivar", ivar).load(std::memory_order_acquire), cmp, target);
}

// The comparison value of element i: one for the whole set, or cmp_values[i] (_vector forms).
template <class T>
struct SameTarget {
  T value;
  T operator[](size_t) const { return value; }
};
template <class T>
struct EachTarget {
  const T *values;
  T operator[](size_t i) const { return values[i]; }
};

inline bool included(const int *status, size_t i) {
  return status == nullptr || status[i] == 0;
}

inline bool empty_set(size_t nelems, const int *status) {
  for (size_t i = 0; i < nelems; ++i)
    if (included(status, i)) return false;
  return true;
}

template <class T>
T wait_until(const char *call, T *ivar, int cmp, T target) {
  T seen{};
  (void)compare(call, T{}, cmp, target);  // a bad cmp fails now, not after the first wait
  sync::wait_until(
      [&] {
        seen = local_word(call, "ivar", ivar).load(std::memory_order_acquire);
        return compare(call, seen, cmp, target);
      },
      call, -1, "ivar to satisfy the comparison (another PE must update it)");
  return seen;
}

template <class T, class Targets>
int test_all(const char *call, T *ivars, size_t nelems, const int *status, int cmp, Targets targets) {
  // An empty set (nelems 0 or every element excluded) counts as satisfied (the 1.5 erratum).
  for (size_t i = 0; i < nelems; ++i)
    if (included(status, i) && !satisfied(call, &ivars[i], cmp, targets[i])) return 0;
  return 1;
}

// Where the next any-scan starts, per thread: past the element the last one reported, so an element that
// stays satisfied cannot hide the others.
inline thread_local size_t any_cursor = 0;

template <class T, class Targets>
size_t test_any(const char *call, T *ivars, size_t nelems, const int *status, int cmp, Targets targets) {
  if (nelems == 0) return SIZE_MAX;
  size_t start = any_cursor % nelems;
  for (size_t k = 0; k < nelems; ++k) {
    size_t i = (start + k) % nelems;
    if (included(status, i) && satisfied(call, &ivars[i], cmp, targets[i])) {
      any_cursor = i + 1;
      return i;
    }
  }
  return SIZE_MAX;
}

template <class T, class Targets>
size_t test_some(const char *call, T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,
                 Targets targets) {
  size_t count = 0;
  for (size_t i = 0; i < nelems; ++i)
    if (included(status, i) && satisfied(call, &ivars[i], cmp, targets[i])) indices[count++] = i;
  return count;
}

template <class T, class Targets>
void wait_until_all(const char *call, T *ivars, size_t nelems, const int *status, int cmp, Targets targets) {
  sync::wait_until([&] { return test_all(call, ivars, nelems, status, cmp, targets) != 0; }, call, -1,
                   "every included ivars element to satisfy the comparison");
}

template <class T, class Targets>
size_t wait_until_any(const char *call, T *ivars, size_t nelems, const int *status, int cmp, Targets targets) {
  if (empty_set(nelems, status)) return SIZE_MAX;
  size_t found = SIZE_MAX;
  sync::wait_until([&] { return (found = test_any(call, ivars, nelems, status, cmp, targets)) != SIZE_MAX; }, call, -1,
                   "one included ivars element to satisfy the comparison");
  return found;
}

template <class T, class Targets>
size_t wait_until_some(const char *call, T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,
                       Targets targets) {
  if (empty_set(nelems, status)) return 0;
  size_t count = 0;
  sync::wait_until([&] { return (count = test_some(call, ivars, nelems, indices, status, cmp, targets)) != 0; }, call,
                   -1, "some included ivars element to satisfy the comparison");
  return count;
}

}  // namespace gpushmem::amo
