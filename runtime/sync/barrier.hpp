// Barrier over all PEs.
#pragma once

#include "core/status.hpp"

namespace gpushmem::sync {

// Waits until every PE has called it the same number of times. Publishes this PE's earlier stores to
// symmetric memory first. `call` names the API routine in messages.
void barrier_all(const char *call);

}  // namespace gpushmem::sync
