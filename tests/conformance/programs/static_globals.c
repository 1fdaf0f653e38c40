/* A histogram written the way classic OpenSHMEM programs are: every symmetric object is a global or static
   variable, none comes from shmem_malloc. Each PE draws VALUES numbers and adds one to the owner's bin
   (bin b lives on PE b % npes) with shmem_long_atomic_inc. The owners' bins are then summed onto every PE
   with the 1.4 active-set shmem_long_sum_to_all and a static pSync / pWrk, as older programs do, and PE 0
   broadcasts the grand total with shmem_broadcast64. A lock that is a global long guards a "last writer"
   word on PE 0. Every PE checks the histogram against its own recomputation of all PEs' draws. OpenSHMEM 1.5
   API only (the active-set routines are deprecated there, not removed). */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#define BINS 64
#define VALUES 1000

long bins[BINS];                           /* bin b is counted on PE b % npes */
long totals[BINS];                         /* the whole histogram, on every PE */
static long partial[BINS];                 /* this PE's owned bins, zero elsewhere */
static long pSync[SHMEM_REDUCE_SYNC_SIZE]; /* also serves the broadcast (SHMEM_BCAST_SYNC_SIZE or more) */
static long pWrk[BINS / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? BINS / 2 + 1 : SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long grand_total, grand_total_copy;
long lock;
static long last_writer = -1;

static unsigned draw(int pe, int i) { /* the same on every PE */
  unsigned x = (unsigned)pe * 2654435761u + (unsigned)i * 40503u + 17u;
  x ^= x >> 13;
  return x % BINS;
}

int main(void) {
  shmem_init();
  int me = shmem_my_pe();
  int npes = shmem_n_pes();
  for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++) pSync[i] = SHMEM_SYNC_VALUE;
  shmem_barrier_all();

  for (int i = 0; i < VALUES; i++) {
    unsigned b = draw(me, i);
    shmem_long_atomic_inc(&bins[b], (int)(b % (unsigned)npes));
  }
  shmem_set_lock(&lock);
  long previous = shmem_long_g(&last_writer, 0);
  if (previous < -1 || previous >= npes) printf("PE %d: last_writer holds %ld\n", me, previous);
  shmem_long_p(&last_writer, me, 0);
  shmem_clear_lock(&lock);
  shmem_barrier_all();

  for (int b = 0; b < BINS; b++) partial[b] = b % npes == me ? bins[b] : 0;
  shmem_long_sum_to_all(totals, partial, BINS, 0, 0, npes, pWrk, pSync);
  shmem_barrier_all(); /* pSync may be reused once every PE has left the reduction */
  if (me == 0)
    for (int b = 0; b < BINS; b++) grand_total += totals[b];
  shmem_broadcast64(&grand_total_copy, &grand_total, 1, 0, 0, 0, npes, pSync);
  if (me == 0) grand_total_copy = grand_total;

  long expected[BINS];
  memset(expected, 0, sizeof expected);
  for (int pe = 0; pe < npes; pe++)
    for (int i = 0; i < VALUES; i++) expected[draw(pe, i)]++;
  int errors = 0;
  for (int b = 0; b < BINS; b++)
    if (totals[b] != expected[b] && errors++ < 5)
      printf("PE %d: bin %d holds %ld, expected %ld\n", me, b, totals[b], expected[b]);
  if (grand_total_copy != (long)VALUES * npes) {
    printf("PE %d: broadcast total %ld, expected %ld\n", me, grand_total_copy, (long)VALUES * npes);
    errors++;
  }
  shmem_barrier_all();
  if (me == 0 && (last_writer < 0 || last_writer >= npes)) {
    printf("last_writer = %ld after every PE wrote it under the lock\n", last_writer);
    errors++;
  }

  if (errors)
    printf("static_globals: FAIL on PE %d (%d errors)\n", me, errors);
  else if (me == 0)
    printf("static_globals: PASS on %d PEs\n", npes);
  shmem_finalize();
  return errors ? 1 : 0;
}
