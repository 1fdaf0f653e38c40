// Catch2 v2 only: the one translation unit that holds main() (v3 brings its own in Catch2WithMain).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
