/*
 * gpushmem: OpenSHMEM 1.5 distributed locks (included by <shmem.h>; not meant to be included alone).
 *
 * A lock is a symmetric long (from shmem_malloc / shmem_calloc) that is 0 on every PE before its first
 * use; nothing but these three routines may touch it while it is in use. Not collective. Host only.
 * Waiters get the lock in the order they asked for it (first come, first served); a waiting PE polls
 * only its own copy of the lock word, spins briefly, then yields the core, and logs what it waits for
 * every GPUSHMEM_HANG_WARN seconds. Under SHMEM_THREAD_MULTIPLE the lock also excludes the other
 * threads of the holder's PE (they take turns in no set order; FIFO order holds between PEs). Locks are
 * not reentrant: asking again for a lock this PE (thread) holds is reported as an error.
 */
#ifndef GPUSHMEM_API_LOCK_H
#define GPUSHMEM_API_LOCK_H

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks until this PE holds the lock. Acquire order: what the previous holder wrote before its
   shmem_clear_lock is visible on return. */
void shmem_set_lock(long *lock);
/* Takes the lock if no PE holds or waits for it and returns 0; otherwise returns 1 at once (note the
   inverted sense). */
int shmem_test_lock(long *lock);
/* Completes this PE's outstanding operations on the default context (shmem_quiet), then releases the
   lock to the next waiting PE. Other contexts need their own shmem_ctx_quiet first. */
void shmem_clear_lock(long *lock);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GPUSHMEM_API_LOCK_H */
