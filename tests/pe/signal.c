/*
 * Put with signal (C11 generic and typed names):
 *  - payload before signal: every round each PE sends a large payload to the next PE with SHMEM_SIGNAL_SET
 *    of the round number (typed, generic, sized, mem and _nbi forms in turn); the receiver checks the whole
 *    payload right after shmem_signal_wait_until returns, and the returned value;
 *  - SHMEM_SIGNAL_ADD from every PE to PE 0: the word ends at exactly the sum; each PE's payload slot arrived;
 *  - shmem_signal_fetch reads the local word.
 */
#include <string.h>

#include "pe_check.h"

enum { kPayload = 1 << 17, kRounds = 24, kAdds = 500 };

static long payload_value(int src, int round, size_t i) {
  return (long)src * 1000003L + (long)round * 7919L + (long)i;
}

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  long *data = (long *)shmem_malloc(kPayload * sizeof(long));
  uint64_t *sig = (uint64_t *)shmem_calloc(2, sizeof(uint64_t));
  long *slots = (long *)shmem_calloc((size_t)npes * kAdds, sizeof(long));
  long *local = (long *)malloc(kPayload * sizeof(long));
  if (!data || !sig || !slots || !local) {
    PE_FAIL("allocation failed");
    return pe_finish("signal");
  }
  shmem_barrier_all();

  for (int round = 1; round <= kRounds; ++round) {
    for (size_t i = 0; i < kPayload; ++i) local[i] = payload_value(me, round, i);
    switch (round % 6) {
      case 0:
        shmem_long_put_signal(data, local, kPayload, &sig[0], (uint64_t)round, SHMEM_SIGNAL_SET, next);
        break;
      case 1:
        shmem_put_signal(data, local, kPayload, &sig[0], (uint64_t)round, SHMEM_SIGNAL_SET, next);
        break;
      case 2:
        shmem_put_signal_nbi(data, local, kPayload, &sig[0], (uint64_t)round, SHMEM_SIGNAL_SET, next);
        break;
      case 3:
        shmem_put64_signal(data, local, kPayload, &sig[0], (uint64_t)round, SHMEM_SIGNAL_SET, next);
        break;
      case 4:
        shmem_putmem_signal_nbi(data, local, kPayload * sizeof(long), &sig[0], (uint64_t)round, SHMEM_SIGNAL_SET, next);
        break;
      default:
        shmem_long_put_signal_nbi(data, local, kPayload, &sig[0], (uint64_t)round, SHMEM_SIGNAL_SET, next);
        break;
    }
    uint64_t got = shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, (uint64_t)round);
    PE_CHECK(got == (uint64_t)round, "round %d: signal_wait_until returned %llu", round, (unsigned long long)got);
    long bad = 0;
    for (size_t i = 0; i < kPayload; ++i) {
      long want = payload_value(prev, round, i);
      if (data[i] != want && bad++ < 3)
        PE_FAIL("round %d: payload element %zu from PE %d: expected %ld, got %ld (signal seen before payload)", round,
                i, prev, want, data[i]);
    }
    PE_CHECK(shmem_signal_fetch(&sig[0]) == (uint64_t)round, "round %d: signal_fetch", round);
    shmem_quiet();       /* the nbi forms' source may be reused now */
    shmem_barrier_all(); /* nobody overwrites the payload before its receiver checked it */
  }

  /* ADD from every PE to PE 0, each with its own payload slot */
  for (int i = 0; i < kAdds; ++i) {
    long v = payload_value(me, i, 0);
    if (i % 2)
      shmem_long_put_signal(&slots[(size_t)me * kAdds + i], &v, 1, &sig[1], 2, SHMEM_SIGNAL_ADD, 0);
    else
      shmem_putmem_signal(&slots[(size_t)me * kAdds + i], &v, sizeof v, &sig[1], 2, SHMEM_SIGNAL_ADD, 0);
  }
  if (me == 0) {
    const uint64_t want = 2ull * kAdds * (uint64_t)npes;
    uint64_t got = shmem_signal_wait_until(&sig[1], SHMEM_CMP_GE, want);
    PE_CHECK(got == want, "SIGNAL_ADD: word %llu, expected %llu (an add was lost or doubled)", (unsigned long long)got,
             (unsigned long long)want);
    for (int pe = 0; pe < npes; ++pe)
      for (int i = 0; i < kAdds; ++i)
        PE_CHECK(slots[(size_t)pe * kAdds + i] == payload_value(pe, i, 0), "ADD payload of PE %d slot %d missing", pe,
                 i);
  }
  shmem_barrier_all();
  free(local);
  return pe_finish("signal");
}
