/*
 * Host-initiated put latency and bandwidth between PE 0 and PE 1, with memcpy measured in the same run as
 * the reference. Standard OpenSHMEM only (plus perf_timer.h).
 *
 *   latency:   PE 0 does (shmem_putmem of SIZE bytes + shmem_quiet) ITERS times; time per iteration.
 *   bandwidth: PE 0 does shmem_putmem of SIZE bytes ITERS times then one shmem_quiet; bytes / time.
 *   reference: memcpy of the same SIZE between two private buffers on PE 0, same loop.
 * Each figure is the median (min, max) over REPEATS timed repeats after a warm-up. PE 1 checks the last
 * payload of every size. Output: a table, and one JSON line per point (prefix "json: ").
 *
 * Usage: host_put_bench [-b min_bytes] [-e max_bytes] [-n iters] [-r repeats]
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf_timer.h"

static void fill(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i) p[i] = (unsigned char)(seed * 31u + i * 7u);
}

int main(int argc, char **argv) {
  size_t min_bytes = 8, max_bytes = 1 << 20;
  int iters = 1000, repeats = 11;
  int opt;
  while ((opt = getopt(argc, argv, "b:e:n:r:")) != -1) {
    switch (opt) {
      case 'b':
        min_bytes = strtoull(optarg, NULL, 0);
        break;
      case 'e':
        max_bytes = strtoull(optarg, NULL, 0);
        break;
      case 'n':
        iters = atoi(optarg);
        break;
      case 'r':
        repeats = atoi(optarg);
        break;
      default:
        fprintf(stderr, "usage: %s [-b min_bytes] [-e max_bytes] [-n iters] [-r repeats]\n", argv[0]);
        return 2;
    }
  }
  shmem_init();
  int me = shmem_my_pe();
  if (shmem_n_pes() < 2) {
    if (me == 0) fprintf(stderr, "host_put_bench: needs at least 2 PEs\n");
    shmem_finalize();
    return 2;
  }
  if (min_bytes < 1 || max_bytes < min_bytes || iters < 1 || repeats < 1) {
    if (me == 0) fprintf(stderr, "host_put_bench: bad arguments (-b >= 1, -e >= -b, -n >= 1, -r >= 1)\n");
    shmem_finalize();
    return 2;
  }
  unsigned char *remote = shmem_malloc(max_bytes);
  unsigned char *src = malloc(max_bytes), *copy = malloc(max_bytes);
  double *lat = malloc(sizeof(double) * (size_t)repeats), *bw = malloc(sizeof(double) * (size_t)repeats);
  double *ref = malloc(sizeof(double) * (size_t)repeats);
  int errors = 0;
  if (me == 0)
    printf("%-10s %-14s %-22s %-16s %-22s %-8s\n", "size(B)", "lat(us)", "bw(GB/s) [min,max]", "memcpy(GB/s)",
           "bw/memcpy", "check");
  for (size_t size = min_bytes; size <= max_bytes; size *= 2) {
    unsigned seed = (unsigned)size;
    if (me == 0) {
      fill(src, size, seed);
      for (int r = -1; r < repeats; ++r) { /* r = -1: warm-up */
        double t0 = perf_now_ns();
        for (int i = 0; i < iters; ++i) {
          shmem_putmem(remote, src, size, 1);
          shmem_quiet();
        }
        double t1 = perf_now_ns();
        for (int i = 0; i < iters; ++i) shmem_putmem(remote, src, size, 1);
        shmem_quiet();
        double t2 = perf_now_ns();
        for (int i = 0; i < iters; ++i) {
          memcpy(copy, src, size);
          __asm__ __volatile__("" ::"r"(copy) : "memory"); /* keep the copies */
        }
        double t3 = perf_now_ns();
        if (r >= 0) {
          lat[r] = (t1 - t0) / iters / 1e3;
          bw[r] = (double)size * iters / (t2 - t1);
          ref[r] = (double)size * iters / (t3 - t2);
        }
      }
    }
    shmem_barrier_all();
    if (me == 1) { /* verify the payload PE 0 last wrote */
      unsigned char *want = malloc(size);
      fill(want, size, seed);
      if (memcmp(want, remote, size) != 0) {
        fprintf(stderr, "host_put_bench: PE 1 received wrong data for size %zu\n", size);
        errors++;
      }
      free(want);
    }
    int bad = errors;
    shmem_barrier_all();
    if (me == 0) {
      double lmin, lmax, bmin, bmax, rmin, rmax;
      double l = perf_median(lat, repeats, &lmin, &lmax);
      double b = perf_median(bw, repeats, &bmin, &bmax);
      double m = perf_median(ref, repeats, &rmin, &rmax);
      char range[64];
      snprintf(range, sizeof range, "%.2f [%.2f,%.2f]", b, bmin, bmax);
      printf("%-10zu %-14.3f %-22s %-16.2f %-22.2f %-8s\n", size, l, range, m, b / m, bad ? "FAIL" : "ok");
      printf(
          "json: {\"bench\":\"host_put\",\"size\":%zu,\"iters\":%d,\"repeats\":%d,\"lat_us\":{\"median\":%.4f,"
          "\"min\":%.4f,\"max\":%.4f},\"bw_GBps\":{\"median\":%.4f,\"min\":%.4f,\"max\":%.4f},"
          "\"memcpy_GBps\":{\"median\":%.4f,\"min\":%.4f,\"max\":%.4f},\"ratio_to_memcpy\":%.4f}\n",
          size, iters, repeats, l, lmin, lmax, b, bmin, bmax, m, rmin, rmax, b / m);
    }
  }
  /* PE 1's verdict reaches PE 0 through the exit status: any failure makes the job fail. */
  shmem_barrier_all();
  shmem_free(remote);
  free(src), free(copy), free(lat), free(bw), free(ref);
  shmem_finalize();
  return errors ? 1 : 0;
}
