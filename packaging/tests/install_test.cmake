# ctest pkg.install: installs the build tree into a private prefix and proves that a program outside the
# project builds and runs from it in each supported way: find_package(gpushmem), pkg-config, gpushmemcc
# and gpushmemc++. Every program runs as one PE without a launcher (the `single` bootstrap).
#
# With NVCC set (a build with CUDA), the CUDA consumer hello.cu is built the same three ways with nvcc (no
# -rdc) and run; without a GPU it only starts and ends (a GPU run proves the kernel's put).
#
# cmake -DBUILD_DIR= -DCONFIG= -DWORK_DIR= -DCONSUMER_DIR= -DGENERATOR= -DC_COMPILER= -DCXX_COMPILER=
#       -DPKG_CONFIG= -DVERSION= -DLIBDIR= -DBINDIR= -DINCLUDEDIR= [-DNVCC= -DCUDA_ARCH=] -P install_test.cmake
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/test_helpers.cmake)

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# Programs must load the installed library and plugins, never the build tree's.
unset(ENV{LD_LIBRARY_PATH})
unset(ENV{GPUSHMEM_BOOTSTRAP_PLUGIN_DIR})
unset(ENV{CMAKE_PREFIX_PATH})
set(ENV{GPUSHMEM_BOOTSTRAP} single)

set(install_config "")
if(CONFIG)
  set(install_config --config ${CONFIG})
endif()
run_step("cmake --install into ${prefix}" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} ${install_config})

foreach(f ${INCLUDEDIR}/shmem.h ${INCLUDEDIR}/shmemx.h ${INCLUDEDIR}/pshmem.h ${INCLUDEDIR}/gpushmem/config.h
          ${INCLUDEDIR}/gpushmem/bootstrap_plugin.h ${LIBDIR}/libgpushmem.so
          ${LIBDIR}/gpushmem/libgpushmem_bootstrap_single.so ${LIBDIR}/cmake/gpushmem/gpushmemConfig.cmake
          ${LIBDIR}/cmake/gpushmem/gpushmemConfigVersion.cmake ${LIBDIR}/pkgconfig/gpushmem.pc
          ${BINDIR}/gpushmemcc ${BINDIR}/gpushmemc++ ${BINDIR}/gpushmem-info
          ${INCLUDEDIR}/gpushmem/compat/nvshmem/nvshmem.h ${INCLUDEDIR}/gpushmem/compat/nvshmem/nvshmemx.h
          ${INCLUDEDIR}/gpushmem/compat/nvshmem/nvshmem_names.h)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "pkg.install: ${f} is missing from the installed tree ${prefix}: check the install() rule "
                        "that should put it there")
  endif()
endforeach()
# 1. find_package(gpushmem) from a separate CMake project (C and C++ consumers).
set(consumer_build ${WORK_DIR}/find_package)
set(cuda_args "")
if(NVCC)
  set(cuda_args -DWITH_CUDA=ON -DCMAKE_CUDA_COMPILER=${NVCC} -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCH})
endif()
run_step("configure the find_package consumer" ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${consumer_build}
         -G ${GENERATOR} -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=${C_COMPILER}
         -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_PREFIX_PATH=${prefix} -DEXPECTED_PREFIX=${prefix}
         -DEXPECTED_VERSION=${VERSION} ${cuda_args})
run_step("build the find_package consumer" ${CMAKE_COMMAND} --build ${consumer_build})
run_consumer(${consumer_build}/consumer_c)
run_consumer(${consumer_build}/consumer_cxx)
if(NVCC)
  run_consumer(${consumer_build}/consumer_cu)
endif()

# 2. pkg-config.
if(PKG_CONFIG)
  set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
  run_step("pkg-config --modversion gpushmem" ${PKG_CONFIG} --modversion gpushmem)
  string(STRIP "${step_output}" modversion)
  if(NOT modversion STREQUAL VERSION)
    message(FATAL_ERROR "pkg.install: pkg-config reports version '${modversion}', the build is ${VERSION}")
  endif()
  run_step("pkg-config --cflags --libs gpushmem" ${PKG_CONFIG} --cflags --libs gpushmem)
  separate_arguments(pc_flags UNIX_COMMAND "${step_output}")
  if(step_output MATCHES "-Wl,")
    message(FATAL_ERROR "pkg.install: pkg-config --libs has a -Wl, option, which nvcc refuses: ${step_output}")
  endif()
  # The same flags, unchanged, with every compiler driver: gcc, g++, clang (when installed) and nvcc.
  run_step("compile hello.c with pkg-config flags" ${C_COMPILER} ${CONSUMER_DIR}/hello.c ${pc_flags} -o
           ${WORK_DIR}/hello_pkgconfig)
  run_consumer(${WORK_DIR}/hello_pkgconfig)
  run_step("compile hello.cpp with pkg-config flags" ${CXX_COMPILER} ${CONSUMER_DIR}/hello.cpp ${pc_flags} -o
           ${WORK_DIR}/hello_pkgconfig_cxx)
  run_consumer(${WORK_DIR}/hello_pkgconfig_cxx)
  find_program(clang_compiler clang)
  if(clang_compiler AND NOT pc_flags MATCHES "-fsanitize")
    run_step("compile hello.c with clang and pkg-config flags" ${clang_compiler} ${CONSUMER_DIR}/hello.c ${pc_flags}
             -o ${WORK_DIR}/hello_pkgconfig_clang)
    run_consumer(${WORK_DIR}/hello_pkgconfig_clang)
  endif()
  if(NVCC)
    run_step("nvcc hello.cu with pkg-config flags" ${NVCC} -arch=sm_${CUDA_ARCH} ${CONSUMER_DIR}/hello.cu ${pc_flags}
             -o ${WORK_DIR}/hello_pkgconfig_cu)
    run_consumer(${WORK_DIR}/hello_pkgconfig_cu)
  endif()
else()
  message(STATUS "pkg.install: pkg-config not found, skipping the pkg-config consumer (install pkg-config)")
endif()

# 3. The installed wrappers, with a one-step build and a separate compile and link.
check_wrappers(${prefix}/${BINDIR} ${WORK_DIR})
run_step("gpushmemcc --nvshmem hello_nvshmem.c" ${prefix}/${BINDIR}/gpushmemcc --nvshmem ${CONSUMER_DIR}/hello_nvshmem.c -o
         ${WORK_DIR}/hello_nvshmem)
run_consumer(${WORK_DIR}/hello_nvshmem)
if(NVCC)
  check_cuda_wrappers(${prefix}/${BINDIR} ${WORK_DIR})
endif()

# 4. gpushmem-info finds the installed plugins from bin/, whether started by path or found through PATH
#    from another folder (the program's own name then has no directory in it).
run_step("installed gpushmem-info" ${prefix}/${BINDIR}/gpushmem-info)
if(NOT step_output MATCHES "plugins found +[^\n]*single")
  message(FATAL_ERROR "pkg.install: installed gpushmem-info does not list the single bootstrap plugin of "
                      "${prefix}/${LIBDIR}/gpushmem:\n${step_output}")
endif()
set(saved_path "$ENV{PATH}")
set(ENV{PATH} "${prefix}/${BINDIR}:$ENV{PATH}")
execute_process(COMMAND gpushmem-info WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
set(ENV{PATH} "${saved_path}")
if(NOT rc STREQUAL "0" OR NOT out MATCHES "plugins found +[^\n]*single")
  message(FATAL_ERROR "pkg.install: gpushmem-info run through PATH (from ${WORK_DIR}) does not find the plugins "
                      "in ${prefix}/${LIBDIR}/gpushmem (boot::plugin_dir must not depend on how the program "
                      "was started):\n${out}\n${err}")
endif()
message(STATUS "pkg.install: every consumer built and ran from ${prefix}")
