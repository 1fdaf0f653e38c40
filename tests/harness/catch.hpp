// Includes whichever Catch2 the build found, so unit tests are written once for both:
// v2 (Debian 12's single header) and v3 (split headers, main from Catch2::Catch2WithMain).
// CMake defines GPUSHMEM_CATCH2_MAJOR (tests/harness/CMakeLists.txt); never include Catch2 directly.
#pragma once

#if !defined(GPUSHMEM_CATCH2_MAJOR)
#error "GPUSHMEM_CATCH2_MAJOR is not defined: make unit tests with gpushmem_add_unit_test()"
#elif GPUSHMEM_CATCH2_MAJOR == 3
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#elif GPUSHMEM_CATCH2_MAJOR == 2
#include <catch2/catch.hpp>
#else
#error "unsupported GPUSHMEM_CATCH2_MAJOR (2 or 3)"
#endif
