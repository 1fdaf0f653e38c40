#include "options.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#ifndef GPUSHMEM_VERSION_STRING
#define GPUSHMEM_VERSION_STRING "unknown"
#endif

namespace gpushmemrun {
namespace {

constexpr long kMaxRanks = 1 << 16;  // far beyond one node; catches a typo before it forks the machine to death

void print_help() {
  std::printf(
      "Usage: gpushmemrun -n N [--timeout S] [--] program [args...]\n"
      "Starts N copies of program on this host as the PEs of one gpushmem job (tcp bootstrap).\n"
      "\n"
      "  -n N, -np N      number of PEs to start (required, at least 1)\n"
      "  --timeout S      end the job if it still runs after S seconds (exit status 124)\n"
      "  -h, --help       show this help\n"
      "  --version        show the gpushmem version\n"
      "\n"
      "Each PE gets GPUSHMEMRUN_RANK, GPUSHMEMRUN_SIZE and GPUSHMEMRUN_UNIQUEID (rank 0 also\n"
      "GPUSHMEMRUN_LISTEN_FD). Ranks other than 0 read stdin from /dev/null.\n"
      "SIGINT, SIGTERM and SIGHUP are forwarded to every PE; a second SIGINT or SIGTERM kills them.\n"
      "\n"
      "Exit status: 0 when every PE exits 0. Otherwise the status of the first PE that failed (128+signal\n"
      "when a signal killed it), after the others were ended; 124 on --timeout; 127 when the program\n"
      "cannot be run; 2 for a bad command line.\n");
}

// A whole decimal number in [lo, hi], or -1.
long parse_count(const char *text, long lo, long hi) {
  if (text == nullptr || *text == '\0') return -1;
  char *end = nullptr;
  errno = 0;
  long v = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return -1;
  return v;
}

// Prints "gpushmemrun: <fmt with arg>" and a pointer to --help.
Parsed usage_error(const char *fmt, const char *arg) {
  std::fprintf(stderr, "gpushmemrun: ");
  std::fprintf(stderr, fmt, arg);
  std::fprintf(stderr, "\nTry 'gpushmemrun --help'.\n");
  return Parsed::usage_error;
}

// Takes the value of option `name`: "=value" or the next argument. Returns nullptr when missing.
const char *option_value(int argc, char **argv, int *i, std::string_view arg, std::string_view name) {
  if (arg.size() > name.size() && arg[name.size()] == '=') return argv[*i] + name.size() + 1;
  if (arg.size() > name.size()) return argv[*i] + name.size();  // -n4
  if (*i + 1 >= argc) return nullptr;
  return argv[++*i];
}

}  // namespace

Parsed parse_options(int argc, char **argv, Options *out) {
  const char *n_text = nullptr;
  int i = 1;
  for (; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a.size() < 2 || a[0] != '-') break;  // the program
    if (a == "-h" || a == "--help") {
      print_help();
      return Parsed::done;
    }
    if (a == "--version") {
      std::printf("gpushmemrun (gpushmem) %s\n", GPUSHMEM_VERSION_STRING);
      return Parsed::done;
    }
    std::string_view name;
    for (std::string_view candidate : {"--timeout", "--np", "-np", "-n"}) {
      bool exact = a == candidate;
      bool joined = a.starts_with(candidate) && a.size() > candidate.size() &&
                    (a[candidate.size()] == '=' || (candidate == "-n" && a[2] >= '0' && a[2] <= '9'));
      if (exact || joined) {
        name = candidate;
        break;
      }
    }
    if (name.empty()) return usage_error("unknown option '%s'", argv[i]);
    const char *value = option_value(argc, argv, &i, a, name);
    if (value == nullptr) return usage_error("option '%s' needs a value", argv[i]);
    if (name == "--timeout") {
      long t = parse_count(value, 1, 365L * 24 * 3600);
      if (t < 0) return usage_error("--timeout wants a whole number of seconds (at least 1), not '%s'", value);
      out->timeout_s = static_cast<int>(t);
    } else {
      n_text = value;
    }
  }
  if (n_text == nullptr) return usage_error("%s", "-n N is required: the number of PEs to start");
  long n = parse_count(n_text, 1, kMaxRanks);
  if (n < 0) return usage_error("-n wants a whole number of PEs from 1 to 65536, not '%s'", n_text);
  out->n = static_cast<int>(n);
  if (i >= argc) return usage_error("%s", "no program given: gpushmemrun -n N [--] program [args...]");
  out->program.assign(argv + i, argv + argc);
  out->program.push_back(nullptr);
  return Parsed::run;
}

}  // namespace gpushmemrun
