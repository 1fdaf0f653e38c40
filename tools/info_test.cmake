# ctest unit.tools.info: gpushmem-info prints the version, the build options, the bootstrap plugins and
# every variable, reports a variable set in its environment, and refuses unknown flags.
#   cmake -DINFO=<gpushmem-info> -DVERSION=<x.y.z> -P info_test.cmake
cmake_minimum_required(VERSION 3.25)

function(info out_var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${out_var}_rc "${rc}" PARENT_SCOPE)
  set(${out_var}_err "${err}" PARENT_SCOPE)
endfunction()

function(expect text what)
  foreach(pattern IN LISTS ARGN)
    string(FIND "${text}" "${pattern}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "gpushmem-info ${what}: expected '${pattern}' in:\n${text}")
    endif()
  endforeach()
endfunction()

unset(ENV{GPUSHMEM_BOOTSTRAP})
unset(ENV{GPUSHMEM_BOOTSTRAP_PLUGIN_DIR})
set(ENV{SHMEM_SYMMETRIC_SIZE} 3G)
info(full ${INFO})
if(NOT full_rc STREQUAL "0")
  message(FATAL_ERROR "gpushmem-info exited with ${full_rc}: ${full_err}")
endif()
expect("${full}" "(no option)" "gpushmem ${VERSION}" "GPUSHMEM_WITH_MPI" "GPUSHMEM_ERROR_CHECKS" "plugins found"
       "single" "* SHMEM_SYMMETRIC_SIZE = 3G")

# Every variable of the table (taken from the Markdown rows) appears in --env.
info(md ${INFO} --markdown)
info(env ${INFO} --env)
string(REGEX MATCHALL "\n\\| `[A-Z_0-9]+`" rows "${md}")
list(LENGTH rows nrows)
if(nrows LESS 1)
  message(FATAL_ERROR "gpushmem-info --markdown printed no variable rows:\n${md}")
endif()
foreach(row IN LISTS rows)
  string(REGEX REPLACE "^\n\\| `([A-Z_0-9]+)`$" "\\1" name "${row}")
  expect("${env}" "--env" " ${name} = ")
endforeach()
string(FIND "${env}" "plugins found" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "gpushmem-info --env printed more than the variables:\n${env}")
endif()

# A malformed value is reported and makes the exit status non-zero.
set(ENV{SHMEM_SYMMETRIC_SIZE} lots)
info(bad ${INFO} --env)
if(bad_rc STREQUAL "0")
  message(FATAL_ERROR "gpushmem-info accepted SHMEM_SYMMETRIC_SIZE=lots without complaint:\n${bad}\n${bad_err}")
endif()
expect("${bad_err}" "malformed SHMEM_SYMMETRIC_SIZE" "SHMEM_SYMMETRIC_SIZE")
unset(ENV{SHMEM_SYMMETRIC_SIZE})

# --ibgda: every requirement checked, with a verdict (here, with no RDMA NIC, the CPU proxy).
info(ibgda ${INFO} --ibgda)
if(NOT ibgda_rc STREQUAL "0")
  message(FATAL_ERROR "gpushmem-info --ibgda exited with ${ibgda_rc}: ${ibgda_err}")
endif()
expect("${ibgda}" "--ibgda" "IBGDA requirements on this host" "rdma-core headers at build time"
       "GPU memory for the NIC (dma-buf)" "doorbell page mappable by the GPU" "verdict: ")
string(REGEX MATCH "verdict: [^\n]*" verdict "${ibgda}")
if(NOT verdict MATCHES "CPU proxy")
  message(FATAL_ERROR "gpushmem-info --ibgda: the verdict does not say where device operations go:\n${ibgda}")
endif()

info(unknown ${INFO} --bogus)
if(unknown_rc STREQUAL "0")
  message(FATAL_ERROR "gpushmem-info accepted an unknown flag")
endif()
message(STATUS "gpushmem-info reports ${nrows} variables")
