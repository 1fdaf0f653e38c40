/*
 * The command line every device benchmark shares. A program sets its defaults in a perf_args, then names
 * the option letters it accepts; any other letter prints the usage and exits 2.
 *
 *   -b BYTES  smallest size          -e BYTES  largest size (sizes double from -b to -e; K, M, G suffixes)
 *   -n N      timed iterations       -w N      warm-up iterations (untimed)
 *   -r N      repeats (the table shows the median, min and max over them)
 *   -c N      CTAs                   -t N      threads per CTA
 *   -s SCOPE  thread | warp | block  -a OP     operation (program-specific)
 *   -d TYPE   data type (program-specific)
 *   -W MS     before each timed kernel, every SM of this PE's GPU spins MS milliseconds (default 20), so
 *             the timed kernel starts at full clocks rather than on the way up from idle (every program)
 */
#ifndef GPUSHMEM_PERF_ARGS_CUH
#define GPUSHMEM_PERF_ARGS_CUH

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

struct perf_args {
  size_t min_bytes = 8;
  size_t max_bytes = 8;
  int iters = 1000;
  int warmup = 100;
  int repeats = 11;
  int ctas = 1;
  int threads = 1;
  const char *scope = "thread";
  const char *op = "";
  const char *type = "";
  int spin_up_ms = 20;
};

/* "64M" -> 67108864. Returns 0 for anything that is not a positive size. */
inline size_t perf_parse_size(const char *s) {
  char *end = nullptr;
  const unsigned long long v = std::strtoull(s, &end, 0);
  unsigned long long scale = 1;
  if (*end == 'K' || *end == 'k')
    scale = 1ull << 10, ++end;
  else if (*end == 'M' || *end == 'm')
    scale = 1ull << 20, ++end;
  else if (*end == 'G' || *end == 'g')
    scale = 1ull << 30, ++end;
  if (end == s || *end != '\0') return 0;
  return static_cast<size_t>(v * scale);
}

inline const char *perf_option_help(char letter) {
  switch (letter) {
    case 'b':
      return "-b BYTES  smallest size (K/M/G suffixes)";
    case 'e':
      return "-e BYTES  largest size; sizes double from -b to -e";
    case 'n':
      return "-n N      timed iterations per repeat";
    case 'w':
      return "-w N      warm-up iterations (untimed)";
    case 'r':
      return "-r N      repeats; the table shows their median [min,max]";
    case 'c':
      return "-c N      CTAs";
    case 't':
      return "-t N      threads per CTA (1..1024)";
    case 's':
      return "-s SCOPE  thread | warp | block";
    case 'a':
      return "-a OP     operation";
    case 'd':
      return "-d TYPE   data type";
    case 'W':
      return "-W MS     spin every SM MS milliseconds before each timed kernel (default 20; 0: off)";
    default:
      return "";
  }
}

[[noreturn]] inline void perf_usage(const char *prog, const char *accepted, const char *extra) {
  std::fprintf(stderr, "usage: %s [options]\n", prog);
  for (const char *c = accepted; *c != '\0'; ++c) std::fprintf(stderr, "  %s\n", perf_option_help(*c));
  std::fprintf(stderr, "  %s\n", perf_option_help('W'));
  if (extra != nullptr && *extra != '\0') std::fprintf(stderr, "%s\n", extra);
  std::exit(2);
}

/* Parses argv into `a` (which holds the program's defaults). `accepted` lists the option letters this
   program takes; `extra` is printed under the usage (the values of -a / -d, for instance). Runs before
   shmem_init, on every PE alike, so a bad argument stops every PE with the same message. */
inline void perf_parse_args(int argc, char **argv, const char *accepted, const char *extra, perf_args *a) {
  char spec[64];
  size_t k = 0;
  for (const char *c = accepted; *c != '\0' && k + 4 < sizeof spec; ++c) {
    spec[k++] = *c;
    spec[k++] = ':';
  }
  spec[k++] = 'W'; /* every program takes -W */
  spec[k++] = ':';
  spec[k] = '\0';
  int opt;
  while ((opt = getopt(argc, argv, spec)) != -1) {
    switch (opt) {
      case 'b':
        a->min_bytes = perf_parse_size(optarg);
        break;
      case 'e':
        a->max_bytes = perf_parse_size(optarg);
        break;
      case 'n':
        a->iters = std::atoi(optarg);
        break;
      case 'w':
        a->warmup = std::atoi(optarg);
        break;
      case 'r':
        a->repeats = std::atoi(optarg);
        break;
      case 'c':
        a->ctas = std::atoi(optarg);
        break;
      case 't':
        a->threads = std::atoi(optarg);
        break;
      case 's':
        a->scope = optarg;
        break;
      case 'a':
        a->op = optarg;
        break;
      case 'd':
        a->type = optarg;
        break;
      case 'W':
        a->spin_up_ms = std::atoi(optarg);
        break;
      default:
        perf_usage(argv[0], accepted, extra);
    }
  }
  if (optind != argc) {
    std::fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[optind]);
    perf_usage(argv[0], accepted, extra);
  }
  if (a->min_bytes == 0 || a->max_bytes < a->min_bytes || a->iters < 1 || a->warmup < 0 || a->repeats < 1 ||
      a->ctas < 1 || a->threads < 1 || a->threads > 1024 || a->spin_up_ms < 0) {
    std::fprintf(stderr,
                 "%s: bad arguments (need -b >= 1, -e >= -b, -n >= 1, -w >= 0, -r >= 1, -c >= 1, "
                 "1 <= -t <= 1024, -W >= 0)\n",
                 argv[0]);
    perf_usage(argv[0], accepted, extra);
  }
}

/* Index of `value` in the NULL-terminated `choices`; an unknown value prints the choices and exits 2. */
inline int perf_choose(const char *prog, char letter, const char *value, const char *const *choices) {
  for (int i = 0; choices[i] != nullptr; ++i)
    if (std::strcmp(value, choices[i]) == 0) return i;
  std::fprintf(stderr, "%s: -%c %s: unknown; choose one of:", prog, letter, value);
  for (int i = 0; choices[i] != nullptr; ++i) std::fprintf(stderr, " %s", choices[i]);
  std::fprintf(stderr, "\n");
  std::exit(2);
}

#endif /* GPUSHMEM_PERF_ARGS_CUH */
