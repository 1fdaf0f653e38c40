/*
 * Global and static variables are symmetric data objects (OpenSHMEM 1.5 §3), reached like the heap:
 *  - initialised globals keep their values across shmem_init (the pages move onto shared memory), also one
 *    the program changed before shmem_init;
 *  - put / get / p / g / iput, put_nbi + quiet, into and out of every PE's globals, at both ends of an
 *    array and in a file-scope static, a function-scope static and a 64 MiB .bss array never touched
 *    before shmem_init;
 *  - atomics (fetch_add, compare_swap) on a global counter of PE 0 by every PE, exact total;
 *  - put_signal into a global + signal_wait_until on a global signal word;
 *  - wait_until on a global flag set by the left neighbour;
 *  - the OpenSHMEM 1.4 active-set barrier, broadcast and sum reduction with static pSync / pWrk arrays, as
 *    classic programs write them: on all PEs, and on the even PEs (a set that is not the world team, so
 *    pSync and pWrk are really used);
 *  - a lock that is a global long;
 *  - shmem_ptr / shmem_addr_accessible on a global: the neighbour's copy, written through the pointer (on
 *    another node: no pointer, a put);
 *  - fork(): the child gets private globals (a write there does not reach the parent), and its exit() does
 *    not tell the other PEs that this PE left; after shmem_finalize a child still sees the globals' values.
 * Argument "private" (with GPUSHMEM_SYMMETRIC_DATA=0): globals stay private, shmem_addr_accessible says 0 for
 * other PEs and a put to a global is refused with a message (the ctest expects it).
 * Argument "mixed" (under mpirun): odd ranks set GPUSHMEM_SYMMETRIC_DATA=0 before shmem_init, so the node's
 * PEs do not share globals; a put from PE 0 to PE 1's global is refused with a message.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pe_check.h"

enum { N = 64, ROUNDS = 50 };

int initialised = 42;        /* .data */
long table[N];               /* .bss */
static double scaled[N];     /* file-scope static */
static char big[64 << 20];   /* 64 MiB .bss, untouched before shmem_init */
static long counter;         /* fetch_add target on PE 0 */
static long cas_word;        /* compare_swap target on PE 0 */
static uint64_t signal_word; /* put_signal target */
static long payload[N];      /* put_signal payload */
static int flag;             /* wait_until target */
static long lock;            /* shmem_set_lock */
static long inside;          /* under the lock */
static long pSync[SHMEM_REDUCE_SYNC_SIZE];
static long pWrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE > N / 2 + 1 ? SHMEM_REDUCE_MIN_WRKDATA_SIZE : N / 2 + 1];
static long bcast_src[N], bcast_dst[N], red_src[N], red_dst[N];

static long *function_static(void) {
  static long inner[4] = {7, 8, 9, 10};
  return inner;
}

static void rma(int me, int npes) {
  const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
  for (int i = 0; i < N; ++i) {
    table[i] = -1;
    scaled[i] = -1.0;
  }
  shmem_barrier_all();
  long mine[N];
  for (int i = 0; i < N; ++i) mine[i] = 1000L * me + i;
  shmem_long_put(table, mine, N, right);
  shmem_double_p(&scaled[N - 1], 0.5 * me, right);
  shmem_putmem_nbi(&big[sizeof big - 8], "abcdefg", 8, right);
  shmem_long_p(&function_static()[3], 100 + me, right);
  shmem_quiet();
  shmem_barrier_all();
  for (int i = 0; i < N; ++i)
    PE_CHECK(table[i] == 1000L * left + i, "table[%d]: expected %ld, got %ld", i, 1000L * left + i, table[i]);
  PE_CHECK(scaled[N - 1] == 0.5 * left, "scaled[%d]: expected %g, got %g", N - 1, 0.5 * left, scaled[N - 1]);
  PE_CHECK(memcmp(&big[sizeof big - 8], "abcdefg", 8) == 0, "the last 8 bytes of big[] are wrong");
  PE_CHECK(function_static()[3] == 100 + left, "function-scope static: expected %d, got %ld", 100 + left,
           function_static()[3]);
  PE_CHECK(function_static()[0] == 7, "function-scope static initialiser: expected 7, got %ld", function_static()[0]);

  long back[N];
  shmem_long_get(back, table, N, right); /* right's table holds what I put there */
  for (int i = 0; i < N; ++i) PE_CHECK(back[i] == 1000L * me + i, "get table[%d]: got %ld", i, back[i]);
  PE_CHECK(shmem_double_g(&scaled[N - 1], right) == 0.5 * me, "g of scaled on PE %d", right);
  shmem_barrier_all();
  long stride_src[N / 2];
  for (int i = 0; i < N / 2; ++i) stride_src[i] = -(1000L * me + i);
  shmem_long_iput(table, stride_src, 2, 1, N / 2, right); /* every other element */
  shmem_barrier_all();
  for (int i = 0; i < N; ++i) {
    const long want = i % 2 == 0 ? -(1000L * left + i / 2) : 1000L * left + i;
    PE_CHECK(table[i] == want, "after iput, table[%d]: expected %ld, got %ld", i, want, table[i]);
  }
}

static void atomics(int me, int npes) {
  if (me == 0) counter = cas_word = 0;
  shmem_barrier_all();
  for (int r = 0; r < ROUNDS; ++r) shmem_long_atomic_fetch_add(&counter, 1, 0);
  /* every PE takes its turn through the compare_swap chain 0 -> 1 -> ... -> npes */
  const double start = pe_now_s();
  while (shmem_long_atomic_compare_swap(&cas_word, me, me + 1, 0) != me) {
    sched_yield();
    if (pe_now_s() - start > 30) {
      PE_FAIL("waited 30 s for my turn in the compare_swap chain: cas_word is %ld, expected %d",
              shmem_long_atomic_fetch(&cas_word, 0), me);
      break;
    }
  }
  shmem_barrier_all();
  if (me == 0) {
    PE_CHECK(counter == (long)ROUNDS * npes, "counter: expected %ld, got %ld", (long)ROUNDS * npes, counter);
    PE_CHECK(cas_word == npes, "cas_word: expected %d, got %ld", npes, cas_word);
  }
}

static void signals(int me, int npes) {
  const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
  signal_word = 0;
  flag = 0;
  shmem_barrier_all();
  long mine[N];
  for (int i = 0; i < N; ++i) mine[i] = 7L * me + i;
  shmem_long_put_signal(payload, mine, N, &signal_word, 1 + (uint64_t)me, SHMEM_SIGNAL_SET, right);
  shmem_uint64_wait_until(&signal_word, SHMEM_CMP_EQ, 1 + (uint64_t)left);
  for (int i = 0; i < N; ++i)
    PE_CHECK(payload[i] == 7L * left + i, "payload[%d]: expected %ld, got %ld", i, 7L * left + i, payload[i]);
  shmem_int_atomic_set(&flag, 5, right);
  shmem_int_wait_until(&flag, SHMEM_CMP_EQ, 5);
  shmem_barrier_all();
}

static void active_set_collectives(int me, int npes) {
  for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) pSync[i] = SHMEM_SYNC_VALUE;
  for (int i = 0; i < N; ++i) {
    bcast_src[i] = me == 0 ? 500 + i : -1;
    bcast_dst[i] = -1;
    red_src[i] = me + i;
  }
  shmem_barrier_all(); /* pSync initialised everywhere */
  /* the even PEs: PE_start 0, stride 2^1, (npes + 1) / 2 of them; not the world team, so pSync is used */
  const int evens = (npes + 1) / 2;
  if (me % 2 == 0) {
    shmem_barrier(0, 1, evens, pSync);
    shmem_broadcast64(bcast_dst, bcast_src, N, 0, 0, 1, evens, pSync);
    if (me != 0)
      for (int i = 0; i < N; ++i)
        PE_CHECK(bcast_dst[i] == 500 + i, "even-PE broadcast dst[%d]: expected %d, got %ld", i, 500 + i, bcast_dst[i]);
    shmem_barrier(0, 1, evens, pSync); /* every member is done with pSync before its reuse */
    shmem_long_sum_to_all(red_dst, red_src, N, 0, 1, evens, pWrk, pSync);
    const long even_sum = (long)evens * (evens - 1); /* 0 + 2 + 4 + ... */
    for (int i = 0; i < N; ++i)
      PE_CHECK(red_dst[i] == even_sum + (long)evens * i, "even-PE sum_to_all[%d]: expected %ld, got %ld", i,
               even_sum + (long)evens * i, red_dst[i]);
    for (int i = 0; i < N; ++i) bcast_dst[i] = -1;
  }
  shmem_barrier_all();
  shmem_broadcast64(bcast_dst, bcast_src, N, 0, 0, 0, npes, pSync);
  if (me != 0)
    for (int i = 0; i < N; ++i)
      PE_CHECK(bcast_dst[i] == 500 + i, "broadcast dst[%d]: expected %d, got %ld", i, 500 + i, bcast_dst[i]);
  shmem_barrier_all(); /* pSync reused */
  shmem_long_sum_to_all(red_dst, red_src, N, 0, 0, npes, pWrk, pSync);
  const long pes_sum = (long)npes * (npes - 1) / 2;
  for (int i = 0; i < N; ++i)
    PE_CHECK(red_dst[i] == pes_sum + (long)npes * i, "sum_to_all[%d]: expected %ld, got %ld", i,
             pes_sum + (long)npes * i, red_dst[i]);
  shmem_barrier_all();
}

static void locking(int me, int npes) {
  if (me == 0) inside = 0;
  shmem_barrier_all();
  for (int r = 0; r < ROUNDS; ++r) {
    shmem_set_lock(&lock);
    const long v = shmem_long_g(&inside, 0);
    shmem_long_p(&inside, v + 1, 0);
    shmem_clear_lock(&lock);
  }
  shmem_barrier_all();
  if (me == 0)
    PE_CHECK(inside == (long)ROUNDS * npes, "under the lock: expected %ld, got %ld", (long)ROUNDS * npes, inside);
}

static void pointers(int me, int npes) {
  const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
  PE_CHECK(shmem_addr_accessible(&counter, right) == 1, "shmem_addr_accessible(global, %d) is not 1", right);
  long *peer = shmem_ptr(&table[1], right);
  /* Load/store reach only on this node; a neighbour on another (virtual) host gets the value by a put. */
  const int same_node = shmem_team_translate_pe(SHMEM_TEAM_WORLD, right, SHMEM_TEAM_SHARED) >= 0;
  if (same_node)
    PE_CHECK(peer != NULL, "shmem_ptr(global, %d) is NULL", right);
  else
    PE_CHECK(peer == NULL, "shmem_ptr(global, %d) is not NULL for a PE of another node", right);
  if (right == me) PE_CHECK(peer == &table[1], "shmem_ptr(global, me) is not the global itself");
  shmem_barrier_all();
  if (peer != NULL)
    *peer = 31337L + me;
  else
    shmem_long_p(&table[1], 31337L + me, right);
  shmem_barrier_all();
  PE_CHECK(table[1] == 31337L + left, "stored through shmem_ptr: expected %ld, got %ld", 31337L + left, table[1]);
}

/* A child of fork() has private globals: what it writes stays in the child. */
static void forked(int me) {
  table[2] = 1000 + me;
  fflush(NULL);
  const pid_t child = fork();
  if (child == 0) {
    table[2] = -5;
    exit(table[2] == -5 ? 0 : 3); /* runs the atexit handlers: the library's must not speak for the PE */
  }
  int status = 0;
  PE_CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "the forked child failed (status %d)", status);
  PE_CHECK(table[2] == 1000 + me, "the child's write reached the parent: table[2] is %ld", table[2]);
}

/* GPUSHMEM_SYMMETRIC_DATA=0: own globals work locally, other PEs' are out of reach, and a put to one says so. */
static void private_globals(int me, int npes) {
  PE_CHECK(shmem_addr_accessible(&counter, me) == 0, "shmem_addr_accessible(global, me) with private globals");
  if (npes > 1) PE_CHECK(shmem_ptr(&counter, (me + 1) % npes) == NULL, "shmem_ptr of a private global is not NULL");
  shmem_barrier_all();
  if (me == 0) shmem_long_p(&counter, 1, npes - 1); /* ends the job with a message */
  shmem_barrier_all();
}

int main(int argc, char **argv) {
  const int private_mode = argc > 1 && strcmp(argv[1], "private") == 0;
  const int mixed_mode = argc > 1 && strcmp(argv[1], "mixed") == 0;
  if (mixed_mode) {
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    if (rank != NULL && atoi(rank) % 2 == 1) setenv("GPUSHMEM_SYMMETRIC_DATA", "0", 1);
  }
  big[0] = 1;       /* one page of big touched before init */
  initialised += 1; /* a .data value changed before init */
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  PE_CHECK(initialised == 43, "initialised global: expected 43, got %d", initialised);
  PE_CHECK(big[0] == 1, "big[0] lost its value at shmem_init");
  if (private_mode) {
    private_globals(me, npes);
    return pe_finish("globals_private");
  }
  if (mixed_mode) {
    shmem_barrier_all();
    if (me == 0) shmem_long_p(&counter, 1, 1); /* PE 1's globals are private: ends the job with a message */
    shmem_barrier_all();
    return pe_finish("globals_mixed");
  }
  rma(me, npes);
  atomics(me, npes);
  signals(me, npes);
  active_set_collectives(me, npes);
  locking(me, npes);
  pointers(me, npes);
  forked(me);
  shmem_barrier_all();
  const int status = pe_finish("globals");
  fflush(NULL);
  const pid_t child = fork(); /* after shmem_finalize: the child's globals keep their values */
  if (child == 0) _exit(initialised == 43 && table[2] == 1000 + me ? 0 : 1);
  int child_status = -1;
  if (child < 0 || waitpid(child, &child_status, 0) != child || !WIFEXITED(child_status) ||
      WEXITSTATUS(child_status) != 0) {
    fprintf(stderr, "PE %d: FAILED: a child forked after shmem_finalize lost the globals' values\n", me);
    return 1;
  }
  return status;
}
