/*
 * gpushmem: the deprecated generic AMO names of OpenSHMEM 1.5 (shmem_fetch, shmem_set, shmem_swap over float,
 * double, int, long, long long; shmem_cswap, shmem_finc, shmem_inc, shmem_fadd, shmem_add over int, long,
 * long long). Included by <shmem.h> after its typed declarations; not meant to be included alone. C11:
 * _Generic selections on the pointed-to type; C++: overloads. Each forwards to the deprecated typed name
 * (shmem_int_cswap, ...), which behaves as the shmem_TYPE_atomic_* routine of the same operation.
 */
#ifndef GPUSHMEM_API_AMO_DEPRECATED_GENERIC_H
#define GPUSHMEM_API_AMO_DEPRECATED_GENERIC_H

#if defined(__cplusplus)
#define GPUSHMEM_OVERLOAD_DEPRECATED_AMOX(T, N)            \
  static inline T shmem_fetch(const T *source, int pe) {   \
    return shmem_##N##_fetch(source, pe);                  \
  }                                                        \
  static inline void shmem_set(T *dest, T value, int pe) { \
    shmem_##N##_set(dest, value, pe);                      \
  }                                                        \
  static inline T shmem_swap(T *dest, T value, int pe) {   \
    return shmem_##N##_swap(dest, value, pe);              \
  }
#define GPUSHMEM_OVERLOAD_DEPRECATED_AMO(T, N)                    \
  static inline T shmem_cswap(T *dest, T cond, T value, int pe) { \
    return shmem_##N##_cswap(dest, cond, value, pe);              \
  }                                                               \
  static inline T shmem_finc(T *dest, int pe) {                   \
    return shmem_##N##_finc(dest, pe);                            \
  }                                                               \
  static inline void shmem_inc(T *dest, int pe) {                 \
    shmem_##N##_inc(dest, pe);                                    \
  }                                                               \
  static inline T shmem_fadd(T *dest, T value, int pe) {          \
    return shmem_##N##_fadd(dest, value, pe);                     \
  }                                                               \
  static inline void shmem_add(T *dest, T value, int pe) {        \
    shmem_##N##_add(dest, value, pe);                             \
  }
GPUSHMEM_DEPRECATED_AMOX_TYPES(GPUSHMEM_OVERLOAD_DEPRECATED_AMOX)
GPUSHMEM_DEPRECATED_AMO_TYPES(GPUSHMEM_OVERLOAD_DEPRECATED_AMO)
#undef GPUSHMEM_OVERLOAD_DEPRECATED_AMOX
#undef GPUSHMEM_OVERLOAD_DEPRECATED_AMO
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* The selections are written out here (not stamped from GPUSHMEM_DEPRECATED_AMO*_TYPES) so that code stamped
   from those lists may still call these names: a macro is not expanded inside its own expansion. */
#define shmem_fetch(source, pe)          \
  _Generic(*(source), float              \
           : shmem_float_fetch, double   \
           : shmem_double_fetch, int     \
           : shmem_int_fetch, long       \
           : shmem_long_fetch, long long \
           : shmem_longlong_fetch)(source, pe)
#define shmem_set(dest, value, pe)     \
  _Generic(*(dest), float              \
           : shmem_float_set, double   \
           : shmem_double_set, int     \
           : shmem_int_set, long       \
           : shmem_long_set, long long \
           : shmem_longlong_set)(dest, value, pe)
#define shmem_swap(dest, value, pe)     \
  _Generic(*(dest), float               \
           : shmem_float_swap, double   \
           : shmem_double_swap, int     \
           : shmem_int_swap, long       \
           : shmem_long_swap, long long \
           : shmem_longlong_swap)(dest, value, pe)
#define shmem_cswap(dest, cond, value, pe) \
  _Generic(*(dest), int                    \
           : shmem_int_cswap, long         \
           : shmem_long_cswap, long long   \
           : shmem_longlong_cswap)(dest, cond, value, pe)
#define shmem_finc(dest, pe) \
  _Generic(*(dest), int : shmem_int_finc, long : shmem_long_finc, long long : shmem_longlong_finc)(dest, pe)
#define shmem_inc(dest, pe) \
  _Generic(*(dest), int : shmem_int_inc, long : shmem_long_inc, long long : shmem_longlong_inc)(dest, pe)
#define shmem_fadd(dest, value, pe) \
  _Generic(*(dest), int : shmem_int_fadd, long : shmem_long_fadd, long long : shmem_longlong_fadd)(dest, value, pe)
#define shmem_add(dest, value, pe) \
  _Generic(*(dest), int : shmem_int_add, long : shmem_long_add, long long : shmem_longlong_add)(dest, value, pe)
#endif

#endif /* GPUSHMEM_API_AMO_DEPRECATED_GENERIC_H */
