/* Producer / consumer around a ring: each PE sends ROUNDS messages to its right neighbour. A message is a
   payload plus a signal (put_signal, SHMEM_SIGNAL_SET with the round number); the consumer waits for the
   signal, checks the payload, and returns a credit with an atomic increment that the producer waits for
   with wait_until before it reuses the buffer. OpenSHMEM 1.5 API only. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

#define ROUNDS 200
#define LEN 64

int main(void) {
  shmem_init();
  int me = shmem_my_pe();
  int npes = shmem_n_pes();
  int right = (me + 1) % npes;
  int left = (me + npes - 1) % npes;

  long *inbox = shmem_malloc(LEN * sizeof(long));
  uint64_t *signal = shmem_calloc(1, sizeof(uint64_t));
  int *credits = shmem_calloc(1, sizeof(int)); /* credits returned by my right neighbour */
  long msg[LEN];
  int errors = 0;
  shmem_barrier_all();

  for (int r = 1; r <= ROUNDS; r++) {
    /* produce: my buffer on the right neighbour is free once it returned r-1 credits */
    shmem_int_wait_until(credits, SHMEM_CMP_GE, r - 1);
    for (int i = 0; i < LEN; i++) msg[i] = (long)me * 1000000 + r * 1000 + i;
    shmem_long_put_signal(inbox, msg, LEN, signal, (uint64_t)r, SHMEM_SIGNAL_SET, right);
    /* consume what the left neighbour sent */
    uint64_t got = shmem_signal_wait_until(signal, SHMEM_CMP_GE, (uint64_t)r);
    if (got != (uint64_t)r && errors++ < 5) printf("PE %d: round %d: signal %llu\n", me, r, (unsigned long long)got);
    for (int i = 0; i < LEN; i++)
      if (inbox[i] != (long)left * 1000000 + r * 1000 + i && errors++ < 5)
        printf("PE %d: round %d: inbox[%d] = %ld\n", me, r, i, inbox[i]);
    shmem_int_atomic_inc(credits, left);
  }
  shmem_int_wait_until(credits, SHMEM_CMP_EQ, ROUNDS);

  shmem_barrier_all();
  shmem_free(credits);
  shmem_free(signal);
  shmem_free(inbox);
  if (errors)
    printf("producer_consumer: FAIL on PE %d (%d errors)\n", me, errors);
  else if (me == 0)
    printf("producer_consumer: PASS on %d PEs\n", npes);
  shmem_finalize();
  return errors ? 1 : 0;
}
