/*
 * Part of gpushmem/compat/nvshmem/nvshmem.h: NVSHMEM names gpushmem has no equivalent for. Using one stops
 * the build with "<name> has no gpushmem equivalent: <why>" instead of mapping it to something that would
 * behave differently. docs/nvshmem-compat.md lists them with what to do instead. (nvshmem_names.h adds the
 * typed forms, by the same macro: the half and bfloat16 types, and typed collectives on a stream.)
 */
#ifndef GPUSHMEM_COMPAT_NVSHMEM_MISSING_H
#define GPUSHMEM_COMPAT_NVSHMEM_MISSING_H

#ifndef GPUSHMEM_COMPAT_NVSHMEM_H
#error "part of <nvshmem.h> (gpushmem/compat/nvshmem): include <nvshmem.h> instead"
#endif

/* An expression that does not compile, naming NAME and saying why. */
#ifdef __cplusplus
#define GPUSHMEMI_NVSHMEM_MISSING(NAME, WHY)                                                                     \
  (                                                                                                              \
      []() {                                                                                                     \
        static_assert(sizeof(char) == 0, #NAME " has no gpushmem equivalent: " WHY " (docs/nvshmem-compat.md)"); \
      }(),                                                                                                       \
      0)
#else
#define GPUSHMEMI_NVSHMEM_MISSING(NAME, WHY)                                                   \
  ((void)sizeof(struct {                                                                       \
     _Static_assert(0, #NAME " has no gpushmem equivalent: " WHY " (docs/nvshmem-compat.md)"); \
     int gpushmemi_unused;                                                                     \
   }),                                                                                         \
   0)
#endif

#define GPUSHMEMI_NO_MULTICAST "gpushmem creates no NVLink multicast objects"
#define nvshmemx_mc_ptr(...) GPUSHMEMI_NVSHMEM_MISSING(nvshmemx_mc_ptr, GPUSHMEMI_NO_MULTICAST)
#define nvshmemx_cumodule_init(...)                                                                     \
  GPUSHMEMI_NVSHMEM_MISSING(nvshmemx_cumodule_init,                                                     \
                            "a module loaded with cuModuleLoad has no host code to receive the device " \
                            "state; compile the kernels into the program (no -rdc needed)")
#define nvshmemx_cumodule_finalize(...) \
  GPUSHMEMI_NVSHMEM_MISSING(nvshmemx_cumodule_finalize, "goes with nvshmemx_cumodule_init")
#define nvshmemx_init_thread_pes(...) \
  GPUSHMEMI_NVSHMEM_MISSING(nvshmemx_init_thread_pes, "PEs are processes in gpushmem, never threads")
#define NVSHMEMX_TEAM_SAME_MYPE_NODE \
  GPUSHMEMI_NVSHMEM_MISSING(NVSHMEMX_TEAM_SAME_MYPE_NODE, "split SHMEM_TEAM_WORLD with shmem_team_split_strided")
#define NVSHMEMX_TEAM_SAME_GPU \
  GPUSHMEMI_NVSHMEM_MISSING(NVSHMEMX_TEAM_SAME_GPU, "split SHMEM_TEAM_WORLD with shmem_team_split_strided")
#define NVSHMEMX_TEAM_GPU_LEADERS \
  GPUSHMEMI_NVSHMEM_MISSING(NVSHMEMX_TEAM_GPU_LEADERS, "split SHMEM_TEAM_WORLD with shmem_team_split_strided")
#define nvshmemx_barrier_on_stream(...)                                                                   \
  GPUSHMEMI_NVSHMEM_MISSING(nvshmemx_barrier_on_stream,                                                   \
                            "OpenSHMEM 1.5 has no team barrier: on a stream, a team's puts are complete " \
                            "in stream order, so nvshmemx_team_sync_on_stream does what it would")

#endif /* GPUSHMEM_COMPAT_NVSHMEM_MISSING_H */
