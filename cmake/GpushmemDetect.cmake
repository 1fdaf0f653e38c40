# Detects optional dependencies once; sets GPUSHMEM_HAVE_<X> used as option defaults.
find_package(PkgConfig QUIET)

find_package(MPI QUIET COMPONENTS C)
set(GPUSHMEM_HAVE_MPI ${MPI_C_FOUND})

set(GPUSHMEM_HAVE_PMIX OFF)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(PMIX QUIET IMPORTED_TARGET pmix)
  if(PMIX_FOUND)
    set(GPUSHMEM_HAVE_PMIX ON)
  endif()
endif()

set(GPUSHMEM_HAVE_CUDA OFF)
include(CheckLanguage)
if(NOT DEFINED CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
endif()
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
  set(GPUSHMEM_HAVE_CUDA ON)
endif()

set(GPUSHMEM_HAVE_IBVERBS OFF)
find_path(GPUSHMEM_IBVERBS_INCLUDE infiniband/verbs.h)
find_library(GPUSHMEM_IBVERBS_LIB ibverbs)
find_path(GPUSHMEM_MLX5DV_INCLUDE infiniband/mlx5dv.h)
if(GPUSHMEM_IBVERBS_INCLUDE AND GPUSHMEM_MLX5DV_INCLUDE)
  set(GPUSHMEM_HAVE_IBVERBS ON)
endif()

# UCX: only its headers at build time; the library (libucp.so.0) is loaded at run time by the ucx transport,
# so libgpushmem starts without it and a job that needs the network says what to install.
set(GPUSHMEM_HAVE_UCX OFF)
find_path(GPUSHMEM_UCX_INCLUDE ucp/api/ucp.h DOC "Folder holding UCX's ucp/api/ucp.h")
if(GPUSHMEM_UCX_INCLUDE)
  set(GPUSHMEM_HAVE_UCX ON)
endif()
