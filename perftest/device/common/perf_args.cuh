/*
 * The command line of the device benchmarks: perftest/common/perf_options.h (the C options every perftest
 * program shares) with the device defaults. A program sets its defaults in a perf_args, then names the
 * option letters it accepts; anything else, or a bad value, prints what is wrong and the usage and exits 2.
 *
 *   -b BYTES  smallest size          -e BYTES  largest size (K, M, G suffixes)
 *   -f N      size step factor (sizes -b, -b*N, ... up to -e; default 2)
 *   -n N      timed iterations       -w N      warm-up iterations (untimed)
 *   -r N      repeats (the table shows the median, min and max over them)
 *   -c N      CTAs                   -t N      threads per CTA
 *   -s SCOPE  thread | warp | block  -a OP     operation (program-specific)
 *   -d TYPE   data type (program-specific)   --bidir  both directions (programs that say so)
 *   -W MS     before each timed kernel, every SM of this PE's GPU spins MS milliseconds (default 20), so
 *             the timed kernel starts at full clocks rather than on the way up from idle (every program)
 *   --json FILE  also append each point's JSON object to FILE      -h, --help
 */
#ifndef GPUSHMEM_PERF_ARGS_CUH
#define GPUSHMEM_PERF_ARGS_CUH

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "perf_options.h"

struct perf_args : perf_opts {
  perf_args() {
    perf_opts_defaults(this);
    scope = "thread";
  }
};

/* The options of this run (set by perf_parse_args): perf_json lines also go to its --json file. */
inline const perf_opts *&perf_current_opts() {
  static const perf_opts *current = nullptr;
  return current;
}

/* Parses argv into `a` (which holds the program's defaults). `accepted` lists the option letters this
   program takes ('B': --bidir); -W, --json and --help are always accepted. `extra` is printed under the
   usage (the values of -a / -d, for instance). Runs before shmem_init, on every PE alike, so a bad
   argument stops every PE with the same message. */
inline void perf_parse_args(int argc, char **argv, const char *accepted, const char *extra, perf_args *a) {
  const std::string letters = std::string(accepted) + "W";
  perf_opts_parse(argc, argv, letters.c_str(), extra, a);
  perf_current_opts() = a;
}

/* Index of `value` in the NULL-terminated `choices`; an unknown value prints the choices and exits 2. */
inline int perf_choose(const char *prog, char letter, const char *value, const char *const *choices) {
  return perf_opts_choose(prog, letter, value, choices);
}

#endif /* GPUSHMEM_PERF_ARGS_CUH */
