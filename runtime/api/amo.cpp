// Host AMOs for every type of the AMO tables, and the deprecated names, stamped from the type table.
#include "amo/host_amo.hpp"
#include "shmem.h"

using namespace gpushmem;

// A fetching AMO with one operand, its _nbi form (same-node: the fetched value is in *fetch at return, as
// quiet would require) and, with a separate name, its non-fetching form.
// FETCH and PLAIN are whole suffixes (atomic_fetch_and, atomic_and): C++ reserves and, or and xor as operator
// names, which cannot be pasted into identifiers.
#define GPUSHMEM_DEFINE_FETCH_OP(T, N, FETCH, PLAIN, IMPL)                                               \
  GPUSHMEM_EXPORT T shmem_##N##_##FETCH(T *dest, T value, int pe) {                                      \
    return amo::IMPL<T>("shmem_" #N "_" #FETCH, dest, value, pe);                                        \
  }                                                                                                      \
  GPUSHMEM_EXPORT void shmem_##N##_##FETCH##_nbi(T *fetch, T *dest, T value, int pe) {                   \
    T &result = amo::fetch_target("shmem_" #N "_" #FETCH "_nbi", fetch); /* checked before the AMO */    \
    result = amo::IMPL<T>("shmem_" #N "_" #FETCH "_nbi", dest, value, pe);                               \
  }                                                                                                      \
  GPUSHMEM_EXPORT void shmem_##N##_##PLAIN(T *dest, T value, int pe) {                                   \
    (void)amo::IMPL<T>("shmem_" #N "_" #PLAIN, dest, value, pe, 0, false); /* posted over the network */ \
  }

#define GPUSHMEM_DEFINE_AMOX(T, N)                                                                      \
  GPUSHMEM_EXPORT T shmem_##N##_atomic_fetch(const T *source, int pe) {                                 \
    return amo::fetch<T>("shmem_" #N "_atomic_fetch", source, pe);                                      \
  }                                                                                                     \
  GPUSHMEM_EXPORT void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe) {                \
    T &result = amo::fetch_target("shmem_" #N "_atomic_fetch_nbi", fetch); /* checked before the AMO */ \
    result = amo::fetch<T>("shmem_" #N "_atomic_fetch_nbi", source, pe);                                \
  }                                                                                                     \
  GPUSHMEM_EXPORT void shmem_##N##_atomic_set(T *dest, T value, int pe) {                               \
    amo::set<T>("shmem_" #N "_atomic_set", dest, value, pe);                                            \
  }                                                                                                     \
  GPUSHMEM_EXPORT T shmem_##N##_atomic_swap(T *dest, T value, int pe) {                                 \
    return amo::swap<T>("shmem_" #N "_atomic_swap", dest, value, pe);                                   \
  }                                                                                                     \
  GPUSHMEM_EXPORT void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe) {                \
    T &result = amo::fetch_target("shmem_" #N "_atomic_swap_nbi", fetch); /* checked before the AMO */  \
    result = amo::swap<T>("shmem_" #N "_atomic_swap_nbi", dest, value, pe);                             \
  }
GPUSHMEM_AMOX_TYPES(GPUSHMEM_DEFINE_AMOX)

#define GPUSHMEM_DEFINE_AMO(T, N)                                                                              \
  GPUSHMEM_EXPORT T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe) {                        \
    return amo::compare_swap<T>("shmem_" #N "_atomic_compare_swap", dest, cond, value, pe);                    \
  }                                                                                                            \
  GPUSHMEM_EXPORT void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe) {       \
    T &result = amo::fetch_target("shmem_" #N "_atomic_compare_swap_nbi", fetch); /* checked before the AMO */ \
    result = amo::compare_swap<T>("shmem_" #N "_atomic_compare_swap_nbi", dest, cond, value, pe);              \
  }                                                                                                            \
  GPUSHMEM_EXPORT T shmem_##N##_atomic_fetch_inc(T *dest, int pe) {                                            \
    return amo::fetch_add<T>("shmem_" #N "_atomic_fetch_inc", dest, static_cast<T>(1), pe);                    \
  }                                                                                                            \
  GPUSHMEM_EXPORT void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe) {                           \
    T &result = amo::fetch_target("shmem_" #N "_atomic_fetch_inc_nbi", fetch); /* checked before the AMO */    \
    result = amo::fetch_add<T>("shmem_" #N "_atomic_fetch_inc_nbi", dest, static_cast<T>(1), pe);              \
  }                                                                                                            \
  GPUSHMEM_EXPORT void shmem_##N##_atomic_inc(T *dest, int pe) {                                               \
    (void)amo::fetch_add<T>("shmem_" #N "_atomic_inc", dest, static_cast<T>(1), pe, 0, false);                 \
  }                                                                                                            \
  GPUSHMEM_DEFINE_FETCH_OP(T, N, atomic_fetch_add, atomic_add, fetch_add)
GPUSHMEM_AMO_TYPES(GPUSHMEM_DEFINE_AMO)

#define GPUSHMEM_DEFINE_AMOB(T, N)                                        \
  GPUSHMEM_DEFINE_FETCH_OP(T, N, atomic_fetch_and, atomic_and, fetch_and) \
  GPUSHMEM_DEFINE_FETCH_OP(T, N, atomic_fetch_or, atomic_or, fetch_or)    \
  GPUSHMEM_DEFINE_FETCH_OP(T, N, atomic_fetch_xor, atomic_xor, fetch_xor)
GPUSHMEM_AMOB_TYPES(GPUSHMEM_DEFINE_AMOB)

// Deprecated names (no ctx form), the same operations under their pre-1.4 spellings.
#define GPUSHMEM_DEFINE_DEPRECATED_AMOX(T, N)                      \
  GPUSHMEM_EXPORT T shmem_##N##_fetch(const T *source, int pe) {   \
    return amo::fetch<T>("shmem_" #N "_fetch", source, pe);        \
  }                                                                \
  GPUSHMEM_EXPORT void shmem_##N##_set(T *dest, T value, int pe) { \
    amo::set<T>("shmem_" #N "_set", dest, value, pe);              \
  }                                                                \
  GPUSHMEM_EXPORT T shmem_##N##_swap(T *dest, T value, int pe) {   \
    return amo::swap<T>("shmem_" #N "_swap", dest, value, pe);     \
  }
GPUSHMEM_DEPRECATED_AMOX_TYPES(GPUSHMEM_DEFINE_DEPRECATED_AMOX)

#define GPUSHMEM_DEFINE_DEPRECATED_AMO(T, N)                                            \
  GPUSHMEM_EXPORT T shmem_##N##_cswap(T *dest, T cond, T value, int pe) {               \
    return amo::compare_swap<T>("shmem_" #N "_cswap", dest, cond, value, pe);           \
  }                                                                                     \
  GPUSHMEM_EXPORT T shmem_##N##_finc(T *dest, int pe) {                                 \
    return amo::fetch_add<T>("shmem_" #N "_finc", dest, static_cast<T>(1), pe);         \
  }                                                                                     \
  GPUSHMEM_EXPORT void shmem_##N##_inc(T *dest, int pe) {                               \
    (void)amo::fetch_add<T>("shmem_" #N "_inc", dest, static_cast<T>(1), pe, 0, false); \
  }                                                                                     \
  GPUSHMEM_EXPORT T shmem_##N##_fadd(T *dest, T value, int pe) {                        \
    return amo::fetch_add<T>("shmem_" #N "_fadd", dest, value, pe);                     \
  }                                                                                     \
  GPUSHMEM_EXPORT void shmem_##N##_add(T *dest, T value, int pe) {                      \
    (void)amo::fetch_add<T>("shmem_" #N "_add", dest, value, pe, 0, false);             \
  }
GPUSHMEM_DEPRECATED_AMO_TYPES(GPUSHMEM_DEFINE_DEPRECATED_AMO)
