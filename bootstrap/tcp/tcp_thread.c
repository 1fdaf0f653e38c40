#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "tcp_sock.h"
#include "tcp_state.h"

int tcp_start_thread(pthread_t *thread, void *(*fn)(void *), void *arg) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(thread, NULL, fn, arg);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}

int tcp_cond_init(pthread_cond_t *cond) {
  pthread_condattr_t a;
  pthread_condattr_init(&a);
  pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  int rc = pthread_cond_init(cond, &a);
  pthread_condattr_destroy(&a);
  return rc;
}

int tcp_cond_wait_until(pthread_cond_t *cond, pthread_mutex_t *mutex, int64_t deadline_ms) {
  struct timespec ts = {.tv_sec = deadline_ms / 1000, .tv_nsec = (long)(deadline_ms % 1000) * 1000000};
  int rc = pthread_cond_timedwait(cond, mutex, &ts);
  return rc == ETIMEDOUT || tcp_now_ms() >= deadline_ms ? ETIMEDOUT : 0;
}

int tcp_lock_for(pthread_mutex_t *m, int ms) {
  /* pthread_mutex_timedlock only knows CLOCK_REALTIME. */
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_sec += ms / 1000;
  ts.tv_nsec += (long)(ms % 1000) * 1000000;
  if (ts.tv_nsec >= 1000000000) ts.tv_sec += 1, ts.tv_nsec -= 1000000000;
  return pthread_mutex_timedlock(m, &ts) == 0 ? 0 : ETIMEDOUT;
}

void tcp_park(void) {
  for (;;) pause();
}
