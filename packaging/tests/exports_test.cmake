# ctest pkg.exports: libgpushmem.so exports the OpenSHMEM API and nothing else. Internal C++ symbols leaking
# out would let applications bind to them and clash with other libraries.
#
# cmake -DNM=<nm> -DLIBRARY=<libgpushmem.so> -P exports_test.cmake
cmake_minimum_required(VERSION 3.25)

execute_process(COMMAND ${NM} -D --defined-only ${LIBRARY} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "pkg.exports: ${NM} -D --defined-only ${LIBRARY} failed (${rc}): ${err}")
endif()

# The deprecated routines, and their profiling entry points (p + name, as pshmem_* for shmem_*).
set(allowed_exact start_pes _my_pe _num_pes shmalloc shfree shrealloc shmemalign pstart_pes p_my_pe p_num_pes pshmalloc
                  pshfree pshrealloc pshmemalign)
set(exported "")
set(unexpected "")
string(REPLACE "\n" ";" lines "${out}")
foreach(line IN LISTS lines)
  if(NOT line MATCHES "^[0-9a-fA-F]* *([A-Za-z]) +([^ ]+)$")
    continue()
  endif()
  set(kind ${CMAKE_MATCH_1})
  string(REGEX REPLACE "@.*$" "" name "${CMAKE_MATCH_2}")
  if(kind STREQUAL "A")  # a symbol-version node (GPUSHMEM_1.0), not code or data
    continue()
  endif()
  list(APPEND exported ${name})
  if(name MATCHES "^p?shmemx?_" OR name MATCHES "^gpushmemi_" OR name IN_LIST allowed_exact)
    continue()
  endif()
  list(APPEND unexpected ${name})
endforeach()

if(unexpected)
  list(JOIN unexpected "\n  " text)
  message(FATAL_ERROR "pkg.exports: ${LIBRARY} exports symbols outside the OpenSHMEM API:\n  ${text}\n"
                      "Give them hidden visibility or keep them out of runtime/exports.map.")
endif()
foreach(required shmem_init shmem_finalize shmem_my_pe shmem_n_pes)
  if(NOT required IN_LIST exported)
    message(FATAL_ERROR "pkg.exports: ${LIBRARY} does not export ${required}: check runtime/exports.map and that "
                        "the definition is extern \"C\" with default visibility")
  endif()
endforeach()
list(LENGTH exported count)
message(STATUS "pkg.exports: ${count} symbols, all in the OpenSHMEM API")
