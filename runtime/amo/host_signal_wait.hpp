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

// Error checks on: `nelems` words at `words` are symmetric (other PEs update them, so they must come from
// shmem_malloc); a NULL pointer with nelems > 0 is reported here too. Once per call, never per poll.
template <class T>
void check_words(const char *call, const char *arg, const T *words, size_t nelems) {
  api::require_running(call);
  if (nelems == 0) return;
  if constexpr (GPUSHMEM_BUILT_WITH_ERROR_CHECKS) {
    Runtime &r = rt();
    if (r.error_checks) (void)api::remote_addr(call, arg, words, nelems * sizeof(T), r.my_pe);
  }
}

// Ends the job when `ptr`, which the call needs for nelems > 0 elements, is NULL.
inline void require_array(const char *call, const char *arg, const void *ptr, size_t nelems) {
  if (ptr == nullptr && nelems != 0) [[unlikely]]
    fail_null(call, arg, nelems);
}

inline void require_comparison(const char *call, int cmp) {
  if (!is_comparison(cmp)) [[unlikely]]
    fail_bad_cmp(call, cmp);
}

// The entry checks of every set form (all / any / some, with or without _vector): cmp first, so an empty
// set does not hide a bad one.
template <class T>
void check_set(const char *call, const T *ivars, size_t nelems, int cmp) {
  require_comparison(call, cmp);
  require_array(call, "ivars", ivars, nelems);
  check_words(call, "ivars", ivars, nelems);
}

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

// The _vector forms need one comparison value per element.
template <class T>
void check_targets(const char *, SameTarget<T>, size_t) {}
template <class T>
void check_targets(const char *call, EachTarget<T> targets, size_t nelems) {
  require_array(call, "cmp_values", targets.values, nelems);
}

inline bool included(const int *status, size_t i) {
  return status == nullptr || status[i] == 0;
}

inline bool empty_set(size_t nelems, const int *status) {
  for (size_t i = 0; i < nelems; ++i)
    if (included(status, i)) return false;
  return true;
}

// `arg` names the word in messages (ivar for the wait family, sig_addr for shmem_signal_wait_until).
template <class T>
T wait_until(const char *call, T *ivar, int cmp, T target, const char *arg = "ivar") {
  T seen{};
  require_comparison(call, cmp);  // a bad cmp fails now, not after the first wait
  check_words(call, arg, ivar, 1);
  sync::wait_until(
      [&] {
        seen = local_word(call, arg, ivar).load(std::memory_order_acquire);
        return compare(call, seen, cmp, target);
      },
      call, -1, "the word to satisfy the comparison (another PE must update it)");
  return seen;
}

// The scans, without checks: the API entry points below check once, then scan (repeatedly, for waits).
template <class T, class Targets>
int scan_all(const char *call, T *ivars, size_t nelems, const int *status, int cmp, Targets targets) {
  // An empty set (nelems 0 or every element excluded) counts as satisfied (the 1.5 erratum).
  for (size_t i = 0; i < nelems; ++i)
    if (included(status, i) && !satisfied(call, &ivars[i], cmp, targets[i])) return 0;
  return 1;
}

// Where the next any-scan starts, per thread: past the element the last one reported, so an element that
// stays satisfied cannot hide the others.
inline thread_local size_t any_cursor = 0;

template <class T, class Targets>
size_t scan_any(const char *call, T *ivars, size_t nelems, const int *status, int cmp, Targets targets) {
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
size_t scan_some(const char *call, T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,
                 Targets targets) {
  size_t count = 0;
  for (size_t i = 0; i < nelems; ++i)
    if (included(status, i) && satisfied(call, &ivars[i], cmp, targets[i])) indices[count++] = i;
  return count;
}

// Entry checks of the set forms: cmp, ivars (symmetric, not NULL), cmp_values for _vector, indices for
// _some (indices == nullptr: not a _some form).
template <class T, class Targets>
void check_set(const char *call, const T *ivars, size_t nelems, int cmp, Targets targets, const size_t *indices,
               bool some) {
  require_comparison(call, cmp);
  require_array(call, "ivars", ivars, nelems);
  check_words(call, "ivars", ivars, nelems);
  check_targets(call, targets, nelems);
  if (some) require_array(call, "indices", indices, nelems);
}

template <class T>
int test(const char *call, T *ivar, int cmp, T target) {
  require_comparison(call, cmp);
  check_words(call, "ivar", ivar, 1);
  return satisfied(call, ivar, cmp, target) ? 1 : 0;
}

template <class T, class Targets>
int test_all(const char *call, T *ivars, size_t nelems, const int *status, int cmp, Targets targets) {
  check_set(call, ivars, nelems, cmp, targets, nullptr, false);
  return scan_all(call, ivars, nelems, status, cmp, targets);
}

template <class T, class Targets>
size_t test_any(const char *call, T *ivars, size_t nelems, const int *status, int cmp, Targets targets) {
  check_set(call, ivars, nelems, cmp, targets, nullptr, false);
  return scan_any(call, ivars, nelems, status, cmp, targets);
}

template <class T, class Targets>
size_t test_some(const char *call, T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,
                 Targets targets) {
  check_set(call, ivars, nelems, cmp, targets, indices, true);
  return scan_some(call, ivars, nelems, indices, status, cmp, targets);
}

template <class T, class Targets>
void wait_until_all(const char *call, T *ivars, size_t nelems, const int *status, int cmp, Targets targets) {
  check_set(call, ivars, nelems, cmp, targets, nullptr, false);
  sync::wait_until([&] { return scan_all(call, ivars, nelems, status, cmp, targets) != 0; }, call, -1,
                   "every included ivars element to satisfy the comparison");
}

template <class T, class Targets>
size_t wait_until_any(const char *call, T *ivars, size_t nelems, const int *status, int cmp, Targets targets) {
  check_set(call, ivars, nelems, cmp, targets, nullptr, false);
  if (empty_set(nelems, status)) return SIZE_MAX;
  size_t found = SIZE_MAX;
  sync::wait_until([&] { return (found = scan_any(call, ivars, nelems, status, cmp, targets)) != SIZE_MAX; }, call, -1,
                   "one included ivars element to satisfy the comparison");
  return found;
}

template <class T, class Targets>
size_t wait_until_some(const char *call, T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,
                       Targets targets) {
  check_set(call, ivars, nelems, cmp, targets, indices, true);
  if (empty_set(nelems, status)) return 0;
  size_t count = 0;
  sync::wait_until([&] { return (count = scan_some(call, ivars, nelems, indices, status, cmp, targets)) != 0; }, call,
                   -1, "some included ivars element to satisfy the comparison");
  return count;
}

}  // namespace gpushmem::amo
