# Writes (MODE=write) or checks (MODE=check) docs/env.md against `gpushmem-info --markdown`.
#   cmake -DMODE=write|check -DINFO=<gpushmem-info> -DDOC=<docs/env.md> -P env_doc.cmake
cmake_minimum_required(VERSION 3.25)

execute_process(COMMAND ${INFO} --markdown RESULT_VARIABLE rc OUTPUT_VARIABLE generated ERROR_VARIABLE err)
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "${INFO} --markdown failed (${rc}): ${err}")
endif()

if(MODE STREQUAL "write")
  file(WRITE ${DOC} "${generated}")
  message(STATUS "wrote ${DOC}")
  return()
endif()

set(current "")
if(EXISTS ${DOC})
  file(READ ${DOC} current)
endif()
if(NOT current STREQUAL generated)
  message(FATAL_ERROR "${DOC} is out of date with runtime/env/env_table.def. Regenerate it:\n"
                      "  run cmake --build build --target gpushmem-env-doc\n"
                      "(with your build folder in place of build) and commit the result.")
endif()
message(STATUS "${DOC} matches the environment-variable table")
