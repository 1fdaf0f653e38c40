# ctest unit.tools.info_installed: a tree installed with `cmake --install --prefix P` (whatever prefix was
# configured) finds its plugins under P, and gpushmem-info says where it is installed, run from another folder.
#   cmake -DBUILD=<build tree> -DPREFIX=<scratch prefix> -P install_test.cmake
cmake_minimum_required(VERSION 3.25)

file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD}" --prefix "${PREFIX}" RESULT_VARIABLE rc
                OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "cmake --install --prefix ${PREFIX} failed (${rc}): ${err}")
endif()
unset(ENV{GPUSHMEM_BOOTSTRAP_PLUGIN_DIR})
execute_process(COMMAND "${PREFIX}/bin/gpushmem-info" WORKING_DIRECTORY / RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "the installed gpushmem-info exited with ${rc}: ${err}")
endif()
foreach(pattern "installed at +${PREFIX}\n" "plugin folder +${PREFIX}/lib[^\n]*/gpushmem\n" "plugins found +[^\n]*single")
  if(NOT out MATCHES "${pattern}")
    message(FATAL_ERROR "the installed gpushmem-info: expected /${pattern}/ in:\n${out}")
  endif()
endforeach()
file(REMOVE_RECURSE "${PREFIX}")
