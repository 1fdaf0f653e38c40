/*
 * The command line every perftest program shares, host and device: plain C (header only), usable from C,
 * C++ and CUDA files. A program fills a perf_opts with perf_opts_defaults, changes the defaults it wants,
 * then calls perf_opts_parse with the option letters it accepts. A bad value or an option the program does
 * not take prints what is wrong and the usage, and exits 2 (before shmem_init, on every PE alike).
 *
 *   -b BYTES  smallest size            -e BYTES  largest size (K, M, G suffixes)
 *   -f N      size step factor: sizes go -b, -b*N, -b*N^2, ... up to -e (default 2)
 *   -n N      timed iterations         -w N      warm-up iterations (untimed)
 *   -r N      repeats (tables show the median [min,max] over them; JSON lines hold all three)
 *   -c N      CTAs                     -t N      threads per CTA
 *   -d TYPE   data type                -o OP     reduction operator
 *   -s SCOPE  scope (thread | warp | block on the device; program-specific on the host)
 *   -a OP     operation (atomic op, or the variant of a host program)
 *   -W MS     device programs: spin every SM MS milliseconds before each timed kernel
 *   --bidir   both directions at once (programs that say so)
 *   --json FILE  also append each point's JSON object (one per line) to FILE
 *   -h, --help   the usage
 */
#ifndef GPUSHMEM_PERF_OPTIONS_H
#define GPUSHMEM_PERF_OPTIONS_H

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct perf_opts {
  size_t min_bytes;      /* -b */
  size_t max_bytes;      /* -e */
  int step;              /* -f */
  int iters;             /* -n */
  int warmup;            /* -w */
  int repeats;           /* -r */
  int ctas;              /* -c */
  int threads;           /* -t */
  const char *type;      /* -d */
  const char *reduce_op; /* -o */
  const char *scope;     /* -s */
  const char *op;        /* -a */
  int spin_up_ms;        /* -W */
  int bidir;             /* --bidir */
  const char *json_path; /* --json; NULL: none */
  const char *prog;      /* argv[0]'s last component */
} perf_opts;

static inline void perf_opts_defaults(perf_opts *o) {
  memset(o, 0, sizeof *o);
  o->min_bytes = 8;
  o->max_bytes = 8;
  o->step = 2;
  o->iters = 1000;
  o->warmup = 100;
  o->repeats = 11;
  o->ctas = 1;
  o->threads = 1;
  o->type = "";
  o->reduce_op = "";
  o->scope = "";
  o->op = "";
  o->spin_up_ms = 20;
  o->prog = "perftest";
}

static inline const char *perf_opts_help(char letter) {
  switch (letter) {
    case 'b':
      return "-b BYTES     smallest size (K/M/G suffixes)";
    case 'e':
      return "-e BYTES     largest size";
    case 'f':
      return "-f N         size step factor: -b, -b*N, -b*N^2, ... up to -e (N >= 2)";
    case 'n':
      return "-n N         timed iterations per repeat";
    case 'w':
      return "-w N         warm-up iterations (untimed)";
    case 'r':
      return "-r N         repeats; tables show their median [min,max]";
    case 'c':
      return "-c N         CTAs";
    case 't':
      return "-t N         threads per CTA (1..1024)";
    case 'd':
      return "-d TYPE      data type";
    case 'o':
      return "-o OP        reduction operator";
    case 's':
      return "-s SCOPE     scope";
    case 'a':
      return "-a OP        operation";
    case 'W':
      return "-W MS        spin every SM MS milliseconds before each timed kernel (default 20; 0: off)";
    case 'B':
      return "--bidir      both directions at once";
    default:
      return "";
  }
}

/* Prints the usage of a program taking the option letters in `accepted` (plus --json and --help) and
   `extra` (the values of -a, -d, ...; may be NULL) to `f`. */
static inline void perf_opts_usage(FILE *f, const char *prog, const char *accepted, const char *extra) {
  fprintf(f, "usage: %s [options]\n", prog);
  for (const char *c = accepted; *c != '\0'; ++c)
    if (*perf_opts_help(*c) != '\0') fprintf(f, "  %s\n", perf_opts_help(*c));
  fprintf(f, "  --json FILE  also append one JSON object per point to FILE\n");
  fprintf(f, "  -h, --help   this text\n");
  if (extra != NULL && *extra != '\0') fprintf(f, "%s\n", extra);
}

static inline void perf_opts_fail(const char *prog, const char *accepted, const char *extra, const char *fmt,
                                  const char *a, const char *b) {
  fprintf(stderr, "%s: ", prog);
  fprintf(stderr, fmt, a, b);
  fprintf(stderr, "\n");
  perf_opts_usage(stderr, prog, accepted, extra);
  exit(2);
}

/* "64M" -> 67108864; 0 for anything that is not a whole positive size. */
static inline size_t perf_parse_size(const char *s) {
  char *end = NULL;
  if (s == NULL || *s == '-' || *s == '\0') return 0;
  errno = 0;
  const unsigned long long v = strtoull(s, &end, 0);
  unsigned long long scale = 1;
  if (errno != 0 || end == s) return 0;
  if (*end == 'K' || *end == 'k')
    scale = 1ull << 10, ++end;
  else if (*end == 'M' || *end == 'm')
    scale = 1ull << 20, ++end;
  else if (*end == 'G' || *end == 'g')
    scale = 1ull << 30, ++end;
  if (*end != '\0' || v > ULLONG_MAX / scale) return 0;
  return (size_t)(v * scale);
}

/* A whole number in [lo, hi], or the program stops with a message naming the option and the value. */
static inline int perf_opts_int(const char *prog, const char *accepted, const char *extra, char letter,
                                const char *value, int lo, int hi) {
  char *end = NULL;
  errno = 0;
  const long v = strtol(value, &end, 10);
  char opt[3] = {'-', letter, '\0'};
  char range[64];
  snprintf(range, sizeof range, "%d..%d", lo, hi);
  if (errno != 0 || end == value || *end != '\0')
    perf_opts_fail(prog, accepted, extra, "%s %s: not a whole number", opt, value);
  if (v < lo || v > hi) {
    char msg[160];
    snprintf(msg, sizeof msg, "%%s %%s: out of range (%s)", range);
    perf_opts_fail(prog, accepted, extra, msg, opt, value);
  }
  return (int)v;
}

/* Parses argv into `o` (which holds the program's defaults). `accepted` lists the option letters this
   program takes ('B' stands for --bidir); `extra` is printed under the usage. */
static inline void perf_opts_parse(int argc, char **argv, const char *accepted, const char *extra, perf_opts *o) {
  const char *slash = strrchr(argv[0], '/');
  o->prog = slash != NULL ? slash + 1 : argv[0];
  const char *prog = o->prog;
  char spec[64];
  size_t k = 0;
  spec[k++] = ':'; /* missing arguments are reported as ':' */
  spec[k++] = 'h';
  for (const char *c = accepted; *c != '\0' && k + 3 < sizeof spec; ++c) {
    if (*c == 'B') continue;
    spec[k++] = *c;
    spec[k++] = ':';
  }
  spec[k] = '\0';
  static const struct option longs[] = {{"json", required_argument, NULL, 'J'},
                                        {"help", no_argument, NULL, 'h'},
                                        {"bidir", no_argument, NULL, 'B'},
                                        {NULL, 0, NULL, 0}};
  int opt;
  char shown[3] = {'-', '?', '\0'};
  opterr = 0;
  while ((opt = getopt_long(argc, argv, spec, longs, NULL)) != -1) {
    switch (opt) {
      case 'h':
        perf_opts_usage(stdout, prog, accepted, extra);
        exit(0);
      case 'J':
        o->json_path = optarg;
        break;
      case 'B':
        if (strchr(accepted, 'B') == NULL)
          perf_opts_fail(prog, accepted, extra, "%s%s: not an option of this program", "--bidir", "");
        o->bidir = 1;
        break;
      case 'b':
      case 'e': {
        const size_t v = perf_parse_size(optarg);
        shown[1] = (char)opt;
        if (v == 0)
          perf_opts_fail(prog, accepted, extra, "%s %s: not a positive size (a number with an optional K, M or G)",
                         shown, optarg);
        if (opt == 'b')
          o->min_bytes = v;
        else
          o->max_bytes = v;
        break;
      }
      case 'f':
        o->step = perf_opts_int(prog, accepted, extra, 'f', optarg, 2, 1 << 20);
        break;
      case 'n':
        o->iters = perf_opts_int(prog, accepted, extra, 'n', optarg, 1, INT_MAX);
        break;
      case 'w':
        o->warmup = perf_opts_int(prog, accepted, extra, 'w', optarg, 0, INT_MAX);
        break;
      case 'r':
        o->repeats = perf_opts_int(prog, accepted, extra, 'r', optarg, 1, 100000);
        break;
      case 'c':
        o->ctas = perf_opts_int(prog, accepted, extra, 'c', optarg, 1, 1 << 20);
        break;
      case 't':
        o->threads = perf_opts_int(prog, accepted, extra, 't', optarg, 1, 1024);
        break;
      case 'W':
        o->spin_up_ms = perf_opts_int(prog, accepted, extra, 'W', optarg, 0, 100000);
        break;
      case 'd':
        o->type = optarg;
        break;
      case 'o':
        o->reduce_op = optarg;
        break;
      case 's':
        o->scope = optarg;
        break;
      case 'a':
        o->op = optarg;
        break;
      case ':':
        if (optopt == 'J') perf_opts_fail(prog, accepted, extra, "%s%s: needs a value (a file name)", "--json", "");
        if (optopt != 0) {
          shown[1] = (char)optopt;
          perf_opts_fail(prog, accepted, extra, "%s%s: needs a value", shown, "");
        }
        perf_opts_fail(prog, accepted, extra, "%s%s: needs a value", argv[optind - 1], "");
        break;
      default:
        if (optopt != 0) {
          shown[1] = (char)optopt;
          perf_opts_fail(prog, accepted, extra, "%s%s: not an option of this program", shown, "");
        }
        perf_opts_fail(prog, accepted, extra, "%s%s: not an option of this program", argv[optind - 1], "");
    }
  }
  if (optind != argc) perf_opts_fail(prog, accepted, extra, "unexpected argument '%s'%s", argv[optind], "");
  if (o->max_bytes < o->min_bytes) {
    char b[32], e[32];
    snprintf(b, sizeof b, "%zu", o->min_bytes);
    snprintf(e, sizeof e, "%zu", o->max_bytes);
    perf_opts_fail(prog, accepted, extra, "-e %s is smaller than -b %s", e, b);
  }
}

/* Index of `value` in the NULL-terminated `choices`; an unknown value prints the choices and exits 2. */
static inline int perf_opts_choose(const char *prog, char letter, const char *value, const char *const *choices) {
  for (int i = 0; choices[i] != NULL; ++i)
    if (strcmp(value, choices[i]) == 0) return i;
  fprintf(stderr, "%s: -%c %s: unknown; choose one of:", prog, letter, value);
  for (int i = 0; choices[i] != NULL; ++i) fprintf(stderr, " %s", choices[i]);
  fprintf(stderr, "\n");
  exit(2);
}

/* The next size after `size` (times the step factor), or 0 past -e or on overflow. */
static inline size_t perf_next_size(const perf_opts *o, size_t size) {
  if (size > o->max_bytes / (size_t)o->step) return 0;
  return size * (size_t)o->step;
}

/* Where --json FILE lines go: opened for appending on first use (by the PE that prints, usually 0). */
static inline FILE *perf_json_file(const char *path) {
  static FILE *f = NULL;
  static int failed = 0;
  if (f == NULL && !failed && path != NULL) {
    f = fopen(path, "a");
    if (f == NULL) {
      failed = 1;
      fprintf(stderr, "perftest: cannot open --json file %s for appending: %s\n", path, strerror(errno));
    }
  }
  return f;
}

/* Prints "json: {body}" on stdout and appends "{body}" to the --json file, if any. */
static inline void perf_emit_json(const perf_opts *o, const char *body) {
  printf("json: {%s}\n", body);
  fflush(stdout);
  FILE *f = perf_json_file(o->json_path);
  if (f != NULL) {
    fprintf(f, "{%s}\n", body);
    fflush(f);
  }
}

#ifdef __cplusplus
}
#endif

#endif /* GPUSHMEM_PERF_OPTIONS_H */
