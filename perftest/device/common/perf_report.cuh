/*
 * What the device benchmarks print: a median [min,max] per figure, a table row, and one line per point
 * that starts with "json: " (run_device.sh and plotting scripts read only those lines).
 */
#ifndef GPUSHMEM_PERF_REPORT_CUH
#define GPUSHMEM_PERF_REPORT_CUH

#include <cstdio>
#include <string>
#include <vector>

#include "perf_args.cuh"
#include "perf_shmem.h"
#include "perf_timer.h"

struct perf_stat {
  double median = 0, min = 0, max = 0;
  bool valid = false; /* false: the figure could not be measured (the table prints n/a) */
};

/* Median, min and max of the samples (an empty vector gives an invalid stat). */
inline perf_stat perf_summarize(std::vector<double> v) {
  perf_stat s;
  if (v.empty()) return s;
  s.median = perf_median(v.data(), static_cast<int>(v.size()), &s.min, &s.max);
  s.valid = true;
  return s;
}

/* "12.345 [12.001,13.100]" (`digits` decimals) or "n/a", for a table cell. */
inline std::string perf_cell(const perf_stat &s, int digits = 3) {
  if (!s.valid) return "n/a";
  char buf[112];
  std::snprintf(buf, sizeof buf, "%.*f [%.*f,%.*f]", digits, s.median, digits, s.min, digits, s.max);
  return buf;
}

/* The median alone ("12.345") or "n/a". */
inline std::string perf_median_cell(const perf_stat &s, int digits = 3) {
  if (!s.valid) return "n/a";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*f", digits, s.median);
  return buf;
}

/* a / b of two medians, or "n/a". */
inline std::string perf_ratio_cell(const perf_stat &a, const perf_stat &b) {
  if (!a.valid || !b.valid || b.median == 0) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", a.median / b.median);
  return buf;
}

/* One JSON object, built key by key, printed as a single "json: {...}" line. */
class perf_json {
 public:
  /* Every line names the benchmark, the library and the PE count (the library must be started). */
  explicit perf_json(const char *bench) {
    str("bench", bench).str("library", PERF_LIBRARY).integer("npes", nvshmem_n_pes());
  }
  perf_json &str(const char *key, const char *value) { return raw(key, std::string("\"") + value + "\""); }
  perf_json &integer(const char *key, long long value) { return raw(key, std::to_string(value)); }
  perf_json &number(const char *key, double value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4f", value);
    return raw(key, buf);
  }
  /* {"median":..,"min":..,"max":..}, or null when the figure was not measured. */
  perf_json &stat(const char *key, const perf_stat &s) {
    if (!s.valid) return raw(key, "null");
    char buf[160];
    std::snprintf(buf, sizeof buf, "{\"median\":%.4f,\"min\":%.4f,\"max\":%.4f}", s.median, s.min, s.max);
    return raw(key, buf);
  }
  /* a.median / b.median, or null. */
  perf_json &ratio(const char *key, const perf_stat &a, const perf_stat &b) {
    if (!a.valid || !b.valid || b.median == 0) return raw(key, "null");
    return number(key, a.median / b.median);
  }
  /* "json: {...}" on stdout, and the object alone on a line of the --json file, if any. */
  void print() const {
    if (perf_current_opts() != nullptr) {
      perf_emit_json(perf_current_opts(), body_.c_str());
    } else {
      std::printf("json: {%s}\n", body_.c_str());
      std::fflush(stdout);
    }
  }

 private:
  perf_json &raw(const char *key, const std::string &value) {
    if (!body_.empty()) body_ += ',';
    body_ += std::string("\"") + key + "\":" + value;
    return *this;
  }
  std::string body_;
};

#endif /* GPUSHMEM_PERF_REPORT_CUH */
