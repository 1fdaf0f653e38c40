/* Soak: random operations with a deterministic checker. Every PE derives every PE's choices for a round from
   (seed, round, PE), so each PE knows what lands in its memory and checks it.
     soak [OPS [SEED]]       OPS operations per PE in all (default 250000: 10^6 over 4 PEs), SEED (default 1)
     soak threads [N]        SHMEM_THREAD_MULTIPLE: 4 threads per PE each add 1 to one counter on PE 0,
                             N times (default 100000, fetching and not, alternately); PE 0 checks the total
   Per round, PE p picks a target t != p, a size (1 B to 4 KiB) and an offset in its own slice of t's buffer:
     - a put of a pattern there (blocking, or nbi + quiet), then a get back of the same bytes, checked;
     - a fetch_add on t's counter (no value fetched may lie beyond t's final count) and a non-fetching add on
       t's second counter;
     - a put_signal of 8 bytes into t's signal slot for p; t waits for the signal values of its senders;
   then a barrier, after which each PE checks every slice its senders wrote this round (slices alternate by
   round parity, so the next round's puts cannot overwrite them first). Every 64th round a
   sum reduction and a broadcast of round-derived values are checked too. At the end the counters must hold
   the sum of what every PE added (deterministic), and nothing may be lost. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pe_check.h"

enum { kSlice = 4096, kOpsPerRound = 5, kThreads = 4 };

static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* PE p's choices in round r. */
typedef struct {
  int target;
  size_t size, offset;
  int nbi;
  long add;
} Choice;

static Choice choose(uint64_t seed, long r, int p, int n) {
  const uint64_t x = mix(seed ^ ((uint64_t)r << 20) ^ (uint64_t)p);
  Choice c;
  c.target = (p + 1 + (int)(x % (uint64_t)(n - 1))) % n;
  c.size = 1 + (size_t)((x >> 16) % kSlice);
  c.offset = (size_t)((x >> 32) % (uint64_t)(kSlice - c.size + 1));
  c.nbi = (int)((x >> 48) & 1);
  c.add = 1 + (long)((x >> 52) % 7);
  return c;
}

static unsigned char pattern(int p, long r, size_t i) {
  return (unsigned char)(mix(((uint64_t)p << 40) ^ ((uint64_t)r << 8) ^ i) & 0xff);
}

static int soak_ops(long ops, uint64_t seed) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  if (n < 2) {
    fprintf(stderr, "soak: needs at least 2 PEs\n");
    return 2;
  }
  /* Two sets of slices, by round parity: a sender writes round r + 1's data only after the barrier of round r,
     but before its target has checked round r's; the set it writes then is the other one. */
  unsigned char *slices = (unsigned char *)shmem_calloc(2 * (size_t)n, kSlice);
  unsigned char *local = (unsigned char *)malloc(kSlice), *back = (unsigned char *)malloc(kSlice);
  long *counter = (long *)shmem_calloc(2, sizeof(long));
  uint64_t *sig = (uint64_t *)shmem_calloc((size_t)n, sizeof(uint64_t));
  uint64_t *payload = (uint64_t *)shmem_calloc((size_t)n, sizeof(uint64_t));
  long *red_src = (long *)shmem_calloc(4, sizeof(long)), *red_dst = (long *)shmem_calloc(4, sizeof(long));
  long *bsrc = (long *)shmem_calloc(8, sizeof(long)), *bdst = (long *)shmem_calloc(8, sizeof(long));
  /* Per target: the largest value this PE's fetch_adds left there (fetched + added), which the target's
     final counter must reach. */
  long *reached = (long *)calloc((size_t)n, sizeof(long));
  const long rounds = ops / kOpsPerRound;
  shmem_barrier_all();
  const double t0 = pe_now_s();
  for (long r = 1; r <= rounds; ++r) {
    const Choice c = choose(seed, r, me, n);
    for (size_t i = 0; i < c.size; ++i) local[i] = pattern(me, r, i);
    unsigned char *dst = slices + ((size_t)(r % 2) * (size_t)n + (size_t)me) * kSlice + c.offset;
    if (c.nbi) {
      shmem_putmem_nbi(dst, local, c.size, c.target);
      shmem_quiet();
    } else {
      shmem_putmem(dst, local, c.size, c.target);
      shmem_quiet();
    }
    shmem_getmem(back, dst, c.size, c.target);
    if (memcmp(back, local, c.size) != 0)
      PE_CHECK(0, "round %ld: the get from PE %d of %zu bytes at %zu does not return what was put", r, c.target, c.size,
               c.offset);
    const long before = shmem_long_atomic_fetch_add(&counter[0], c.add, c.target);
    if (before + c.add > reached[c.target]) reached[c.target] = before + c.add;
    shmem_long_atomic_add(&counter[1], 2 * c.add, c.target);
    const uint64_t word = ((uint64_t)r << 16) | (uint64_t)me;
    shmem_putmem_signal(&payload[me], &word, sizeof word, &sig[me], (uint64_t)r, SHMEM_SIGNAL_SET, c.target);
    /* The senders that picked this PE this round: their signals, then their payloads. */
    for (int p = 0; p < n; ++p) {
      if (p == me || choose(seed, r, p, n).target != me) continue;
      shmem_uint64_wait_until(&sig[p], SHMEM_CMP_GE, (uint64_t)r);
      const uint64_t got = payload[p], want = ((uint64_t)r << 16) | (uint64_t)p;
      PE_CHECK(got == want, "round %ld: the put_signal payload from PE %d is %llx, want %llx", r, p,
               (unsigned long long)got, (unsigned long long)want);
    }
    shmem_barrier_all();
    for (int p = 0; p < n; ++p) {
      if (p == me) continue;
      const Choice q = choose(seed, r, p, n);
      if (q.target != me) continue;
      const unsigned char *s = slices + ((size_t)(r % 2) * (size_t)n + (size_t)p) * kSlice + q.offset;
      for (size_t i = 0; i < q.size; ++i)
        if (s[i] != pattern(p, r, i)) {
          PE_CHECK(0, "round %ld: byte %zu of PE %d's %zu-byte put at %zu is %u, want %u", r, i, p, q.size, q.offset,
                   s[i], pattern(p, r, i));
          break;
        }
    }
    if (r % 64 == 0) {
      for (int i = 0; i < 4; ++i) red_src[i] = r * (me + 1) + i;
      shmem_long_sum_reduce(SHMEM_TEAM_WORLD, red_dst, red_src, 4);
      for (int i = 0; i < 4; ++i) {
        const long want = r * ((long)n * (n + 1) / 2) + (long)n * i;
        PE_CHECK(red_dst[i] == want, "round %ld: sum element %d is %ld, want %ld", r, i, red_dst[i], want);
      }
      const int root = (int)(r / 64 % n);
      for (int i = 0; i < 8; ++i) bsrc[i] = r * 100 + root * 10 + i;
      shmem_broadcastmem(SHMEM_TEAM_WORLD, bdst, bsrc, sizeof(long) * 8, root);
      for (int i = 0; i < 8; ++i)
        PE_CHECK(bdst[i] == r * 100 + root * 10 + i, "round %ld: broadcast element %d is %ld", r, i, bdst[i]);
    }
    if (*pe_failure_count() > 20) break;
  }
  shmem_barrier_all();
  /* What everyone added to this PE's counters, and the values the fetches saw (each a prefix sum of the
     adds to that target, in some order: their total is checked through the counters' final values). */
  long want0 = 0;
  for (long r = 1; r <= rounds; ++r)
    for (int p = 0; p < n; ++p) {
      const Choice q = choose(seed, r, p, n);
      if (q.target == me) want0 += q.add;
    }
  PE_CHECK(counter[0] == want0, "the fetch_add counter is %ld, want %ld", counter[0], want0);
  PE_CHECK(counter[1] == 2 * want0, "the add counter is %ld, want %ld", counter[1], 2 * want0);
  for (int t = 0; t < n; ++t) {
    const long final_t = shmem_long_g(&counter[0], t);
    PE_CHECK(reached[t] <= final_t, "a fetch_add on PE %d saw the counter reach %ld, beyond its final %ld", t,
             reached[t], final_t);
  }
  shmem_barrier_all();
  const double took = pe_now_s() - t0;
  if (me == 0)
    printf("soak: %d PEs, %ld rounds, %ld operations per PE (seed %llu): %ld operations in %.2f s, %.0f per s; %s\n", n,
           rounds, rounds * kOpsPerRound, (unsigned long long)seed, (long)n * rounds * kOpsPerRound, took,
           (double)n * (double)(rounds * kOpsPerRound) / took,
           *pe_failure_count() == 0 ? "0 lost or wrong (every value checked)" : "CHECKS FAILED");
  free(local);
  free(back);
  free(reached);
  return 0;
}

typedef struct {
  long *counter;
  long times;
  long fetched_max;
} ThreadArg;

static void *add_loop(void *p) {
  ThreadArg *a = (ThreadArg *)p;
  for (long i = 0; i < a->times; ++i) {
    if (i % 2 == 0) {
      const long old = shmem_long_atomic_fetch_add(a->counter, 1, 0);
      if (old > a->fetched_max) a->fetched_max = old;
    } else {
      shmem_long_atomic_add(a->counter, 1, 0);
    }
  }
  shmem_quiet();
  return NULL;
}

static int soak_threads(long times) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  long *counter = (long *)shmem_calloc(1, sizeof(long));
  shmem_barrier_all();
  const double t0 = pe_now_s();
  pthread_t th[kThreads];
  ThreadArg args[kThreads];
  for (int i = 0; i < kThreads; ++i) {
    args[i] = (ThreadArg){counter, times, -1};
    pthread_create(&th[i], NULL, add_loop, &args[i]);
  }
  for (int i = 0; i < kThreads; ++i) pthread_join(th[i], NULL);
  shmem_barrier_all();
  const double took = pe_now_s() - t0;
  const long want = (long)n * kThreads * times;
  if (me == 0) {
    PE_CHECK(*counter == want, "the counter is %ld after %d PEs x %d threads x %ld adds, want %ld", *counter, n,
             kThreads, times, want);
    printf("soak threads: %d PEs x %d threads x %ld adds: counter %ld (want %ld) in %.2f s, %.0f adds per s\n", n,
           kThreads, times, *counter, want, took, (double)want / took);
  }
  for (int i = 0; i < kThreads; ++i)
    PE_CHECK(args[i].fetched_max < want, "thread %d fetched %ld, beyond the total %ld", i, args[i].fetched_max, want);
  return 0;
}

int main(int argc, char **argv) {
  const int threads = argc > 1 && strcmp(argv[1], "threads") == 0;
  if (threads) {
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    if (provided != SHMEM_THREAD_MULTIPLE) {
      fprintf(stderr, "soak: SHMEM_THREAD_MULTIPLE not provided (%d)\n", provided);
      return 1;
    }
    const int rc = soak_threads(argc > 2 ? atol(argv[2]) : 100000);
    if (rc != 0) return rc;
  } else {
    shmem_init();
    const int rc = soak_ops(argc > 1 ? atol(argv[1]) : 250000, argc > 2 ? strtoull(argv[2], NULL, 10) : 1);
    if (rc != 0) return rc;
  }
  return pe_finish("soak");
}
