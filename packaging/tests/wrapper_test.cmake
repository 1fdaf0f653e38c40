# ctest pkg.wrapper_build_tree: the build-tree gpushmemcc / gpushmemc++ build and run programs without an
# install.
#
# cmake -DBIN_DIR= -DWORK_DIR= -DCONSUMER_DIR= -P wrapper_test.cmake
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/test_helpers.cmake)

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(ENV{GPUSHMEM_BOOTSTRAP} single)
check_wrappers(${BIN_DIR} ${WORK_DIR})
message(STATUS "pkg.wrapper_build_tree: the build-tree wrappers work")
