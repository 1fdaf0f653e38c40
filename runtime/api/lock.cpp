// shmem_set_lock, shmem_test_lock, shmem_clear_lock (runtime/lock/ has the queue lock behind them).
#include "api/api_common.hpp"
#include "lock/mcs_lock.hpp"
#include "shmem.h"

using namespace gpushmem;

GPUSHMEM_EXPORT void shmem_set_lock(long *lock) {
  lock::set_lock("shmem_set_lock", lock);
}

GPUSHMEM_EXPORT int shmem_test_lock(long *lock) {
  return lock::test_lock("shmem_test_lock", lock);
}

GPUSHMEM_EXPORT void shmem_clear_lock(long *lock) {
  lock::clear_lock("shmem_clear_lock", lock);
}
