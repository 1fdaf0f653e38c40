/*
 * gpushmem: generic names of the team collectives (C11 _Generic selections, C++ overloads), stamped from the
 * type table. Included by shmem.h after the typed declarations; not meant to be included alone.
 *   shmem_broadcast, shmem_collect, shmem_fcollect, shmem_alltoall, shmem_alltoalls (T-RMA types),
 *   shmem_{and,or,xor,min,max,sum,prod}_reduce (T-RED types), shmem_sync(team).
 * In CUDA files the overloads are host functions (the device API has no generic collective names yet).
 */
#ifndef GPUSHMEM_API_COLLECTIVES_GENERIC_H
#define GPUSHMEM_API_COLLECTIVES_GENERIC_H

#if defined(__cplusplus)
#define GPUSHMEM_OVERLOAD_TEAM_COLL(T, N)                                                                      \
  static inline int shmem_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root) { \
    return shmem_##N##_broadcast(team, dest, source, nelems, PE_root);                                         \
  }                                                                                                            \
  static inline int shmem_collect(shmem_team_t team, T *dest, const T *source, size_t nelems) {                \
    return shmem_##N##_collect(team, dest, source, nelems);                                                    \
  }                                                                                                            \
  static inline int shmem_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems) {               \
    return shmem_##N##_fcollect(team, dest, source, nelems);                                                   \
  }                                                                                                            \
  static inline int shmem_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems) {               \
    return shmem_##N##_alltoall(team, dest, source, nelems);                                                   \
  }                                                                                                            \
  static inline int shmem_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                                    size_t nelems) {                                                           \
    return shmem_##N##_alltoalls(team, dest, source, dst, sst, nelems);                                        \
  }
GPUSHMEM_RMA_GENERIC_TYPES(GPUSHMEM_OVERLOAD_TEAM_COLL)
#undef GPUSHMEM_OVERLOAD_TEAM_COLL
#define GPUSHMEM_OVERLOAD_REDUCE(T, N, OP)                                                             \
  static inline int shmem_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce) { \
    return shmem_##N##_##OP##_reduce(team, dest, source, nreduce);                                     \
  }
#define GPUSHMEM_OVERLOAD_REDUCE_BITWISE(T, N) \
  GPUSHMEM_OVERLOAD_REDUCE(T, N, and) GPUSHMEM_OVERLOAD_REDUCE(T, N, or) GPUSHMEM_OVERLOAD_REDUCE(T, N, xor)
#define GPUSHMEM_OVERLOAD_REDUCE_MINMAX(T, N) GPUSHMEM_OVERLOAD_REDUCE(T, N, min) GPUSHMEM_OVERLOAD_REDUCE(T, N, max)
#define GPUSHMEM_OVERLOAD_REDUCE_ARITH(T, N) GPUSHMEM_OVERLOAD_REDUCE(T, N, sum) GPUSHMEM_OVERLOAD_REDUCE(T, N, prod)
GPUSHMEM_REDUCE_BITWISE_OVERLOAD_TYPES(GPUSHMEM_OVERLOAD_REDUCE_BITWISE)
GPUSHMEM_REDUCE_MINMAX_OVERLOAD_TYPES(GPUSHMEM_OVERLOAD_REDUCE_MINMAX)
GPUSHMEM_REDUCE_MINMAX_OVERLOAD_TYPES(GPUSHMEM_OVERLOAD_REDUCE_ARITH)
#ifdef GPUSHMEMI_HAVE_COMPLEX
GPUSHMEM_REDUCE_COMPLEX_TYPES(GPUSHMEM_OVERLOAD_REDUCE_ARITH)
#endif
#undef GPUSHMEM_OVERLOAD_REDUCE_BITWISE
#undef GPUSHMEM_OVERLOAD_REDUCE_MINMAX
#undef GPUSHMEM_OVERLOAD_REDUCE_ARITH
#undef GPUSHMEM_OVERLOAD_REDUCE
/* shmem_sync(team): the generic name of shmem_team_sync, next to the deprecated active-set function. */
static inline int shmem_sync(shmem_team_t team) {
  return shmem_team_sync(team);
}

#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define GPUSHMEM_GENERIC_broadcast(T, N) , T : shmem_##N##_broadcast
#define GPUSHMEM_GENERIC_collect(T, N) , T : shmem_##N##_collect
#define GPUSHMEM_GENERIC_fcollect(T, N) , T : shmem_##N##_fcollect
#define GPUSHMEM_GENERIC_alltoall(T, N) , T : shmem_##N##_alltoall
#define GPUSHMEM_GENERIC_alltoalls(T, N) , T : shmem_##N##_alltoalls
#define shmem_broadcast(team, dest, source, nelems, PE_root) \
  _Generic (*(dest)GPUSHMEM_GENERIC_SELECTION_TYPES(GPUSHMEM_GENERIC_broadcast))(team, dest, source, nelems, PE_root)
#define shmem_collect(team, dest, source, nelems) \
  _Generic (*(dest)GPUSHMEM_GENERIC_SELECTION_TYPES(GPUSHMEM_GENERIC_collect))(team, dest, source, nelems)
#define shmem_fcollect(team, dest, source, nelems) \
  _Generic (*(dest)GPUSHMEM_GENERIC_SELECTION_TYPES(GPUSHMEM_GENERIC_fcollect))(team, dest, source, nelems)
#define shmem_alltoall(team, dest, source, nelems) \
  _Generic (*(dest)GPUSHMEM_GENERIC_SELECTION_TYPES(GPUSHMEM_GENERIC_alltoall))(team, dest, source, nelems)
#define shmem_alltoalls(team, dest, source, dst, sst, nelems) \
  _Generic (*(dest)GPUSHMEM_GENERIC_SELECTION_TYPES(GPUSHMEM_GENERIC_alltoalls))(team, dest, source, dst, sst, nelems)
#ifdef GPUSHMEMI_HAVE_COMPLEX
#define GPUSHMEMI_GENERIC_SELECTION_COMPLEX(X) X(float _Complex, complexf) X(double _Complex, complexd)
#else
#define GPUSHMEMI_GENERIC_SELECTION_COMPLEX(X)
#endif
#define GPUSHMEM_GENERIC_and_reduce(T, N) , T : shmem_##N##_and_reduce
#define GPUSHMEM_GENERIC_or_reduce(T, N) , T : shmem_##N##_or_reduce
#define GPUSHMEM_GENERIC_xor_reduce(T, N) , T : shmem_##N##_xor_reduce
#define GPUSHMEM_GENERIC_min_reduce(T, N) , T : shmem_##N##_min_reduce
#define GPUSHMEM_GENERIC_max_reduce(T, N) , T : shmem_##N##_max_reduce
#define GPUSHMEM_GENERIC_sum_reduce(T, N) , T : shmem_##N##_sum_reduce
#define GPUSHMEM_GENERIC_prod_reduce(T, N) , T : shmem_##N##_prod_reduce
#define shmem_and_reduce(team, dest, source, nreduce)                                                                \
  _Generic (*(dest)GPUSHMEM_GENERIC_SELECTION_REDUCE_BITWISE_TYPES(GPUSHMEM_GENERIC_and_reduce))(team, dest, source, \
                                                                                                 nreduce)
#define shmem_or_reduce(team, dest, source, nreduce)                                                                \
  _Generic (*(dest)GPUSHMEM_GENERIC_SELECTION_REDUCE_BITWISE_TYPES(GPUSHMEM_GENERIC_or_reduce))(team, dest, source, \
                                                                                                nreduce)
#define shmem_xor_reduce(team, dest, source, nreduce)                                                                \
  _Generic (*(dest)GPUSHMEM_GENERIC_SELECTION_REDUCE_BITWISE_TYPES(GPUSHMEM_GENERIC_xor_reduce))(team, dest, source, \
                                                                                                 nreduce)
#define shmem_min_reduce(team, dest, source, nreduce)                                                               \
  _Generic (*(dest)GPUSHMEM_GENERIC_SELECTION_REDUCE_MINMAX_TYPES(GPUSHMEM_GENERIC_min_reduce))(team, dest, source, \
                                                                                                nreduce)
#define shmem_max_reduce(team, dest, source, nreduce)                                                               \
  _Generic (*(dest)GPUSHMEM_GENERIC_SELECTION_REDUCE_MINMAX_TYPES(GPUSHMEM_GENERIC_max_reduce))(team, dest, source, \
                                                                                                nreduce)
#define shmem_sum_reduce(team, dest, source, nreduce)                                          \
  _Generic (*(dest)GPUSHMEM_GENERIC_SELECTION_REDUCE_MINMAX_TYPES(GPUSHMEM_GENERIC_sum_reduce) \
                GPUSHMEMI_GENERIC_SELECTION_COMPLEX(GPUSHMEM_GENERIC_sum_reduce))(team, dest, source, nreduce)
#define shmem_prod_reduce(team, dest, source, nreduce)                                          \
  _Generic (*(dest)GPUSHMEM_GENERIC_SELECTION_REDUCE_MINMAX_TYPES(GPUSHMEM_GENERIC_prod_reduce) \
                GPUSHMEMI_GENERIC_SELECTION_COMPLEX(GPUSHMEM_GENERIC_prod_reduce))(team, dest, source, nreduce)
/* shmem_sync: one argument is the generic team form (shmem_team_sync), four the deprecated active-set
   function, which (shmem_sync)(...) always names. */
#define GPUSHMEMI_SYNC_SELECT(_1, _2, _3, _4, NAME, ...) NAME
#define shmem_sync(...)                                                                                       \
  GPUSHMEMI_SYNC_SELECT(__VA_ARGS__, (shmem_sync), gpushmemi_no_sync3, gpushmemi_no_sync2, shmem_team_sync, ) \
  (__VA_ARGS__)
#endif

#endif /* GPUSHMEM_API_COLLECTIVES_GENERIC_H */
